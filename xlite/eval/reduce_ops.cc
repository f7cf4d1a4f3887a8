// reduce (variadic, any dimensions, every element type) and scan.
//
// Evaluation order, which XLA leaves unspecified: each output element starts
// from the init values and folds the reduced elements one at a time in
// row-major order of the reduced dimensions (ascending dimension numbers,
// whatever order `dimensions={...}` lists them in), acc = reducer(acc, x).
// That is the order of XLA's HloEvaluator, so non-associative reducers match
// it. A sum of f16/bf16/f8 accumulates in f32 and rounds once
// (NarrowSum::kWidened); other narrow-float reducers round every step.
#include <algorithm>
#include <vector>

#include "xlite/base/status.h"
#include "xlite/eval/index_util.h"
#include "xlite/eval/reducer.h"
#include "xlite/eval/reduction_internal.h"

namespace xlite::eval {
namespace {

using Operands = absl::Span<const Literal* const>;

absl::StatusOr<Literal> Reduce(const HloInstruction& inst, Operands operands, EvalContext& ctx) {
  size_t n = operands.size() / 2;
  if (n == 0 || operands.size() % 2 != 0) {
    return InvalidArgument("reduce takes N arrays and N init values, got ", operands.size(),
                           " operands");
  }
  Operands inputs = operands.subspan(0, n);
  Operands inits = operands.subspan(n);
  const Shape& in_shape = inputs[0]->shape();
  absl::Span<const int64_t> dims = in_shape.dimensions();
  int64_t rank = in_shape.rank();
  for (size_t k = 0; k < n; ++k) {
    if (!inputs[k]->shape().IsArray() || inputs[k]->shape().dimensions() != dims) {
      return InvalidArgument("reduce input ", k, " has shape ", inputs[k]->shape().ToString(),
                             ", input 0 ", in_shape.ToString());
    }
    if (!inits[k]->shape().IsScalar()) {
      return InvalidArgument("reduce init value ", k, " is not a scalar");
    }
  }
  std::vector<bool> reduced(rank, false);
  for (int64_t d : inst.dimensions()) {
    if (d < 0 || d >= rank || reduced[d]) {
      return InvalidArgument("bad reduce dimension ", d, " for ", in_shape.ToString());
    }
    reduced[d] = true;
  }

  std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> kept_dims, kept_strides;
  // Reduced dims as lines (start unused), adjacent ones merged: row-major
  // order stays the same.
  std::vector<Line> runs;
  int64_t kept_count = 1;
  int64_t reduced_count = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      kept_dims.push_back(dims[d]);
      kept_strides.push_back(strides[d]);
      kept_count *= dims[d];
      continue;
    }
    reduced_count *= dims[d];
    if (d > 0 && reduced[d - 1]) {
      runs.back().size *= dims[d];
      runs.back().stride = strides[d];
    } else {
      runs.push_back(Line{0, strides[d], dims[d]});
    }
  }
  Line inner = runs.empty() ? Line{0, 0, 1} : runs.back();
  if (!runs.empty()) runs.pop_back();
  std::vector<int64_t> outer_sizes, outer_strides;
  for (const Line& r : runs) {
    outer_sizes.push_back(r.size);
    outer_strides.push_back(r.stride);
  }

  std::vector<Literal> outputs = MakeResultArrays(inst.shape());
  if (outputs.size() != n) {
    return InvalidArgument("reduce of ", n, " inputs has result shape ", inst.shape().ToString());
  }
  for (size_t k = 0; k < n; ++k) {
    if (!outputs[k].shape().IsArray() || outputs[k].element_count() != kept_count) {
      return InvalidArgument("reduce result ", k, " has shape ", outputs[k].shape().ToString(),
                             " but ", kept_count, " elements remain");
    }
  }
  std::vector<Literal*> output_ptrs = Pointers(outputs);
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<Combiner> combiner,
                         Combiner::Make(*inst.to_apply(), inputs, ctx,
                                        /*accumulator_last=*/false, NarrowSum::kWidened));

  if (kept_count > 0) {
    std::vector<int64_t> kept_index(kept_dims.size(), 0);
    std::vector<int64_t> outer_index(outer_sizes.size(), 0);
    int64_t out = 0;
    do {
      int64_t base = LinearIndex(kept_index, kept_strides);
      combiner->Load(inits, 0);
      if (reduced_count > 0) {
        std::fill(outer_index.begin(), outer_index.end(), 0);
        do {
          int64_t start = base + LinearIndex(outer_index, outer_strides);
          XLITE_RETURN_IF_ERROR(combiner->Fold(start, inner.stride, inner.size));
        } while (NextIndex(absl::MakeSpan(outer_index), outer_sizes));
      }
      combiner->Store(output_ptrs, out++);
    } while (NextIndex(absl::MakeSpan(kept_index), kept_dims));
  }
  return PackResultArrays(inst.shape(), std::move(outputs));
}

absl::StatusOr<Literal> Scan(const HloInstruction&, Operands, EvalContext&) {
  return Unimplemented(
      "scan (XLA has not published its semantics: the order of carries and "
      "outputs and what is_associative permits are unconfirmed)");
}

}  // namespace

void RegisterReduceOps(OpHandlerTable& table) {
  table.Register(HloOpcode::kReduce, Reduce);
  table.Register(HloOpcode::kScan, Scan);
}

}  // namespace xlite::eval
