// batchnorm_expander: batch-norm-training / -inference / -grad -> reduce,
// broadcast and elementwise ops; see expanders.h.
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xlite/base/strings.h"
#include "xlite/passes/expander_util.h"
#include "xlite/passes/expanders.h"

namespace xlite {
namespace {

using O = HloOpcode;

// Builds the pieces of one batch-norm rewrite inside computation `c`.
class BatchNormBuilder {
 public:
  BatchNormBuilder(HloModule& module, InstructionMaker& make, HloComputation& c,
                   const HloInstruction& bn,
                   absl::flat_hash_map<PrimitiveType, HloComputation*>& adders)
      : module_(module),
        make_(make),
        c_(c),
        adders_(adders),
        x_(bn.operand(0)),
        shape_(x_->shape()),
        feature_index_(bn.attrs<BatchNormAttrs>().feature_index),
        epsilon_(bn.attrs<BatchNormAttrs>().epsilon) {
    per_feature_ = 1;
    for (int64_t d = 0; d < shape_.rank(); ++d) {
      if (d != feature_index_) {
        per_feature_ *= shape_.dimensions()[d];
        reduced_dims_.push_back(d);
      }
    }
  }

  HloInstruction* x() const { return x_; }
  // A per-feature vector broadcast to the operand's shape.
  HloInstruction* Spread(HloInstruction* v) {
    return make_.Broadcast(c_, v, shape_, {feature_index_});
  }
  // Sum over every dimension but the feature's.
  HloInstruction* SumPerFeature(HloInstruction* v) {
    PrimitiveType type = v->shape().element_type();
    Shape result(type, {shape_.dimensions()[feature_index_]});
    HloInstruction* sum =
        make_.Add(c_, O::kReduce, std::move(result), {v, make_.ScalarConstant(c_, type, 0.0)});
    sum->set_dimensions(reduced_dims_);
    sum->AppendCalledComputation(Adder(type));
    return sum;
  }
  HloInstruction* Splat(const Shape& shape, double v) { return make_.Splat(c_, shape, v); }
  HloInstruction* Bin(HloOpcode op, HloInstruction* a, HloInstruction* b) {
    return make_.Binary(c_, op, a, b);
  }
  HloInstruction* Count(const Shape& shape) {
    return Splat(shape, static_cast<double>(per_feature_));
  }
  // (x - mean) / sqrt(var + epsilon) * scale + offset, every argument spread.
  HloInstruction* Normalize(HloInstruction* xc, HloInstruction* var, HloInstruction* scale,
                            HloInstruction* offset) {
    HloInstruction* stddev = make_.Unary(c_, O::kSqrt, Bin(O::kAdd, var, Epsilon(var->shape())));
    return Bin(O::kAdd, Bin(O::kMultiply, Bin(O::kDivide, xc, stddev), scale), offset);
  }
  HloInstruction* Epsilon(const Shape& shape) { return Splat(shape, epsilon_); }
  HloInstruction* Tuple(const Shape& shape, std::vector<HloInstruction*> elements) {
    return make_.Add(c_, O::kTuple, shape, elements);
  }

 private:
  // The scalar add computation of `type`, made once per pass run.
  HloComputation* Adder(PrimitiveType type) {
    auto it = adders_.find(type);
    if (it != adders_.end()) return it->second;
    std::string name = absl::StrCat("batchnorm_add.", AsAbsl(PrimitiveTypeName(type)));
    for (int i = 1; module_.GetComputation(name) != nullptr; ++i) {
      name = absl::StrCat("batchnorm_add.", AsAbsl(PrimitiveTypeName(type)), ".", i);
    }
    HloComputation* adder =
        module_.AddComputationBefore(std::make_unique<HloComputation>(name), &c_);
    HloInstruction* params[2];
    for (int64_t i = 0; i < 2; ++i) {
      auto attrs = std::make_unique<ParameterAttrs>();
      attrs->number = i;
      params[i] = make_.Add(*adder, O::kParameter, Shape::Scalar(type), {}, std::move(attrs));
    }
    adder->set_root_instruction(make_.Binary(*adder, O::kAdd, params[0], params[1]));
    adders_[type] = adder;
    return adder;
  }

  HloModule& module_;
  InstructionMaker& make_;
  HloComputation& c_;
  absl::flat_hash_map<PrimitiveType, HloComputation*>& adders_;
  HloInstruction* x_;
  Shape shape_;
  int64_t feature_index_;
  double epsilon_;
  int64_t per_feature_ = 1;
  std::vector<int64_t> reduced_dims_;
};

}  // namespace

absl::StatusOr<bool> BatchNormExpanderPass::Run(HloModule& module) {
  absl::flat_hash_map<PrimitiveType, HloComputation*> adders;
  return ExpandInstructions(
      module,
      [this](HloOpcode op) {
        return (training_ && op == O::kBatchNormTraining) ||
               (inference_ && op == O::kBatchNormInference) || (grad_ && op == O::kBatchNormGrad);
      },
      [&](InstructionMaker& make, HloComputation& c,
          HloInstruction& bn) -> absl::StatusOr<HloInstruction*> {
        const Shape& x_shape = bn.operand(0)->shape();
        int64_t feature_index = bn.attrs<BatchNormAttrs>().feature_index;
        if (!x_shape.IsArray() || !x_shape.is_static() || !IsFloat(x_shape.element_type()) ||
            feature_index < 0 || feature_index >= x_shape.rank()) {
          return nullptr;  // left for the verifier / evaluator to judge
        }
        BatchNormBuilder b(module, make, c, bn, adders);
        HloInstruction* x = b.x();
        const Shape& fshape = bn.operand(1)->shape();
        switch (bn.opcode()) {
          case O::kBatchNormInference: {
            HloInstruction* xc = b.Bin(O::kSubtract, x, b.Spread(bn.operand(3)));
            return b.Normalize(xc, b.Spread(bn.operand(4)), b.Spread(bn.operand(1)),
                               b.Spread(bn.operand(2)));
          }
          case O::kBatchNormTraining: {
            HloInstruction* mean = b.Bin(O::kDivide, b.SumPerFeature(x), b.Count(fshape));
            HloInstruction* xc = b.Bin(O::kSubtract, x, b.Spread(mean));
            HloInstruction* var =
                b.Bin(O::kDivide, b.SumPerFeature(b.Bin(O::kMultiply, xc, xc)), b.Count(fshape));
            HloInstruction* y =
                b.Normalize(xc, b.Spread(var), b.Spread(bn.operand(1)), b.Spread(bn.operand(2)));
            return b.Tuple(bn.shape(), {y, mean, var});
          }
          default: {  // kBatchNormGrad
            // With xc = x - mean and ve = var + epsilon, per feature:
            //   grad_offset = sum(dy), grad_scale = sum(dy * xc) / sqrt(ve),
            //   grad_x = scale / sqrt(ve) / N * (N dy - sum(dy) - xc sum(dy xc) / ve).
            HloInstruction* dy = bn.operand(4);
            HloInstruction* xc = b.Bin(O::kSubtract, x, b.Spread(bn.operand(2)));
            HloInstruction* ve = b.Bin(O::kAdd, bn.operand(3), b.Epsilon(fshape));
            HloInstruction* stddev = make.Unary(c, O::kSqrt, ve);
            HloInstruction* sum_dy = b.SumPerFeature(dy);
            HloInstruction* sum_dy_xc = b.SumPerFeature(b.Bin(O::kMultiply, dy, xc));
            HloInstruction* grad_scale = b.Bin(O::kDivide, sum_dy_xc, stddev);
            HloInstruction* factor =
                b.Bin(O::kDivide, b.Bin(O::kDivide, bn.operand(1), stddev), b.Count(fshape));
            HloInstruction* inner = b.Bin(
                O::kSubtract,
                b.Bin(O::kSubtract, b.Bin(O::kMultiply, b.Count(x_shape), dy), b.Spread(sum_dy)),
                b.Bin(O::kMultiply, xc, b.Spread(b.Bin(O::kDivide, sum_dy_xc, ve))));
            HloInstruction* grad_x = b.Bin(O::kMultiply, b.Spread(factor), inner);
            return b.Tuple(bn.shape(), {grad_x, grad_scale, sum_dy});
          }
        }
      });
}

}  // namespace xlite
