// dynamic-slice and dynamic-update-slice: a static-size window at runtime
// start indices, clamped (as XLA does) so the window stays inside the operand.
#include <algorithm>

#include "xlite/base/status.h"
#include "xlite/eval/array_copy.h"
#include "xlite/eval/data_movement_internal.h"
#include "xlite/eval/index_util.h"

namespace xlite::eval {
namespace {

// Start indices from operands [first, end): one integer scalar per dimension
// or the legacy single rank-1 array, each clamped to [0, dims[i] - sizes[i]].
absl::StatusOr<std::vector<int64_t>> ClampedStarts(Operands ops, size_t first,
                                                   absl::Span<const int64_t> dims,
                                                   absl::Span<const int64_t> sizes) {
  std::vector<int64_t> starts;
  for (size_t i = first; i < ops.size(); ++i) {
    XLITE_ASSIGN_OR_RETURN(std::vector<int64_t> v, IndexValues(*ops[i]));
    starts.insert(starts.end(), v.begin(), v.end());
  }
  if (starts.size() != dims.size() || sizes.size() != dims.size()) {
    return InvalidArgument("expected ", dims.size(), " start indices and sizes, got ",
                           starts.size(), " and ", sizes.size());
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (sizes[i] > dims[i]) {
      return InvalidArgument("window size ", sizes[i], " exceeds dimension ", i, " (", dims[i],
                             ")");
    }
    starts[i] = std::clamp<int64_t>(starts[i], 0, dims[i] - sizes[i]);
  }
  return starts;
}

absl::StatusOr<Literal> DynamicSlice(const HloInstruction& inst, Operands ops, EvalContext&) {
  const Literal& x = *ops[0];
  const Shape& shape = inst.shape();
  XLITE_ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                         ClampedStarts(ops, 1, x.shape().dimensions(), shape.dimensions()));
  std::vector<int64_t> x_strides = StridesOf(x.shape());
  Literal out(shape);
  CopyBox(out, x,
          StridedBox(shape.dimensions(), 0, StridesOf(shape), LinearIndex(starts, x_strides),
                     x_strides));
  return out;
}

absl::StatusOr<Literal> DynamicUpdateSlice(const HloInstruction&, Operands ops, EvalContext&) {
  const Literal& update = *ops[1];
  Literal out = *ops[0];
  absl::Span<const int64_t> sizes = update.shape().dimensions();
  XLITE_ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                         ClampedStarts(ops, 2, out.shape().dimensions(), sizes));
  std::vector<int64_t> out_strides = StridesOf(out.shape());
  CopyBox(out, update,
          StridedBox(sizes, LinearIndex(starts, out_strides), out_strides, 0,
                     StridesOf(update.shape())));
  return out;
}

}  // namespace

void RegisterDynamicSliceOps(OpHandlerTable& table) {
  table.Register(HloOpcode::kDynamicSlice, DynamicSlice);
  table.Register(HloOpcode::kDynamicUpdateSlice, DynamicUpdateSlice);
}

}  // namespace xlite::eval
