// reduce-window and select-and-scatter: windows with stride, padding, base
// (lhs) dilation and window (rhs) dilation over the operand.
//
// A window position on padding or on a hole of the base dilation reads
// nothing: reduce-window skips it (so the init value, an identity, is what
// padding contributes) and select-and-scatter never selects it, as XLA's
// evaluator does. Each window folds its elements in row-major window order
// after the init value; select-and-scatter selects the first element the
// select computation keeps, calling select(selected, candidate) and moving
// to the candidate when it answers false, and accumulates with
// scatter(source, output), both in XLA's evaluator's argument order.
#include <vector>

#include "xlite/base/status.h"
#include "xlite/eval/index_util.h"
#include "xlite/eval/reducer.h"
#include "xlite/eval/reduction_internal.h"

namespace xlite::eval {
namespace {

using Operands = absl::Span<const Literal* const>;

// Per dimension, the operand coordinate each (output coordinate, window
// coordinate) pair reads, or -1 for padding and dilation holes.
struct WindowMap {
  std::vector<int64_t> window_sizes;
  std::vector<int64_t> operand_strides;
  std::vector<std::vector<int64_t>> coord;  // coord[d][o * window_sizes[d] + w]
};

absl::StatusOr<WindowMap> MakeWindowMap(const Window& window, absl::Span<const int64_t> operand,
                                        absl::Span<const int64_t> output) {
  int64_t rank = static_cast<int64_t>(operand.size());
  if (static_cast<int64_t>(window.size()) != rank) {
    return InvalidArgument("the window has ", window.size(), " dimensions, the operand ", rank);
  }
  if (static_cast<int64_t>(output.size()) != rank) {
    return InvalidArgument("the windowed result has rank ", output.size(), ", the operand ", rank);
  }
  WindowMap map;
  map.operand_strides = RowMajorStrides(operand);
  for (int64_t d = 0; d < rank; ++d) {
    const WindowDimension& w = window[d];
    if (w.window_reversal) return Unimplemented("window reversal in a reduction window");
    if (w.size < 0 || w.stride < 1 || w.base_dilation < 1 || w.window_dilation < 1) {
      return InvalidArgument("bad window dimension ", d, " (size ", w.size, ", stride ", w.stride,
                             ", dilations ", w.base_dilation, "/", w.window_dilation, ")");
    }
    int64_t dilated_base = operand[d] == 0 ? 0 : (operand[d] - 1) * w.base_dilation + 1;
    int64_t padded = dilated_base + w.padding_low + w.padding_high;
    int64_t dilated_window = w.size == 0 ? 0 : (w.size - 1) * w.window_dilation + 1;
    int64_t expected = padded < dilated_window ? 0 : (padded - dilated_window) / w.stride + 1;
    if (output[d] != expected) {
      return InvalidArgument("windowed dimension ", d, " has size ", output[d],
                             ", the window gives ", expected);
    }
    map.window_sizes.push_back(w.size);
    std::vector<int64_t>& coord =
        map.coord.emplace_back(static_cast<size_t>(output[d] * w.size), int64_t{-1});
    for (int64_t o = 0; o < output[d]; ++o) {
      for (int64_t k = 0; k < w.size; ++k) {
        int64_t p = o * w.stride + k * w.window_dilation - w.padding_low;
        if (p >= 0 && p < dilated_base && p % w.base_dilation == 0) {
          coord[o * w.size + k] = p / w.base_dilation;
        }
      }
    }
  }
  return map;
}

// Calls fn(operand linear index) for each element the window at output
// index `out` reads, in row-major window order; stops at fn's first error.
template <typename Fn>
absl::Status ForEachWindowElement(const WindowMap& map, absl::Span<const int64_t> out,
                                  std::vector<int64_t>& scratch, Fn&& fn) {
  for (int64_t size : map.window_sizes) {
    if (size == 0) return absl::OkStatus();
  }
  size_t rank = map.window_sizes.size();
  scratch.assign(rank, 0);
  do {
    int64_t linear = 0;
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      int64_t c = map.coord[d][out[d] * map.window_sizes[d] + scratch[d]];
      if (c < 0) {
        inside = false;
        break;
      }
      linear += c * map.operand_strides[d];
    }
    if (inside) XLITE_RETURN_IF_ERROR(fn(linear));
  } while (NextIndex(absl::MakeSpan(scratch), map.window_sizes));
  return absl::OkStatus();
}

// Calls fn(output index, output linear index) over `dims` in row-major order
// (never when a dimension is 0); stops at fn's first error.
template <typename Fn>
absl::Status ForEachOutput(absl::Span<const int64_t> dims, Fn&& fn) {
  for (int64_t d : dims) {
    if (d == 0) return absl::OkStatus();
  }
  std::vector<int64_t> index(dims.size(), 0);
  int64_t linear = 0;
  do {
    XLITE_RETURN_IF_ERROR(fn(absl::Span<const int64_t>(index), linear++));
  } while (NextIndex(absl::MakeSpan(index), dims));
  return absl::OkStatus();
}

absl::StatusOr<Literal> ReduceWindow(const HloInstruction& inst, Operands operands,
                                     EvalContext& ctx) {
  size_t n = operands.size() / 2;
  if (n == 0 || operands.size() % 2 != 0) {
    return InvalidArgument("reduce-window takes N arrays and N init values, got ", operands.size(),
                           " operands");
  }
  Operands inputs = operands.subspan(0, n);
  Operands inits = operands.subspan(n);
  absl::Span<const int64_t> dims = inputs[0]->shape().dimensions();
  for (size_t k = 0; k < n; ++k) {
    if (inputs[k]->shape().dimensions() != dims || !inits[k]->shape().IsScalar()) {
      return InvalidArgument("reduce-window operand ", k, " has shape ",
                             inputs[k]->shape().ToString(), ", operand 0 ",
                             inputs[0]->shape().ToString());
    }
  }
  std::vector<Literal> outputs = MakeResultArrays(inst.shape());
  if (outputs.size() != n) {
    return InvalidArgument("reduce-window of ", n, " inputs has result shape ",
                           inst.shape().ToString());
  }
  absl::Span<const int64_t> out_dims = outputs[0].shape().dimensions();
  XLITE_ASSIGN_OR_RETURN(WindowMap map,
                         MakeWindowMap(inst.attrs<WindowAttrs>().window, dims, out_dims));
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<Combiner> combiner,
                         Combiner::Make(*inst.to_apply(), inputs, ctx,
                                        /*accumulator_last=*/false, NarrowSum::kWidened));
  std::vector<Literal*> output_ptrs = Pointers(outputs);
  std::vector<int64_t> scratch;
  XLITE_RETURN_IF_ERROR(ForEachOutput(
      out_dims, [&](absl::Span<const int64_t> out, int64_t out_linear) -> absl::Status {
        combiner->Load(inits, 0);
        XLITE_RETURN_IF_ERROR(ForEachWindowElement(
            map, out, scratch, [&](int64_t i) -> absl::Status { return combiner->Fold(i, 0, 1); }));
        combiner->Store(output_ptrs, out_linear);
        return absl::OkStatus();
      }));
  return PackResultArrays(inst.shape(), std::move(outputs));
}

// select(a, b) on two operand elements: natively for a plain compare of the
// two parameters, else through the computation.
class Selector {
 public:
  Selector(const HloComputation& select, const Literal& operand, EvalContext& ctx)
      : select_(select), operand_(operand), ctx_(ctx) {
    std::optional<ParameterCompare> cmp = MatchParameterCompare(select);
    if (cmp && select.num_parameters() == 2 &&
        ((cmp->lhs_parameter == 0 && cmp->rhs_parameter == 1) ||
         (cmp->lhs_parameter == 1 && cmp->rhs_parameter == 0)) &&
        select.parameter_instruction(0)->shape().element_type() == operand.shape().element_type()) {
      keys_ = CompareKeys::Make(operand, cmp->type);
      direction_ = cmp->lhs_parameter == 0 ? cmp->direction : SwappedDirection(cmp->direction);
    }
  }

  absl::StatusOr<bool> Select(int64_t a, int64_t b) {
    if (keys_) return keys_->Compare(a, b, direction_);
    if (select_.num_parameters() != 2) {
      return InvalidArgument("select computation ", select_.name(), " takes ",
                             select_.num_parameters(), " parameters, not 2");
    }
    if (args_.empty()) {
      for (int64_t i = 0; i < 2; ++i) {
        scalars_.emplace_back(select_.parameter_instruction(i)->shape());
      }
      args_ = {&scalars_[0], &scalars_[1]};
    }
    CopyElement(operand_, a, scalars_[0], 0);
    CopyElement(operand_, b, scalars_[1], 0);
    XLITE_ASSIGN_OR_RETURN(Literal result, ctx_.Call(select_, args_));
    if (!result.shape().IsScalar() || result.shape().element_type() != PrimitiveType::PRED) {
      return InvalidArgument("select computation returned ", result.shape().ToString(),
                             ", not pred[]");
    }
    return result.GetInt64(0) != 0;
  }

 private:
  const HloComputation& select_;
  const Literal& operand_;
  EvalContext& ctx_;
  std::optional<CompareKeys> keys_;
  ComparisonDirection direction_ = ComparisonDirection::kGe;
  std::vector<Literal> scalars_;
  std::vector<const Literal*> args_;
};

absl::StatusOr<Literal> SelectAndScatter(const HloInstruction& inst, Operands operands,
                                         EvalContext& ctx) {
  const Literal& operand = *operands[0];
  const Literal& source = *operands[1];
  const Literal& init = *operands[2];
  if (!init.shape().IsScalar() || inst.called_computations().size() != 2) {
    return InvalidArgument(
        "select-and-scatter needs a scalar init and select/scatter computations");
  }
  XLITE_ASSIGN_OR_RETURN(
      WindowMap map, MakeWindowMap(inst.attrs<WindowAttrs>().window, operand.shape().dimensions(),
                                   source.shape().dimensions()));
  Literal output(inst.shape());
  if (!output.shape().IsArray() || output.element_count() != operand.element_count()) {
    return InvalidArgument("select-and-scatter result ", inst.shape().ToString(),
                           " differs from its operand ", operand.shape().ToString());
  }
  for (int64_t i = 0; i < output.element_count(); ++i) CopyElement(init, 0, output, i);

  Selector selector(*inst.called_computations()[0], operand, ctx);
  const Literal* source_ptr = &source;
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<Combiner> scatter,
                         Combiner::Make(*inst.called_computations()[1], {&source_ptr, 1}, ctx,
                                        /*accumulator_last=*/true));
  Literal* output_ptr = &output;
  const Literal* output_view = &output;
  std::vector<int64_t> scratch;
  XLITE_RETURN_IF_ERROR(
      ForEachOutput(source.shape().dimensions(),
                    [&](absl::Span<const int64_t> out, int64_t source_linear) -> absl::Status {
                      int64_t selected = -1;
                      XLITE_RETURN_IF_ERROR(
                          ForEachWindowElement(map, out, scratch, [&](int64_t i) -> absl::Status {
                            if (selected < 0) {
                              selected = i;
                              return absl::OkStatus();
                            }
                            XLITE_ASSIGN_OR_RETURN(bool keep, selector.Select(selected, i));
                            if (!keep) selected = i;
                            return absl::OkStatus();
                          }));
                      if (selected < 0) return absl::OkStatus();  // the window saw only padding
                      scatter->Load({&output_view, 1}, selected);
                      XLITE_RETURN_IF_ERROR(scatter->Fold(source_linear, 0, 1));
                      scatter->Store({&output_ptr, 1}, selected);
                      return absl::OkStatus();
                    }));
  return output;
}

}  // namespace

void RegisterReduceWindowOps(OpHandlerTable& table) {
  table.Register(HloOpcode::kReduceWindow, ReduceWindow);
  table.Register(HloOpcode::kSelectAndScatter, SelectAndScatter);
}

}  // namespace xlite::eval
