// Windowed ops on split window dims by halo exchange (partition_halo.h):
// reduce-window and convolution cut each partition's input window (base
// dilation done locally, positions outside the input set to the reducer's
// identity or zero) and run the op locally without padding on those dims;
// select-and-scatter exchanges halos of the operand and the source, runs
// on the windows that touch the local tile and cuts the tile out of the
// result. What does not fit goes to the rule-based handler (which gathers
// the dim) and is recorded as a fallback with its reason.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "xlite/analysis/reduction_kind.h"
#include "xlite/base/strings.h"
#include "xlite/spmd/partition_halo.h"
#include "xlite/spmd/partition_util.h"

namespace xlite::spmd {
namespace {

using MaybeValue = std::optional<absl::StatusOr<PValue>>;

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

// The sharding every leaf of `inst`'s result has, or nullopt when they differ.
std::optional<HloSharding> CommonLeafSharding(const HloInstruction& inst, PartitionState& s) {
  const std::vector<HloSharding> leaves =
      LeafShardings(ForPartitioning(s.TargetOf(inst)), inst.shape());
  if (leaves.empty()) return std::nullopt;
  for (const HloSharding& leaf : leaves) {
    if (!(leaf == leaves.front())) return std::nullopt;
  }
  return leaves.front();
}

// The split dims of `inst` (operand 0 against `out`) whose window is not
// trivial; nullopt when one cannot be cut (an empty window or result).
std::optional<std::vector<WindowedDim>> SplitWindowDims(const HloInstruction& inst,
                                                        const Shape& out,
                                                        const HloSharding& sharding) {
  const Window& window = inst.attrs<WindowAttrs>().window;
  const Shape& in = inst.operand(0)->shape();
  if (!in.IsArray() || !out.IsArray() || in.rank() != out.rank()) return std::nullopt;
  std::vector<WindowedDim> dims;
  for (int64_t d = 0; d < in.rank() && d < static_cast<int64_t>(window.size()); ++d) {
    if (TilesAlong(sharding, d) <= 1 || IsTrivialWindow(window[d])) continue;
    if (window[d].size < 1 || out.dimensions(d) == 0 || window[d].window_reversal) {
      return std::nullopt;
    }
    dims.push_back({d, d, in.dimensions(d), out.dimensions(d), window[d]});
  }
  return dims;
}

// Declines the halo path with `reason`, recorded as a fallback.
MaybeValue Decline(const HloInstruction& inst, PartitionState& s, std::string reason) {
  s.b().Fallback(inst, Cat("halo exchange not supported yet: ", reason));
  return std::nullopt;
}

MaybeValue PartitionReduceWindowByHalo(const HloInstruction& inst, PartitionState& s) {
  const int64_t inputs = inst.operand_count() / 2;
  if (inputs == 0 || inst.operand_count() % 2 != 0) return std::nullopt;
  std::optional<HloSharding> sharding = CommonLeafSharding(inst, s);
  if (!sharding || !IsSplit(*sharding)) return std::nullopt;
  const Shape& out = inst.shape().IsTuple() ? inst.shape().tuple_shapes(0) : inst.shape();
  std::optional<std::vector<WindowedDim>> dims = SplitWindowDims(inst, out, *sharding);
  if (!dims || dims->empty()) return std::nullopt;
  // Padding and base-dilation holes take the reducer's identity: the local
  // window then reduces exactly the elements the global one does.
  std::optional<Literal> identity;
  if (WindowedInputNeedsFill(*dims, *sharding)) {
    std::optional<ReductionKind> kind;
    if (inst.to_apply() != nullptr) kind = MatchReductionKind(*inst.to_apply());
    if (kind && inputs == 1) identity = ReductionIdentity(*kind, out.element_type());
    if (!identity) {
      return Decline(inst, s, "a window that reads padding, with a reducer without an identity");
    }
  }
  const PValue& before = s.Value(inst.operand(0));
  Cause cause{inst.operand(0), before.sharding, &inst, *sharding, "halo exchange"};
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const bool init = i >= inputs;
    absl::StatusOr<HloInstruction*> local =
        s.OperandAs(inst, i, init ? HloSharding::Replicated() : *sharding,
                    init ? "init value" : "halo exchange");
    if (!local.ok()) return absl::StatusOr<PValue>(local.status());
    operands.push_back(*local);
  }
  for (int64_t i = 0; i < inputs; ++i) {
    // Without an identity nothing is filled (the windows stay inside the input).
    HloInstruction* fill =
        identity ? s.b().maker().Constant(s.c(), *identity) : operands[inputs + i];
    operands[i] = WindowedInput(s, *sharding, operands[i], *dims, fill, cause);
  }
  const HloSharding result = inst.shape().IsTuple()
                                 ? HloSharding::Tuple(std::vector<HloSharding>(inputs, *sharding))
                                 : *sharding;
  HloInstruction* local = s.Clone(inst, operands, ShardShape(inst.shape(), result));
  WindowAttrs* attrs = local->mutable_attrs<WindowAttrs>();
  attrs->window = LocalWindow(attrs->window, *dims);
  return absl::StatusOr<PValue>(PValue{local, result, inst.shape()});
}

// Select-and-scatter on one split dim: tile t (operand positions
// [t * k, t * k + k)) runs the same number of windows from the first that
// touches it; its reaches are the windows that touch it (the others
// scatter outside the tile, whatever they select).
struct ScatterPlan {
  DimWindow operand;         // the windows' operand positions
  DimWindow source;          // the windows' source values
  bool mask_source = false;  // a window past the source touches a tile
};

ScatterPlan PlanScatterDim(int64_t dim, int64_t tiles, int64_t input, int64_t windows,
                           const WindowDimension& win) {
  const int64_t k = CeilDiv(input, tiles), m = CeilDiv(windows, tiles);
  const int64_t extent = (win.size - 1) * win.window_dilation + 1, s = win.stride;
  // Windows o with o * s <= position <= o * s + extent - 1 for some
  // position of the tile: [first[t], last[t]].
  std::vector<int64_t> first(tiles), last(tiles);
  int64_t count = 1;
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t end = std::min(t * k + k, input);
    first[t] = std::max<int64_t>(0, CeilDiv(t * k - extent + 1, s));
    last[t] = std::min(windows - 1, FloorDiv(end - 1, s));
    if (t * k < end) count = std::max(count, last[t] - first[t] + 1);
  }
  ScatterPlan plan;
  plan.operand.dim = plan.source.dim = dim;
  plan.operand.input = input;
  plan.operand.input_tile = k;
  plan.operand.span = (count - 1) * s + extent;
  plan.source.input = windows;
  plan.source.input_tile = m;
  plan.source.span = count;
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t lo = first[t], end = std::min(t * k + k, input);
    plan.operand.begin.push_back(lo * s);
    plan.source.begin.push_back(lo);
    if (t * k >= end) {
      plan.operand.reach.push_back({});
      plan.source.reach.push_back({});
      continue;
    }
    // A tile no window touches still needs its windows aligned (one
    // element of reach keeps the cut unclamped).
    const int64_t hi = std::max(last[t], lo);
    plan.operand.reach.push_back({lo * s, hi * s + (last[t] >= lo ? extent : 1)});
    plan.source.reach.push_back({lo, hi + 1});
    const int64_t past = std::max(lo, windows);
    if (past < lo + count && past * s < end) plan.mask_source = true;
  }
  return plan;
}

// The local tile [t * k, t * k + k) of a result that covers the operand
// positions [begin[t], begin[t] + span) along plan.operand.dim, positions
// past it taken as `init` (no local window reaches them).
HloInstruction* CutTile(PartitionState& s, const HloSharding& sharding, HloInstruction* result,
                        const ScatterPlan& plan, HloInstruction* init) {
  const DimWindow& w = plan.operand;
  const int64_t k = w.input_tile, tiles = static_cast<int64_t>(w.begin.size());
  int64_t low = 0, high = 0;
  for (int64_t t = 0; t < tiles; ++t) {
    if (w.reach[t].begin >= w.reach[t].end) continue;
    low = std::max(low, w.begin[t] - t * k);
    high = std::max(high, t * k + k - (w.begin[t] + w.span));
  }
  if (low > 0 || high > 0) result = PadDim(s, result, w.dim, {low, high, 0}, init);
  const std::vector<int64_t> begins = WindowStarts(w, sharding, s.num_partitions());
  std::vector<int64_t> at(s.num_partitions());
  for (int64_t p = 0; p < s.num_partitions(); ++p) {
    at[p] = TileIndexOf(sharding, p)[w.dim] * k - begins[p] + low;
  }
  return CutDim(s, result, w.dim, at, k);
}

MaybeValue PartitionSelectAndScatterByHalo(const HloInstruction& inst, PartitionState& s) {
  const HloSharding sharding = ForPartitioning(s.TargetOf(inst));
  if (!IsSplit(sharding) || !inst.shape().IsArray() || inst.operand_count() != 3) {
    return std::nullopt;
  }
  const Shape& source_shape = inst.operand(1)->shape();
  std::optional<std::vector<WindowedDim>> dims = SplitWindowDims(inst, source_shape, sharding);
  if (!dims || dims->empty()) return std::nullopt;
  std::vector<ScatterPlan> plans;
  bool mask_source = false;
  for (const WindowedDim& dim : *dims) {
    const WindowDimension& w = dim.window;
    if (w.padding_low != 0 || w.padding_high != 0 || w.base_dilation != 1) {
      return Decline(inst, s, "select-and-scatter with padding or base dilation on a split dim");
    }
    plans.push_back(
        PlanScatterDim(dim.dim, TilesAlong(sharding, dim.dim), dim.input, dim.result, w));
    mask_source = mask_source || plans.back().mask_source;
  }
  // Windows past the source scatter the scatter op's identity.
  std::optional<Literal> identity;
  if (mask_source) {
    std::optional<ReductionKind> kind;
    if (inst.called_computations().size() == 2) {
      kind = MatchReductionKind(*inst.called_computations()[1]);
    }
    if (kind) identity = ReductionIdentity(*kind, source_shape.element_type());
    if (!identity) {
      return Decline(inst, s, "windows past the source, with a scatter without an identity");
    }
  }
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < 3; ++i) {
    absl::StatusOr<HloInstruction*> local =
        s.OperandAs(inst, i, i == 2 ? HloSharding::Replicated() : sharding,
                    i == 2 ? "init value" : "halo exchange");
    if (!local.ok()) return absl::StatusOr<PValue>(local.status());
    operands.push_back(*local);
  }
  for (int64_t i = 0; i < 2; ++i) {
    const PValue& before = s.Value(inst.operand(i));
    Cause cause{inst.operand(i), before.sharding, &inst, sharding, "halo exchange"};
    for (const ScatterPlan& plan : plans) {
      const DimWindow& w = i == 0 ? plan.operand : plan.source;
      operands[i] = ExchangeHalo(s, sharding, operands[i], w, cause);
      if (i == 1 && identity) {
        HloInstruction* begin = s.b().Offset(s.c(), WindowStarts(w, sharding, s.num_partitions()));
        operands[i] = s.b().MaskOutside(s.c(), operands[i], w.dim, begin, 0, w.input,
                                        s.b().maker().Constant(s.c(), *identity));
      }
    }
  }
  HloInstruction* result = s.Clone(inst, operands, operands[0]->shape());
  for (const ScatterPlan& plan : plans) result = CutTile(s, sharding, result, plan, operands[2]);
  return absl::StatusOr<PValue>(PValue{result, sharding, inst.shape()});
}

}  // namespace

HloInstruction* ConvolutionInputByHalo(PartitionState& s, const HloInstruction& conv,
                                       const HloSharding& sharding, HloInstruction* local,
                                       Window& window) {
  const ConvDimensions& dn = conv.attrs<ConvolutionAttrs>().dims;
  const Shape& lhs = conv.operand(0)->shape();
  std::vector<WindowedDim> dims;
  for (size_t i = 0; i < dn.input_spatial.size() && i < window.size(); ++i) {
    const int64_t d = dn.input_spatial[i];
    if (TilesAlong(sharding, d) <= 1) continue;
    dims.push_back({d, static_cast<int64_t>(i), lhs.dimensions(d),
                    conv.shape().dimensions(dn.output_spatial[i]), window[i]});
  }
  if (dims.empty()) return local;
  const PValue& before = s.Value(conv.operand(0));
  Cause cause{conv.operand(0), before.sharding, &conv, sharding, "halo exchange"};
  HloInstruction* zero = s.b().maker().ScalarConstant(s.c(), lhs.element_type(), 0);
  window = LocalWindow(window, dims);
  return WindowedInput(s, sharding, local, dims, zero, cause);
}

MaybeValue PartitionByHalo(const HloInstruction& inst, PartitionState& s) {
  switch (inst.opcode()) {
    case HloOpcode::kPad:
    case HloOpcode::kSlice:
      return PartitionPadOrSliceByHalo(inst, s);
    case HloOpcode::kReduceWindow:
      return PartitionReduceWindowByHalo(inst, s);
    case HloOpcode::kSelectAndScatter:
      return PartitionSelectAndScatterByHalo(inst, s);
    default:
      return std::nullopt;
  }
}

}  // namespace xlite::spmd
