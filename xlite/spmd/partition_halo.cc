// Halo exchange (partition_halo.h) and, on it, pad and slice on split dims:
// each device cuts the input window of its result tile out of its tile and
// its neighbours' edges, runs the op's other dims locally and (pad) masks
// what lies outside the input with the padding value. Interior padding goes
// through the rule-based handler (which gathers the dim).
#include "xlite/spmd/partition_halo.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/spmd/partition_util.h"

namespace xlite::spmd {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t TileAlong(const HloSharding& sharding, int64_t dim, int64_t device) {
  const std::vector<int64_t> index = TileIndexOf(sharding, device);
  return index.empty() ? 0 : index[dim];
}

// How the window of every tile is cut from the extended tile: `left` and
// `right` elements from the neighbours, filler around so every window of a
// tile with real results lies inside, and the per-partition start of the
// window in the padded array.
struct Halo {
  int64_t left = 0, right = 0;
  int64_t pad_low = 0, pad_high = 0;
  std::vector<int64_t> starts;
};

Halo PlanHalo(const DimWindow& w, const HloSharding& sharding, int64_t partitions) {
  const int64_t k = w.input_tile;
  const int64_t tiles = static_cast<int64_t>(w.begin.size());
  Halo h;
  for (int64_t i = 0; i < tiles; ++i) {
    const int64_t lo = std::max<int64_t>(w.reach[i].begin, 0);
    const int64_t hi = std::min(w.reach[i].end, w.input);
    if (lo >= hi) continue;
    h.left = std::max(h.left, i * k - lo);
    h.right = std::max(h.right, hi - (i * k + k));
  }
  for (int64_t i = 0; i < tiles; ++i) {
    if (w.reach[i].begin >= w.reach[i].end) continue;
    h.pad_low = std::max(h.pad_low, i * k - h.left - w.begin[i]);
    h.pad_high = std::max(h.pad_high, w.begin[i] + w.span - (i * k + k + h.right));
  }
  h.starts.resize(partitions);
  for (int64_t p = 0; p < partitions; ++p) {
    const int64_t i = TileAlong(sharding, w.dim, p);
    h.starts[p] = w.begin[i] - (i * k - h.left) + h.pad_low;
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

}  // namespace

DimWindow StridedWindow(int64_t dim, int64_t tiles, int64_t input, int64_t result, int64_t stride,
                        int64_t offset, int64_t extent) {
  DimWindow w;
  w.dim = dim;
  w.input = input;
  w.input_tile = CeilDiv(input, tiles);
  const int64_t m = CeilDiv(result, tiles);
  w.span = m == 0 ? 0 : (m - 1) * stride + extent;
  for (int64_t t = 0; t < tiles; ++t) {
    const int64_t first = t * m, last = std::min(first + m, result) - 1;
    w.begin.push_back(first * stride + offset);
    w.reach.push_back(
        last < first ? Reach{} : Reach{first * stride + offset, last * stride + offset + extent});
  }
  return w;
}

std::vector<int64_t> WindowStarts(const DimWindow& w, const HloSharding& sharding,
                                  int64_t partitions) {
  std::vector<int64_t> starts(partitions);
  for (int64_t p = 0; p < partitions; ++p) starts[p] = w.begin[TileAlong(sharding, w.dim, p)];
  return starts;
}

HloInstruction* PadDim(PartitionState& s, HloInstruction* x, int64_t dim,
                       const PaddingDimension& padding, HloInstruction* value) {
  PaddingConfig config(x->shape().rank());
  config[dim] = padding;
  Shape shape = x->shape();
  const int64_t n = shape.dimensions(dim);
  shape.set_dimension(
      dim, padding.low + padding.high + n + std::max<int64_t>(n - 1, 0) * padding.interior);
  auto attrs = std::make_unique<PadAttrs>();
  attrs->padding = std::move(config);
  return s.b().maker().Add(s.c(), HloOpcode::kPad, shape, {x, value}, std::move(attrs));
}

HloInstruction* CutDim(PartitionState& s, HloInstruction* x, int64_t dim,
                       const std::vector<int64_t>& starts, int64_t size) {
  std::vector<int64_t> sizes(x->shape().dimensions().begin(), x->shape().dimensions().end());
  sizes[dim] = size;
  const std::vector<int64_t> zeros(s.num_partitions(), 0);
  std::vector<HloInstruction*> offsets;
  for (int64_t e = 0; e < x->shape().rank(); ++e) {
    offsets.push_back(s.b().Offset(s.c(), e == dim ? starts : zeros));
  }
  return s.b().DynamicSlice(s.c(), x, offsets, sizes);
}

bool IsTrivialWindow(const WindowDimension& w) {
  return w.size == 1 && w.stride == 1 && w.padding_low == 0 && w.padding_high == 0 &&
         w.base_dilation == 1 && w.window_dilation == 1 && !w.window_reversal;
}

bool WindowLeavesInput(const DimWindow& w) {
  for (const Reach& r : w.reach) {
    if (r.begin < r.end && (r.begin < 0 || r.end > w.input)) return true;
  }
  return false;
}

HloInstruction* ExchangeHalo(PartitionState& s, const HloSharding& sharding, HloInstruction* local,
                             const DimWindow& w, const Cause& cause) {
  PartitionBuilder& b = s.b();
  const int64_t d = w.dim;
  const int64_t k = local->shape().dimensions(d);
  const Halo h = PlanHalo(w, sharding, s.num_partitions());
  const DeviceGroups groups = GroupsAlong(sharding, {d}, s.num_partitions());
  // Device t of a group sends to t + hops (edges for the next tiles) or to
  // t - hops (edges for the previous tiles).
  auto pairs = [&](int64_t hops, bool forward) {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (const std::vector<int64_t>& group : groups) {
      for (size_t t = 0; t + hops < group.size(); ++t) {
        out.push_back(forward ? std::make_pair(group[t], group[t + hops])
                              : std::make_pair(group[t + hops], group[t]));
      }
    }
    return out;
  };
  // Hop j brings the tile j away: its last (first) min(k, rest) elements.
  std::vector<HloInstruction*> parts;
  for (int64_t j = 1; (j - 1) * k < h.left; ++j) {
    const int64_t n = std::min(k, h.left - (j - 1) * k);
    parts.insert(parts.begin(), b.CollectivePermute(s.c(), SliceDim(s, local, d, k - n, k),
                                                    pairs(j, true), cause));
  }
  parts.push_back(local);
  for (int64_t j = 1; (j - 1) * k < h.right; ++j) {
    const int64_t n = std::min(k, h.right - (j - 1) * k);
    parts.push_back(
        b.CollectivePermute(s.c(), SliceDim(s, local, d, 0, n), pairs(j, false), cause));
  }
  HloInstruction* joined = local;
  if (parts.size() > 1) {
    Shape shape = local->shape();
    shape.set_dimension(d, k + h.left + h.right);
    joined = b.maker().Add(s.c(), HloOpcode::kConcatenate, shape, parts);
    joined->set_dimensions({d});
  }
  if (h.pad_low > 0 || h.pad_high > 0) {
    HloInstruction* zero = b.maker().ScalarConstant(s.c(), joined->shape().element_type(), 0);
    joined = PadDim(s, joined, d, {h.pad_low, h.pad_high, 0}, zero);
  }
  return CutDim(s, joined, d, h.starts, w.span);
}

DimWindow WindowOfDim(const WindowedDim& dim, const HloSharding& sharding) {
  const WindowDimension& win = dim.window;
  const int64_t tiles = TilesAlong(sharding, dim.dim);
  const int64_t dilated = dim.input == 0 ? 0 : (dim.input - 1) * win.base_dilation + 1;
  DimWindow w = StridedWindow(dim.dim, tiles, dilated, dim.result, win.stride, -win.padding_low,
                              (win.size - 1) * win.window_dilation + 1);
  w.input_tile = CeilDiv(dim.input, tiles) * win.base_dilation;
  return w;
}

bool WindowedInputNeedsFill(const std::vector<WindowedDim>& dims, const HloSharding& sharding) {
  for (const WindowedDim& dim : dims) {
    if (dim.window.base_dilation > 1 || WindowLeavesInput(WindowOfDim(dim, sharding))) {
      return true;
    }
  }
  return false;
}

HloInstruction* WindowedInput(PartitionState& s, const HloSharding& sharding, HloInstruction* local,
                              const std::vector<WindowedDim>& dims, HloInstruction* fill,
                              const Cause& cause) {
  for (const WindowedDim& dim : dims) {
    const int64_t bd = dim.window.base_dilation;
    if (bd > 1) local = PadDim(s, local, dim.dim, {0, bd - 1, bd - 1}, fill);
    const DimWindow w = WindowOfDim(dim, sharding);
    local = ExchangeHalo(s, sharding, local, w, cause);
    if (WindowLeavesInput(w)) {
      HloInstruction* begin = s.b().Offset(s.c(), WindowStarts(w, sharding, s.num_partitions()));
      local = s.b().MaskOutside(s.c(), local, w.dim, begin, 0, w.input, fill);
    }
  }
  return local;
}

Window LocalWindow(Window window, const std::vector<WindowedDim>& dims) {
  for (const WindowedDim& dim : dims) {
    WindowDimension& w = window[dim.window_index];
    w.padding_low = w.padding_high = 0;
    w.base_dilation = 1;
  }
  return window;
}

namespace {

// The split dims `inst` pads or slices under `target`, as windows; nullopt
// when one has interior padding.
std::optional<std::vector<DimWindow>> PadOrSliceWindows(const HloInstruction& inst,
                                                        const HloSharding& target) {
  std::vector<DimWindow> windows;
  const Shape& in = inst.operand(0)->shape();
  for (int64_t d = 0; d < inst.shape().rank(); ++d) {
    const int64_t tiles = TilesAlong(target, d);
    if (tiles <= 1) continue;
    int64_t offset = 0, stride = 1;
    if (inst.opcode() == HloOpcode::kPad) {
      const PaddingDimension& p = inst.attrs<PadAttrs>().padding[d];
      if (p.interior != 0) return std::nullopt;
      offset = -p.low;
    } else {
      const SliceAttrs& a = inst.attrs<SliceAttrs>();
      offset = a.starts[d];
      stride = a.strides[d];
    }
    const int64_t result = inst.shape().dimensions(d);
    if (offset == 0 && stride == 1 && in.dimensions(d) == result) continue;  // untouched
    if (result == 0) return std::nullopt;
    windows.push_back(StridedWindow(d, tiles, in.dimensions(d), result, stride, offset, 1));
  }
  return windows;
}

}  // namespace

std::optional<absl::StatusOr<PValue>> PartitionPadOrSliceByHalo(const HloInstruction& inst,
                                                                PartitionState& s) {
  const HloSharding target = ForPartitioning(s.TargetOf(inst));
  if (!IsSplit(target) || !inst.shape().IsArray()) return std::nullopt;
  std::optional<std::vector<DimWindow>> windows = PadOrSliceWindows(inst, target);
  if (!windows || windows->empty()) return std::nullopt;
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
  for (const DimWindow& w : *windows) {
    operands[0] = ExchangeHalo(s, target, operands[0], w, cause);
  }
  // The dims left whole keep the op's own padding or slicing, done locally;
  // every split dim (exchanged, or untouched and split as the operand is)
  // is already the local tile; a strided slice keeps its stride on the cut
  // window.
  HloInstruction* rest = s.Clone(inst, operands, ShardShape(inst.shape(), target));
  for (int64_t d = 0; d < inst.shape().rank(); ++d) {
    if (TilesAlong(target, d) <= 1) continue;
    if (inst.opcode() == HloOpcode::kPad) {
      rest->mutable_attrs<PadAttrs>()->padding[d] = PaddingDimension{};
    } else {
      SliceAttrs* a = rest->mutable_attrs<SliceAttrs>();
      auto w = std::find_if(windows->begin(), windows->end(),
                            [&](const DimWindow& window) { return window.dim == d; });
      a->starts[d] = 0;
      a->limits[d] = w != windows->end() ? w->span : operands[0]->shape().dimensions(d);
    }
  }
  if (inst.opcode() == HloOpcode::kPad) {
    // Positions whose input index lies outside the input take the padding value.
    for (const DimWindow& w : *windows) {
      HloInstruction* begin = s.b().Offset(s.c(), WindowStarts(w, target, s.num_partitions()));
      rest = s.b().MaskOutside(s.c(), rest, w.dim, begin, 0, w.input, operands[1]);
    }
  }
  return absl::StatusOr<PValue>(PValue{rest, target, inst.shape()});
}

}  // namespace xlite::spmd
