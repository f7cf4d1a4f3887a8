// batch-norm-training, batch-norm-inference and batch-norm-grad, per XLA's
// operation semantics: statistics over every dimension but feature_index,
// the biased variance (divided by the element count N per feature).
//
// Everything computes in f64 and rounds once to the result types, so this is
// the exact-as-possible reference; XLA's BatchNormExpander computes in the
// operand type (and, for training, the variance as E[x^2] - E[x]^2), so
// narrow types and ill-conditioned inputs differ by rounding.
#include <cmath>
#include <vector>

#include "xlite/base/status.h"
#include "xlite/eval/index_util.h"
#include "xlite/eval/reduction_internal.h"

namespace xlite::eval {
namespace {

using Operands = absl::Span<const Literal* const>;

// Which feature each element of the operand belongs to.
struct Features {
  int64_t count = 0;     // features (the size of feature_index)
  int64_t stride = 1;    // row-major stride of feature_index
  int64_t elements = 0;  // elements of the operand
  int64_t per_feature = 0;
  double epsilon = 0;
  int64_t Of(int64_t i) const { return (i / stride) % count; }
};

// Checks the operand, the per-feature operands (operands[1..]) and the
// result shapes (`results`: the arrays of the result).
absl::StatusOr<Features> CheckBatchNorm(const HloInstruction& inst, Operands operands,
                                        const std::vector<Literal>& results) {
  const auto& attrs = inst.attrs<BatchNormAttrs>();
  const Shape& shape = operands[0]->shape();
  if (!IsFloat(shape.element_type())) {
    return InvalidArgument("batch norm needs a floating-point operand, got ", shape.ToString());
  }
  int64_t fi = attrs.feature_index;
  if (fi < 0 || fi >= shape.rank()) {
    return InvalidArgument("feature_index ", fi, " is out of range for ", shape.ToString());
  }
  Features f;
  f.count = shape.dimensions(fi);
  f.stride = RowMajorStrides(shape.dimensions())[fi];
  f.elements = operands[0]->element_count();
  f.per_feature = f.count == 0 ? 0 : f.elements / f.count;
  f.epsilon = attrs.epsilon;
  for (size_t k = 1; k < operands.size(); ++k) {
    const Shape& s = operands[k]->shape();
    if (!IsFloat(s.element_type()) || s.rank() != 1 || s.dimensions(0) != f.count) {
      return InvalidArgument("batch norm operand ", k, " has shape ", s.ToString());
    }
  }
  for (size_t k = 0; k < results.size(); ++k) {
    int64_t want = k == 0 ? f.elements : f.count;
    if (!results[k].shape().IsArray() || !IsFloat(results[k].shape().element_type()) ||
        results[k].element_count() != want) {
      return InvalidArgument("batch norm result ", k, " has shape ", results[k].shape().ToString());
    }
  }
  return f;
}

std::vector<double> ToDoubles(const Literal& l) {
  std::vector<double> v(l.element_count());
  for (int64_t i = 0; i < l.element_count(); ++i) v[i] = l.GetDouble(i);
  return v;
}

void Store(const std::vector<double>& values, Literal& l) {
  for (size_t i = 0; i < values.size(); ++i) l.SetDouble(static_cast<int64_t>(i), values[i]);
}

// out = (x - mean) / sqrt(var + epsilon) * scale + offset.
void Normalize(const Features& f, const Literal& x, const std::vector<double>& scale,
               const std::vector<double>& offset, const std::vector<double>& mean,
               const std::vector<double>& var, Literal& out) {
  for (int64_t i = 0; i < f.elements; ++i) {
    int64_t c = f.Of(i);
    out.SetDouble(
        i, (x.GetDouble(i) - mean[c]) / std::sqrt(var[c] + f.epsilon) * scale[c] + offset[c]);
  }
}

absl::StatusOr<Literal> BatchNormTraining(const HloInstruction& inst, Operands operands,
                                          EvalContext&) {
  std::vector<Literal> results = MakeResultArrays(inst.shape());
  if (results.size() != 3) return InvalidArgument("batch-norm-training returns 3 arrays");
  XLITE_ASSIGN_OR_RETURN(Features f, CheckBatchNorm(inst, operands, results));
  const Literal& x = *operands[0];
  std::vector<double> mean(f.count, 0.0), var(f.count, 0.0);
  for (int64_t i = 0; i < f.elements; ++i) mean[f.Of(i)] += x.GetDouble(i);
  for (double& m : mean) m /= static_cast<double>(f.per_feature);
  for (int64_t i = 0; i < f.elements; ++i) {
    double d = x.GetDouble(i) - mean[f.Of(i)];
    var[f.Of(i)] += d * d;
  }
  for (double& v : var) v /= static_cast<double>(f.per_feature);
  Normalize(f, x, ToDoubles(*operands[1]), ToDoubles(*operands[2]), mean, var, results[0]);
  Store(mean, results[1]);
  Store(var, results[2]);
  return PackResultArrays(inst.shape(), std::move(results));
}

absl::StatusOr<Literal> BatchNormInference(const HloInstruction& inst, Operands operands,
                                           EvalContext&) {
  std::vector<Literal> results = MakeResultArrays(inst.shape());
  if (results.size() != 1) return InvalidArgument("batch-norm-inference returns one array");
  XLITE_ASSIGN_OR_RETURN(Features f, CheckBatchNorm(inst, operands.subspan(0, 5), results));
  Normalize(f, *operands[0], ToDoubles(*operands[1]), ToDoubles(*operands[2]),
            ToDoubles(*operands[3]), ToDoubles(*operands[4]), results[0]);
  return PackResultArrays(inst.shape(), std::move(results));
}

// With xc = x - mean and r = 1 / sqrt(var + epsilon), per feature:
//   grad_offset = sum(dy), grad_scale = sum(dy * xc) * r,
//   grad_x = scale * r / N * (N * dy - sum(dy) - xc * sum(dy * xc) / (var + epsilon)).
absl::StatusOr<Literal> BatchNormGrad(const HloInstruction& inst, Operands operands, EvalContext&) {
  std::vector<Literal> results = MakeResultArrays(inst.shape());
  if (results.size() != 3) return InvalidArgument("batch-norm-grad returns 3 arrays");
  const Literal& x = *operands[0];
  const Literal& dy = *operands[4];
  if (dy.shape().dimensions() != x.shape().dimensions()) {
    return InvalidArgument("batch-norm-grad's grad_output ", dy.shape().ToString(),
                           " differs from its operand ", x.shape().ToString());
  }
  XLITE_ASSIGN_OR_RETURN(Features f, CheckBatchNorm(inst, operands.subspan(0, 4), results));
  std::vector<double> scale = ToDoubles(*operands[1]);
  std::vector<double> mean = ToDoubles(*operands[2]);
  std::vector<double> var = ToDoubles(*operands[3]);
  std::vector<double> sum_dy(f.count, 0.0), sum_dy_xc(f.count, 0.0);
  for (int64_t i = 0; i < f.elements; ++i) {
    int64_t c = f.Of(i);
    double g = dy.GetDouble(i);
    sum_dy[c] += g;
    sum_dy_xc[c] += g * (x.GetDouble(i) - mean[c]);
  }
  double n = static_cast<double>(f.per_feature);
  for (int64_t i = 0; i < f.elements; ++i) {
    int64_t c = f.Of(i);
    double ve = var[c] + f.epsilon;
    double xc = x.GetDouble(i) - mean[c];
    double r = 1.0 / std::sqrt(ve);
    results[0].SetDouble(
        i, scale[c] * r / n * (n * dy.GetDouble(i) - sum_dy[c] - xc * sum_dy_xc[c] / ve));
  }
  std::vector<double> grad_scale(f.count);
  for (int64_t c = 0; c < f.count; ++c) {
    grad_scale[c] = sum_dy_xc[c] / std::sqrt(var[c] + f.epsilon);
  }
  Store(grad_scale, results[1]);
  Store(sum_dy, results[2]);
  return PackResultArrays(inst.shape(), std::move(results));
}

}  // namespace

void RegisterBatchNormOps(OpHandlerTable& table) {
  table.Register(HloOpcode::kBatchNormTraining, BatchNormTraining);
  table.Register(HloOpcode::kBatchNormInference, BatchNormInference);
  table.Register(HloOpcode::kBatchNormGrad, BatchNormGrad);
}

}  // namespace xlite::eval
