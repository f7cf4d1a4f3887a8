// sort (variadic, any comparator) and topk.
//
// sort always sorts stably (is_stable=false permits any order of equal
// elements, so stable is one valid answer, and a stable merge sort stays
// memory-safe under a comparator that is no strict weak order). A comparator
// that is one compare of a key operand's lhs/rhs parameters runs natively
// with compare's exact semantics; any other is called per comparison.
//
// topk follows XLA's TopkDecomposer: a stable sort along the last dimension
// by compare-greater-than (largest) or compare-less-than (smallest) of type
// TOTALORDER, so ties keep the lower index first and NaN orders by sign:
// largest puts +NaN before +inf and -NaN after -inf; smallest the reverse.
// Integers compare by value.
#include <algorithm>
#include <numeric>
#include <vector>

#include "xlite/base/stable_sort.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/eval/index_util.h"
#include "xlite/eval/reducer.h"
#include "xlite/eval/reduction_internal.h"

namespace xlite::eval {
namespace {

using Operands = absl::Span<const Literal* const>;

// Calls fn(line) for every line of `dims` along `dim`, in row-major order of
// the other dimensions.
template <typename Fn>
absl::Status ForEachLine(absl::Span<const int64_t> dims, int64_t dim, Fn&& fn) {
  std::vector<int64_t> outer(dims.begin(), dims.end());
  outer[dim] = 1;
  for (int64_t d : outer) {
    if (d == 0) return absl::OkStatus();
  }
  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> index(dims.size(), 0);
  do {
    XLITE_RETURN_IF_ERROR(fn(Line{LinearIndex(index, strides), strides[dim], dims[dim]}));
  } while (NextIndex(absl::MakeSpan(index), outer));
  return absl::OkStatus();
}

// The comparator as a function of two element indices.
class SortComparator {
 public:
  SortComparator(const HloComputation& comparator, Operands operands, EvalContext& ctx)
      : comparator_(comparator), operands_(operands), ctx_(ctx) {
    std::optional<ParameterCompare> cmp = MatchParameterCompare(comparator);
    if (!cmp) return;
    int64_t key = cmp->lhs_parameter / 2;
    bool plain = cmp->lhs_parameter == 2 * key && cmp->rhs_parameter == 2 * key + 1;
    bool swapped = cmp->rhs_parameter == 2 * key && cmp->lhs_parameter == 2 * key + 1;
    if ((!plain && !swapped) || key >= static_cast<int64_t>(operands.size()) ||
        comparator.num_parameters() != 2 * static_cast<int64_t>(operands.size()) ||
        comparator.parameter_instruction(2 * key)->shape().element_type() !=
            operands[key]->shape().element_type()) {
      return;
    }
    keys_ = CompareKeys::Make(*operands[key], cmp->type);
    direction_ = plain ? cmp->direction : SwappedDirection(cmp->direction);
  }

  absl::Status Prepare() {
    if (keys_) return absl::OkStatus();
    int64_t n = static_cast<int64_t>(operands_.size());
    if (comparator_.num_parameters() != 2 * n) {
      return InvalidArgument("comparator ", comparator_.name(), " takes ",
                             comparator_.num_parameters(), " parameters; ", n, " operand(s) need ",
                             2 * n);
    }
    for (int64_t i = 0; i < 2 * n; ++i) {
      const HloInstruction* p = comparator_.parameter_instruction(i);
      if (p == nullptr || !p->shape().IsScalar()) {
        return InvalidArgument("comparator parameter ", i, " is not a scalar");
      }
      scalars_.emplace_back(p->shape());
    }
    for (Literal& s : scalars_) args_.push_back(&s);
    return absl::OkStatus();
  }

  // compare(element a, element b); after the first error every answer is
  // false (the sort then finishes harmlessly and the error is reported).
  bool operator()(int64_t a, int64_t b) {
    if (keys_) return keys_->Compare(a, b, direction_);
    if (!status_.ok()) return false;
    for (size_t k = 0; k < operands_.size(); ++k) {
      CopyElement(*operands_[k], a, scalars_[2 * k], 0);
      CopyElement(*operands_[k], b, scalars_[2 * k + 1], 0);
    }
    absl::StatusOr<Literal> result = ctx_.Call(comparator_, args_);
    if (!result.ok()) {
      status_ = result.status();
      return false;
    }
    if (!result->shape().IsScalar() || result->shape().element_type() != PrimitiveType::PRED) {
      status_ = InvalidArgument("comparator returned ", result->shape().ToString(), ", not pred[]");
      return false;
    }
    return result->GetInt64(0) != 0;
  }

  const absl::Status& status() const { return status_; }

 private:
  const HloComputation& comparator_;
  Operands operands_;
  EvalContext& ctx_;
  std::optional<CompareKeys> keys_;
  ComparisonDirection direction_ = ComparisonDirection::kLt;
  std::vector<Literal> scalars_;
  std::vector<const Literal*> args_;
  absl::Status status_;
};

// Copies the line's elements of `from` in the order `order` (line
// positions) into the first order.size() positions of `to`'s line.
void GatherLine(const Literal& from, const Line& from_line, absl::Span<const int64_t> order,
                Literal& to, const Line& to_line) {
  for (size_t j = 0; j < order.size(); ++j) {
    CopyElement(from, from_line.start + order[j] * from_line.stride, to,
                to_line.start + static_cast<int64_t>(j) * to_line.stride);
  }
}

absl::StatusOr<Literal> Sort(const HloInstruction& inst, Operands operands, EvalContext& ctx) {
  if (operands.empty() || inst.dimensions().size() != 1) {
    return InvalidArgument("sort needs operands and one dimension");
  }
  absl::Span<const int64_t> dims = operands[0]->shape().dimensions();
  int64_t dim = inst.dimensions()[0];
  if (dim < 0 || dim >= static_cast<int64_t>(dims.size())) {
    return InvalidArgument("sort dimension ", dim, " is out of range for ",
                           operands[0]->shape().ToString());
  }
  for (const Literal* l : operands) {
    if (l->shape().dimensions() != dims) {
      return InvalidArgument("sort operands differ in shape: ", l->shape().ToString(), " vs ",
                             operands[0]->shape().ToString());
    }
  }
  std::vector<Literal> outputs = MakeResultArrays(inst.shape());
  if (outputs.size() != operands.size()) {
    return InvalidArgument("sort of ", operands.size(), " operands has result shape ",
                           inst.shape().ToString());
  }
  SortComparator comparator(*inst.to_apply(), operands, ctx);
  XLITE_RETURN_IF_ERROR(comparator.Prepare());
  std::vector<int64_t> order;
  XLITE_RETURN_IF_ERROR(ForEachLine(dims, dim, [&](const Line& line) -> absl::Status {
    order.resize(line.size);
    std::iota(order.begin(), order.end(), 0);
    StableSort(order, [&](int64_t a, int64_t b) {
      return comparator(line.start + a * line.stride, line.start + b * line.stride);
    });
    XLITE_RETURN_IF_ERROR(comparator.status());
    for (size_t k = 0; k < operands.size(); ++k) {
      GatherLine(*operands[k], line, order, outputs[k], line);
    }
    return absl::OkStatus();
  }));
  return PackResultArrays(inst.shape(), std::move(outputs));
}

absl::StatusOr<Literal> TopK(const HloInstruction& inst, Operands operands, EvalContext&) {
  const Literal& x = *operands[0];
  const auto& attrs = inst.attrs<IntAttrs>();
  int64_t k = attrs.value;
  bool largest = attrs.flag;
  absl::Span<const int64_t> dims = x.shape().dimensions();
  if (dims.empty()) return InvalidArgument("topk needs an operand of rank >= 1");
  int64_t last = static_cast<int64_t>(dims.size()) - 1;
  if (k < 0 || k > dims[last]) {
    return InvalidArgument("topk k=", k, " is out of range for ", x.shape().ToString());
  }
  PrimitiveType t = x.shape().element_type();
  std::optional<CompareKeys> keys =
      CompareKeys::Make(x, IsFloat(t)       ? ComparisonType::kTotalOrder
                           : IsSignedInt(t) ? ComparisonType::kSigned
                                            : ComparisonType::kUnsigned);
  if (!keys) {
    return Unimplemented("topk of ", AsAbsl(PrimitiveTypeName(t)), " (no total order)");
  }
  std::vector<Literal> outputs = MakeResultArrays(inst.shape());
  if (outputs.size() != 2 || outputs[1].shape().element_type() != PrimitiveType::S32) {
    return InvalidArgument("topk result shape ", inst.shape().ToString(),
                           " is not (values, s32 indices)");
  }
  std::vector<int64_t> out_dims(dims.begin(), dims.end());
  out_dims[last] = k;
  for (const Literal& o : outputs) {
    if (o.shape().dimensions() != absl::Span<const int64_t>(out_dims)) {
      return InvalidArgument("topk result ", o.shape().ToString(), " does not hold k=", k);
    }
  }
  std::vector<int64_t> order;
  int64_t out_line_start = 0;
  XLITE_RETURN_IF_ERROR(ForEachLine(dims, last, [&](const Line& line) -> absl::Status {
    order.resize(line.size);
    std::iota(order.begin(), order.end(), 0);
    // Ties break by position, so the order is total and partial_sort's
    // answer is the stable sort's prefix.
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
      int64_t ia = line.start + a, ib = line.start + b;
      bool before = largest ? keys->Less(ib, ia) : keys->Less(ia, ib);
      bool after = largest ? keys->Less(ia, ib) : keys->Less(ib, ia);
      return before || (!after && a < b);
    });
    Line out_line{out_line_start, 1, k};
    GatherLine(x, line, absl::MakeSpan(order).subspan(0, k), outputs[0], out_line);
    for (int64_t j = 0; j < k; ++j) outputs[1].SetInt64(out_line_start + j, order[j]);
    out_line_start += k;
    return absl::OkStatus();
  }));
  return PackResultArrays(inst.shape(), std::move(outputs));
}

}  // namespace

void RegisterSortOps(OpHandlerTable& table) {
  table.Register(HloOpcode::kSort, Sort);
  table.Register(HloOpcode::kTopK, TopK);
}

}  // namespace xlite::eval
