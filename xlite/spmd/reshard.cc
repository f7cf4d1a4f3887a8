#include "xlite/spmd/reshard.h"

#include <algorithm>
#include <optional>

#include "xlite/ir/sharding_transforms.h"
#include "xlite/spmd/partition_util.h"

namespace xlite::spmd {
namespace {

bool Tiled(const HloSharding& s, const Shape& global) {
  return s.IsTiled() && s.TiledDataRank() == global.rank();
}

// Along `dim`, the real elements of `device`'s tile under `to` lie inside
// its tile under `from`.
bool DimFits(const HloSharding& from, const HloSharding& to, const Shape& global, int64_t dim,
             int64_t device) {
  const int64_t size = global.dimensions(dim);
  const TileRange f = TileRangeOf(from, global, dim, device);
  const TileRange t = TileRangeOf(to, global, dim, device);
  const int64_t t_end = std::min(t.start + t.size, size);
  if (t.start >= t_end) return true;  // an empty tile needs no data
  return f.start <= t.start && t_end <= std::min(f.start + f.size, size);
}

bool DimFitsAll(const HloSharding& from, const HloSharding& to, const Shape& global, int64_t dim,
                int64_t num_devices) {
  for (int64_t p = 0; p < num_devices; ++p) {
    if (!DimFits(from, to, global, dim, p)) return false;
  }
  return true;
}

int64_t LocalBytes(const Shape& global, const HloSharding& s) {
  return ShardShape(global, s).ByteSizeOf();
}

std::vector<int64_t> DataIndex(const HloSharding& s, int64_t device, int64_t rank) {
  std::vector<int64_t> index = TileIndexOf(s, device);
  index.resize(static_cast<size_t>(rank), 0);
  return index;
}

// The dims (a, b) when `to` is `from` with the split of dim a moved to dim
// b, device by device (one all-to-all).
std::optional<std::pair<int64_t, int64_t>> FindAllToAll(const HloSharding& from,
                                                        const HloSharding& to, const Shape& global,
                                                        int64_t num_devices) {
  if (!Tiled(from, global) || !Tiled(to, global) || global.rank() < 2) return std::nullopt;
  if (from.IsManualSubgroup() || to.IsManualSubgroup() ||
      from.ReplicationFactor() != to.ReplicationFactor()) {
    return std::nullopt;
  }
  std::vector<int64_t> tf = from.DataTileDims(), tt = to.DataTileDims();
  int64_t a = -1, b = -1;
  for (int64_t d = 0; d < global.rank(); ++d) {
    if (tf[d] == tt[d]) continue;
    if (tf[d] > 1 && tt[d] == 1 && a < 0) {
      a = d;
    } else if (tf[d] == 1 && tt[d] > 1 && b < 0) {
      b = d;
    } else {
      return std::nullopt;
    }
  }
  if (a < 0 || b < 0 || tf[a] != tt[b]) return std::nullopt;
  for (int64_t p = 0; p < num_devices; ++p) {
    std::vector<int64_t> fi = DataIndex(from, p, global.rank());
    std::vector<int64_t> ti = DataIndex(to, p, global.rank());
    std::swap(fi[a], fi[b]);
    if (fi != ti) return std::nullopt;
  }
  // The group along a (devices sharing every other tile index) must hold
  // one device per tile of a.
  for (const std::vector<int64_t>& group : GroupsAlong(from, {a}, num_devices)) {
    if (static_cast<int64_t>(group.size()) != tf[a]) return std::nullopt;
  }
  return std::make_pair(a, b);
}

// Source -> target pairs when `to` has `from`'s tiles on other devices.
std::optional<std::vector<std::pair<int64_t, int64_t>>> FindPermute(const HloSharding& from,
                                                                    const HloSharding& to,
                                                                    const Shape& global,
                                                                    int64_t num_devices) {
  if (!Tiled(from, global) || !Tiled(to, global)) return std::nullopt;
  if (from.IsManualSubgroup() || to.IsManualSubgroup() ||
      from.DataTileDims() != to.DataTileDims()) {
    return std::nullopt;
  }
  const int64_t rank = global.rank();
  std::vector<std::vector<int64_t>> held(num_devices);
  for (int64_t q = 0; q < num_devices; ++q) held[q] = DataIndex(from, q, rank);
  std::vector<bool> used(num_devices, false);
  std::vector<std::pair<int64_t, int64_t>> pairs;
  bool moves = false;
  for (int64_t p = 0; p < num_devices; ++p) {
    std::vector<int64_t> needed = DataIndex(to, p, rank);
    int64_t source = -1;
    if (held[p] == needed && !used[p]) source = p;
    for (int64_t q = 0; source < 0 && q < num_devices; ++q) {
      if (!used[q] && held[q] == needed) source = q;
    }
    if (source < 0) return std::nullopt;
    used[source] = true;
    moves = moves || source != p;
    pairs.push_back({source, p});
  }
  if (!moves) return std::nullopt;
  return pairs;
}

ReshardStep SliceStep(const HloSharding& to) {
  ReshardStep step;
  step.kind = ReshardStep::Kind::kSlice;
  step.result = to;
  return step;
}

}  // namespace

bool CanSliceLocally(const HloSharding& from, const HloSharding& to, const Shape& global,
                     int64_t num_devices) {
  for (int64_t d = 0; d < global.rank(); ++d) {
    if (!DimFitsAll(from, to, global, d, num_devices)) return false;
  }
  return true;
}

std::vector<ReshardStep> PlanReshard(const HloSharding& from, const HloSharding& to,
                                     const Shape& global, int64_t num_devices) {
  std::vector<ReshardStep> plan;
  if (from == to || !global.IsArray()) return plan;
  if (CanSliceLocally(from, to, global, num_devices)) {
    plan.push_back(SliceStep(to));
    return plan;
  }
  if (auto dims = FindAllToAll(from, to, global, num_devices)) {
    ReshardStep step;
    step.kind = ReshardStep::Kind::kAllToAll;
    step.dim = dims->first;
    step.to_dim = dims->second;
    step.result = to;
    step.bytes = LocalBytes(global, from);
    plan.push_back(step);
    return plan;
  }
  if (auto pairs = FindPermute(from, to, global, num_devices)) {
    ReshardStep step;
    step.kind = ReshardStep::Kind::kPermute;
    step.pairs = *pairs;
    step.result = to;
    step.bytes = LocalBytes(global, from);
    plan.push_back(step);
    return plan;
  }
  HloSharding current = from;
  auto gather = [&](int64_t d) {
    ReshardStep step;
    step.kind = ReshardStep::Kind::kAllGather;
    step.dim = d;
    step.result = ForPartitioning(PartiallyReplicateDims(current, {d}));
    step.bytes = LocalBytes(global, step.result);
    plan.push_back(step);
    current = step.result;
  };
  // First the dims whose split does not serve the target.
  for (int64_t d = 0; d < global.rank(); ++d) {
    if (Tiled(current, global) && TilesAlong(current, d) > 1 &&
        !DimFitsAll(current, to, global, d, num_devices)) {
      gather(d);
    }
  }
  if (current == to) return plan;
  if (CanSliceLocally(current, to, global, num_devices)) {
    plan.push_back(SliceStep(to));
    return plan;
  }
  // Then everything (a replicated value slices to anything).
  for (int64_t d = 0; d < global.rank(); ++d) {
    if (Tiled(current, global) && TilesAlong(current, d) > 1) gather(d);
  }
  if (!(current == to)) plan.push_back(SliceStep(to));
  return plan;
}

int64_t PlanBytes(const std::vector<ReshardStep>& plan) {
  int64_t bytes = 0;
  for (const ReshardStep& step : plan) bytes += step.bytes;
  return bytes;
}

namespace {

HloInstruction* EmitSlice(PartitionBuilder& b, HloComputation& c, HloInstruction* local,
                          const HloSharding& from, const HloSharding& to, const Shape& global) {
  const int64_t n = b.num_partitions();
  const int64_t rank = global.rank();
  std::vector<std::vector<int64_t>> offsets(rank, std::vector<int64_t>(n, 0));
  std::vector<int64_t> high(rank, 0), sizes(rank, 0);
  bool any_offset = false;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t local_size = local->shape().dimensions(d);
    int64_t needed = 0;
    for (int64_t p = 0; p < n; ++p) {
      const TileRange f = TileRangeOf(from, global, d, p);
      const TileRange t = TileRangeOf(to, global, d, p);
      sizes[d] = t.size;
      const bool empty = t.start >= global.dimensions(d);
      offsets[d][p] = empty ? 0 : t.start - f.start;
      any_offset = any_offset || offsets[d][p] != 0;
      needed = std::max(needed, offsets[d][p] + t.size);
    }
    high[d] = std::max<int64_t>(0, needed - local_size);
  }
  HloInstruction* padded = b.PadHigh(c, local, high);
  if (!any_offset) return b.SliceTo(c, padded, sizes);
  std::vector<HloInstruction*> starts;
  for (int64_t d = 0; d < rank; ++d) starts.push_back(b.Offset(c, offsets[d]));
  return b.DynamicSlice(c, padded, starts, sizes);
}

HloInstruction* EmitAllToAll(PartitionBuilder& b, HloComputation& c, HloInstruction* local,
                             const HloSharding& from, const ReshardStep& step, const Shape& global,
                             const Cause& cause) {
  const int64_t a = step.dim, bd = step.to_dim;
  const int64_t rank = global.rank();
  const int64_t k = TilesAlong(from, a);
  const int64_t a_tile = local->shape().dimensions(a);
  const int64_t b_full = global.dimensions(bd);
  const int64_t b_tile = (b_full + k - 1) / k;
  InstructionMaker& m = b.maker();
  // Pad b to k whole tiles and split it into [k, b_tile].
  std::vector<int64_t> high(rank, 0);
  high[bd] = k * b_tile - local->shape().dimensions(bd);
  HloInstruction* x = b.PadHigh(c, local, high);
  std::vector<int64_t> split;
  auto pos = [&](int64_t d) { return d < bd ? d : d + 1; };  // original dim -> split position
  for (int64_t d = 0; d < rank; ++d) {
    if (d == bd) split.push_back(k);
    split.push_back(d == bd ? b_tile : x->shape().dimensions(d));
  }
  Shape split_shape = x->shape();
  split_shape.set_dimensions(split);
  split_shape.clear_layout();  // one more dim than the layout describes
  x = m.Reshape(c, x, split_shape);
  x = b.AllToAll(c, x, bd, GroupsAlong(from, {a}, b.num_partitions()), cause);
  // The k dim now counts a's tiles: move it before a and merge.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == a) perm.push_back(bd);
    perm.push_back(pos(d));
  }
  Shape transposed = x->shape();
  std::vector<int64_t> tdims;
  for (int64_t p : perm) tdims.push_back(x->shape().dimensions(p));
  transposed.set_dimensions(tdims);
  transposed.clear_layout();
  HloInstruction* t = m.Add(c, HloOpcode::kTranspose, transposed, {x});
  t->set_dimensions(perm);
  std::vector<int64_t> merged;
  for (int64_t d = 0; d < rank; ++d) {
    merged.push_back(d == a ? k * a_tile : (d == bd ? b_tile : local->shape().dimensions(d)));
  }
  Shape merged_shape = local->shape();
  merged_shape.set_dimensions(merged);
  HloInstruction* out = m.Reshape(c, t, merged_shape);
  merged[a] = global.dimensions(a);
  return b.SliceTo(c, out, merged);
}

}  // namespace

HloInstruction* EmitReshard(PartitionBuilder& b, HloComputation& c, HloInstruction* local,
                            const HloSharding& from, const std::vector<ReshardStep>& plan,
                            const Shape& global, const Cause& cause) {
  HloSharding current = from;
  for (const ReshardStep& step : plan) {
    switch (step.kind) {
      case ReshardStep::Kind::kSlice:
        local = EmitSlice(b, c, local, current, step.result, global);
        break;
      case ReshardStep::Kind::kAllGather: {
        local = b.AllGather(c, local, step.dim,
                            GroupsAlong(current, {step.dim}, b.num_partitions()), cause);
        std::vector<int64_t> sizes(local->shape().dimensions().begin(),
                                   local->shape().dimensions().end());
        sizes[step.dim] = global.dimensions(step.dim);
        local = b.SliceTo(c, local, sizes);
        break;
      }
      case ReshardStep::Kind::kAllToAll:
        local = EmitAllToAll(b, c, local, current, step, global, cause);
        break;
      case ReshardStep::Kind::kPermute:
        local = b.CollectivePermute(c, local, step.pairs, cause);
        break;
    }
    current = step.result;
  }
  return local;
}

}  // namespace xlite::spmd
