// Pad and slice on split dims by halo exchange, as XLA's partitioner does:
// each device needs the input window of its result tile, which reaches at
// most one neighbour tile to each side, so it receives those edges with two
// collective-permutes, cuts its window out with a dynamic-slice at a
// per-partition offset, and (pad) masks what lies outside the input with
// the padding value. Dims not split, interior padding, strided slices and
// windows that reach past a neighbour go through the rule-based handler
// (which gathers the dim).
#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/spmd/partition_util.h"
#include "xlite/spmd/partitioner_internal.h"

namespace xlite::spmd {
namespace {

// Where the window of result position r starts in the input along one dim:
// r + offset.
struct DimWindow {
  int64_t dim = 0;
  int64_t offset = 0;  // pad: -low; slice: start
  int64_t input = 0;   // input dim size
  int64_t result = 0;  // result dim size
};

// The dims `inst` reshapes that `target` splits, with their windows; nullopt
// when a split dim needs more than a window (interior padding, a stride).
std::optional<std::vector<DimWindow>> SplitWindows(const HloInstruction& inst,
                                                   const HloSharding& target) {
  std::vector<DimWindow> windows;
  const Shape& in = inst.operand(0)->shape();
  for (int64_t d = 0; d < inst.shape().rank(); ++d) {
    if (TilesAlong(target, d) <= 1) continue;
    DimWindow w{d, 0, in.dimensions(d), inst.shape().dimensions(d)};
    if (inst.opcode() == HloOpcode::kPad) {
      const PaddingDimension& p = inst.attrs<PadAttrs>().padding[d];
      if (p.interior != 0) return std::nullopt;
      w.offset = -p.low;
    } else {
      const SliceAttrs& a = inst.attrs<SliceAttrs>();
      if (a.strides[d] != 1) return std::nullopt;
      w.offset = a.starts[d];
    }
    if (w.offset == 0 && w.input == w.result) continue;  // untouched
    windows.push_back(w);
  }
  return windows;
}

struct Halo {
  int64_t left = 0, right = 0;        // elements taken from each neighbour
  int64_t pad_low = 0, pad_high = 0;  // filler so every window lies inside
  std::vector<int64_t> starts;        // per partition, in the extended array
};

// The halo of one dim, or nullopt when a window reaches past a neighbour.
std::optional<Halo> PlanHalo(const DimWindow& w, const HloSharding& target, int64_t partitions) {
  const int64_t tiles = TilesAlong(target, w.dim);
  const int64_t k = (w.input + tiles - 1) / tiles;   // input tile
  const int64_t m = (w.result + tiles - 1) / tiles;  // result tile
  Halo h;
  std::vector<int64_t> window_of_tile(tiles);
  for (int64_t i = 0; i < tiles; ++i) {
    const int64_t begin = i * m + w.offset;
    window_of_tile[i] = begin;
    // The real input the window covers, from this tile's point of view.
    const int64_t lo = std::max<int64_t>(begin, 0), hi = std::min(begin + m, w.input);
    if (lo >= hi) continue;
    h.left = std::max(h.left, i * k - lo);
    h.right = std::max(h.right, hi - (i * k + k));
  }
  if (h.left > k || h.right > k) return std::nullopt;
  for (int64_t i = 0; i < tiles; ++i) {
    const int64_t ext_begin = i * k - h.left;
    h.pad_low = std::max(h.pad_low, ext_begin - window_of_tile[i]);
    h.pad_high = std::max(h.pad_high, window_of_tile[i] + m - (i * k + k + h.right));
  }
  h.starts.resize(partitions);
  for (int64_t p = 0; p < partitions; ++p) {
    const std::vector<int64_t> index = TileIndexOf(target, p);
    const int64_t i = index.empty() ? 0 : index[w.dim];
    h.starts[p] = window_of_tile[i] - (i * k - h.left) + h.pad_low;
  }
  return h;
}

HloInstruction* SliceDim(PartitionState& s, HloInstruction* x, int64_t dim, int64_t begin,
                         int64_t end) {
  const Shape& shape = x->shape();
  auto attrs = std::make_unique<SliceAttrs>();
  for (int64_t d = 0; d < shape.rank(); ++d) {
    attrs->starts.push_back(d == dim ? begin : 0);
    attrs->limits.push_back(d == dim ? end : shape.dimensions(d));
    attrs->strides.push_back(1);
  }
  Shape out = shape;
  out.set_dimension(dim, end - begin);
  return s.b().maker().Add(s.c(), HloOpcode::kSlice, out, {x}, std::move(attrs));
}

// The local result tile of one dim: the edges of both neighbours joined to
// the local tile, filler around, the window cut at this partition's start.
HloInstruction* ExchangeAndCut(PartitionState& s, const HloInstruction& inst,
                               const HloSharding& target, HloInstruction* local, const DimWindow& w,
                               const Halo& h, const Cause& cause) {
  PartitionBuilder& b = s.b();
  const int64_t d = w.dim;
  const int64_t k = local->shape().dimensions(d);
  std::vector<std::pair<int64_t, int64_t>> to_next, to_previous;
  for (const std::vector<int64_t>& group : GroupsAlong(target, {d}, s.num_partitions())) {
    for (size_t j = 0; j + 1 < group.size(); ++j) {
      to_next.push_back({group[j], group[j + 1]});
      to_previous.push_back({group[j + 1], group[j]});
    }
  }
  std::vector<HloInstruction*> parts;
  if (h.left > 0) {
    parts.push_back(
        b.CollectivePermute(s.c(), SliceDim(s, local, d, k - h.left, k), to_next, cause));
  }
  parts.push_back(local);
  if (h.right > 0) {
    parts.push_back(
        b.CollectivePermute(s.c(), SliceDim(s, local, d, 0, h.right), to_previous, cause));
  }
  HloInstruction* joined = local;
  if (parts.size() > 1) {
    Shape shape = local->shape();
    shape.set_dimension(d, k + h.left + h.right);
    joined = b.maker().Add(s.c(), HloOpcode::kConcatenate, shape, parts);
    joined->set_dimensions({d});
  }
  if (h.pad_low > 0 || h.pad_high > 0) {
    PaddingConfig padding(joined->shape().rank());
    padding[d] = {h.pad_low, h.pad_high, 0};
    Shape shape = joined->shape();
    shape.set_dimension(d, shape.dimensions(d) + h.pad_low + h.pad_high);
    auto attrs = std::make_unique<PadAttrs>();
    attrs->padding = padding;
    HloInstruction* zero = b.maker().ScalarConstant(s.c(), shape.element_type(), 0);
    joined = b.maker().Add(s.c(), HloOpcode::kPad, shape, {joined, zero}, std::move(attrs));
  }
  std::vector<HloInstruction*> starts;
  std::vector<int64_t> sizes(joined->shape().dimensions().begin(),
                             joined->shape().dimensions().end());
  sizes[d] = ShardShape(inst.shape(), target).dimensions(d);
  for (int64_t e = 0; e < joined->shape().rank(); ++e) {
    starts.push_back(e == d ? b.Offset(s.c(), h.starts)
                            : b.Offset(s.c(), std::vector<int64_t>(s.num_partitions(), 0)));
  }
  return b.DynamicSlice(s.c(), joined, starts, sizes);
}

}  // namespace

std::optional<absl::StatusOr<PValue>> PartitionPadOrSliceByHalo(const HloInstruction& inst,
                                                                PartitionState& s) {
  const HloSharding target = ForPartitioning(s.TargetOf(inst));
  if (!IsSplit(target) || !inst.shape().IsArray()) return std::nullopt;
  std::optional<std::vector<DimWindow>> windows = SplitWindows(inst, target);
  if (!windows || windows->empty()) return std::nullopt;
  std::vector<Halo> halos;
  for (const DimWindow& w : *windows) {
    std::optional<Halo> h = PlanHalo(w, target, s.num_partitions());
    if (!h) return std::nullopt;
    halos.push_back(*std::move(h));
  }
  // The operand split as the result is (same rank, same tile array).
  absl::StatusOr<HloInstruction*> operand = s.OperandAs(inst, 0, target, "halo exchange");
  if (!operand.ok()) return absl::StatusOr<PValue>(operand.status());
  std::vector<HloInstruction*> operands = {*operand};
  if (inst.opcode() == HloOpcode::kPad) {
    absl::StatusOr<HloInstruction*> value =
        s.OperandAs(inst, 1, HloSharding::Replicated(), "padding value");
    if (!value.ok()) return absl::StatusOr<PValue>(value.status());
    operands.push_back(*value);
  }
  const PValue& before = s.Value(inst.operand(0));
  Cause cause{inst.operand(0), before.sharding, &inst, target, "halo exchange"};
  for (size_t j = 0; j < windows->size(); ++j) {
    operands[0] = ExchangeAndCut(s, inst, target, operands[0], (*windows)[j], halos[j], cause);
  }
  // The dims left whole keep the op's own padding or slicing, done locally;
  // every split dim (exchanged, or untouched and split as the operand is)
  // is already the local tile.
  HloInstruction* rest = s.Clone(inst, operands, ShardShape(inst.shape(), target));
  for (int64_t d = 0; d < inst.shape().rank(); ++d) {
    if (TilesAlong(target, d) <= 1) continue;
    if (inst.opcode() == HloOpcode::kPad) {
      rest->mutable_attrs<PadAttrs>()->padding[d] = PaddingDimension{};
    } else {
      SliceAttrs* a = rest->mutable_attrs<SliceAttrs>();
      a->starts[d] = 0;
      a->limits[d] = operands[0]->shape().dimensions(d);
    }
  }
  if (inst.opcode() == HloOpcode::kPad) {
    // Positions whose input index lies outside the input take the padding value.
    for (const DimWindow& w : *windows) {
      std::vector<int64_t> begin(s.num_partitions());
      const int64_t m = rest->shape().dimensions(w.dim);
      for (int64_t p = 0; p < s.num_partitions(); ++p) {
        const std::vector<int64_t> index = TileIndexOf(target, p);
        begin[p] = (index.empty() ? 0 : index[w.dim]) * m + w.offset;
      }
      rest = s.b().MaskOutside(s.c(), rest, w.dim, s.b().Offset(s.c(), begin), 0, w.input,
                               operands[1]);
    }
  }
  return absl::StatusOr<PValue>(PValue{rest, target, inst.shape()});
}

}  // namespace xlite::spmd
