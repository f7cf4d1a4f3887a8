#include "xlite/spmd/partition_util.h"

#include <algorithm>
#include <map>

#include "xlite/ir/sharding_transforms.h"

namespace xlite::spmd {

HloSharding ForPartitioning(const HloSharding& sharding) {
  if (sharding.IsTuple()) {
    std::vector<HloSharding> elements;
    for (const HloSharding& e : sharding.tuple_elements()) elements.push_back(ForPartitioning(e));
    return HloSharding::Tuple(std::move(elements));
  }
  switch (sharding.kind()) {
    case HloSharding::Kind::kMaximal:
    case HloSharding::Kind::kUnknown:
    case HloSharding::Kind::kReplicated:
      return HloSharding::Replicated();
    default:
      break;
  }
  HloSharding normal = sharding.Normalized();
  if (normal.IsTiled() && normal.IsReplicated()) return HloSharding::Replicated();
  return normal;
}

bool IsSplit(const HloSharding& sharding) { return sharding.IsTiled() && sharding.NumTiles() > 1; }

int64_t TilesAlong(const HloSharding& sharding, int64_t dim) {
  if (!sharding.IsTiled()) return 1;
  std::vector<int64_t> tiles = sharding.DataTileDims();
  return dim < static_cast<int64_t>(tiles.size()) ? tiles[dim] : 1;
}

Shape ShardShape(const Shape& global, const HloSharding& sharding) {
  if (global.IsTuple()) {
    std::vector<HloSharding> leaves = LeafShardings(sharding, global);
    std::vector<Shape> elements;
    size_t next = 0;
    for (const Shape& element : global.tuple_shapes()) {
      const int64_t count = element.LeafCount();
      std::vector<HloSharding> sub(leaves.begin() + next, leaves.begin() + next + count);
      next += count;
      elements.push_back(ShardShape(
          element, element.IsTuple() ? HloSharding::Tuple(std::move(sub)) : sub.front()));
    }
    return Shape::Tuple(std::move(elements));
  }
  if (!global.IsArray() || !sharding.IsTiled() || sharding.TiledDataRank() != global.rank()) {
    return global;
  }
  Shape shard = global;
  std::vector<int64_t> tile = sharding.TileShape(global);
  for (int64_t d = 0; d < global.rank(); ++d) shard.set_dimension(d, tile[d]);
  return shard;
}

std::vector<HloSharding> LeafShardings(const HloSharding& sharding, const Shape& shape) {
  const int64_t leaves = shape.LeafCount();
  if (sharding.IsTuple() && static_cast<int64_t>(sharding.tuple_elements().size()) == leaves) {
    return sharding.tuple_elements();
  }
  if (sharding.IsTuple()) return std::vector<HloSharding>(leaves, HloSharding::Replicated());
  return std::vector<HloSharding>(leaves, sharding);
}

HloSharding ElementSharding(const HloSharding& sharding, const Shape& shape, int64_t index) {
  std::vector<HloSharding> leaves = LeafShardings(sharding, shape);
  int64_t first = 0;
  for (int64_t i = 0; i < index; ++i) first += shape.tuple_shapes(i).LeafCount();
  const Shape& element = shape.tuple_shapes(index);
  if (!element.IsTuple()) return leaves[first];
  return HloSharding::Tuple(std::vector<HloSharding>(leaves.begin() + first,
                                                     leaves.begin() + first + element.LeafCount()));
}

HloSharding TupleShardingOf(const std::vector<HloSharding>& elements,
                            const std::vector<Shape>& element_shapes) {
  std::vector<HloSharding> leaves;
  for (size_t i = 0; i < elements.size(); ++i) {
    for (HloSharding& leaf : LeafShardings(elements[i], element_shapes[i])) {
      leaves.push_back(std::move(leaf));
    }
  }
  return HloSharding::Tuple(std::move(leaves));
}

std::vector<int64_t> TileIndexOf(const HloSharding& sharding, int64_t device) {
  std::optional<std::vector<int64_t>> index = sharding.TileIndexForDevice(device);
  return index ? *index : std::vector<int64_t>{};
}

TileRange TileRangeOf(const HloSharding& sharding, const Shape& global, int64_t dim,
                      int64_t device) {
  const int64_t size = global.dimensions(dim);
  const int64_t tiles = sharding.IsTiled() && sharding.TiledDataRank() == global.rank()
                            ? TilesAlong(sharding, dim)
                            : 1;
  if (tiles <= 1) return {0, size};
  const int64_t tile = (size + tiles - 1) / tiles;
  std::vector<int64_t> index = TileIndexOf(sharding, device);
  const int64_t at = index.empty() ? 0 : index[dim];
  return {at * tile, tile};
}

std::vector<std::vector<int64_t>> GroupsAlong(const HloSharding& sharding,
                                              absl::Span<const int64_t> dims, int64_t num_devices) {
  // Each device's first tile, from one pass over the tiles (TileIndexOf per
  // device scans them all: quadratic in the device count).
  std::vector<int64_t> tile_of(static_cast<size_t>(std::max<int64_t>(num_devices, 0)), -1);
  if (sharding.IsTiled()) {
    const TileAssignment& tiles = sharding.tile_assignment();
    for (int64_t i = tiles.num_elements() - 1; i >= 0; --i) {
      const int64_t device = tiles.DeviceAt(i);
      if (device >= 0 && device < num_devices) tile_of[static_cast<size_t>(device)] = i;
    }
  }
  std::map<std::vector<int64_t>, std::vector<std::pair<std::vector<int64_t>, int64_t>>> by_key;
  for (int64_t device = 0; device < num_devices; ++device) {
    const int64_t tile = tile_of[static_cast<size_t>(device)];
    std::vector<int64_t> index = tile < 0
                                     ? std::vector<int64_t>{}
                                     : RowMajorCoordinates(tile, sharding.tile_assignment().dims());
    std::vector<int64_t> key, along;
    for (size_t k = 0; k < index.size(); ++k) {
      const bool grouped =
          std::find(dims.begin(), dims.end(), static_cast<int64_t>(k)) != dims.end();
      (grouped ? along : key).push_back(index[k]);
    }
    if (index.empty()) key = {device};
    by_key[key].push_back({along, device});
  }
  std::vector<std::vector<int64_t>> groups;
  for (auto& [key, members] : by_key) {
    std::sort(members.begin(), members.end());
    std::vector<int64_t> group;
    for (const auto& member : members) group.push_back(member.second);
    groups.push_back(std::move(group));
  }
  return groups;
}

HloSharding ReplicatedLike(const Shape& shape) {
  if (!shape.IsTuple()) return HloSharding::Replicated();
  return HloSharding::Tuple(std::vector<HloSharding>(shape.LeafCount(), HloSharding::Replicated()));
}

bool AllSingletons(const std::vector<std::vector<int64_t>>& groups) {
  return std::all_of(groups.begin(), groups.end(),
                     [](const std::vector<int64_t>& g) { return g.size() <= 1; });
}

std::optional<HloSharding> FullSideOfManual(const HloSharding& manual, const Shape& full,
                                            const Shape& local) {
  if (!manual.IsManualSubgroup() || !full.IsArray() || !local.IsArray() ||
      full.rank() != local.rank()) {
    return std::nullopt;
  }
  const std::vector<OpShardingType> types = TrailingTileTypes(manual);
  const std::vector<int64_t>& dims = manual.tile_assignment().dims();
  const size_t rank = dims.size() - types.size();
  if (static_cast<int64_t>(rank) != full.rank()) return std::nullopt;
  std::vector<int64_t> ratio(rank);
  int64_t manual_size = 1;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t l = local.dimensions(d), f = full.dimensions(d);
    if (l == 0 || f % l != 0) return std::nullopt;
    ratio[d] = f / l;
    manual_size *= ratio[d];
  }
  const size_t manual_dim =
      rank + (std::find(types.begin(), types.end(), OpShardingType::kManual) - types.begin());
  if (dims[manual_dim] != manual_size) return std::nullopt;
  std::vector<int64_t> new_dims;
  for (size_t d = 0; d < rank; ++d) new_dims.push_back(dims[d] * ratio[d]);
  std::vector<OpShardingType> new_types;
  for (size_t k = rank; k < dims.size(); ++k) {
    if (k == manual_dim) continue;
    new_dims.push_back(dims[k]);
    new_types.push_back(types[k - rank]);
  }
  const std::vector<int64_t> devices = manual.tile_assignment().Devices();
  std::vector<int64_t> placed(devices.size());
  for (size_t linear = 0; linear < devices.size(); ++linear) {
    std::vector<int64_t> coords(dims.size());
    for (size_t k = dims.size(), rest = linear; k-- > 0;) {
      coords[k] = static_cast<int64_t>(rest) % dims[k];
      rest /= static_cast<size_t>(dims[k]);
    }
    // The manual coordinate, split over the dims in mixed radix, major first.
    std::vector<int64_t> parts(rank);
    for (size_t d = rank, k = static_cast<size_t>(coords[manual_dim]); d-- > 0;) {
      parts[d] = static_cast<int64_t>(k) % ratio[d];
      k /= static_cast<size_t>(ratio[d]);
    }
    std::vector<int64_t> at;
    for (size_t d = 0; d < rank; ++d) at.push_back(parts[d] * dims[d] + coords[d]);
    for (size_t k = rank; k < dims.size(); ++k) {
      if (k != manual_dim) at.push_back(coords[k]);
    }
    int64_t index = 0;
    for (size_t k = 0; k < at.size(); ++k) index = index * new_dims[k] + at[k];
    placed[static_cast<size_t>(index)] = devices[linear];
  }
  return HloSharding::Tiled(TileAssignment::Explicit(new_dims, std::move(placed)), false,
                            std::move(new_types))
      .Normalized();
}

std::vector<int64_t> ManualGroupLabels(const HloSharding& sharding, int64_t num_devices) {
  std::vector<int64_t> labels(static_cast<size_t>(num_devices), 0);
  if (!sharding.IsManualSubgroup()) return labels;
  const std::vector<OpShardingType> types = TrailingTileTypes(sharding);
  const size_t first = sharding.tile_assignment().dims().size() - types.size();
  std::map<std::vector<int64_t>, int64_t> label_of;
  for (int64_t p = 0; p < num_devices; ++p) {
    const std::vector<int64_t> index = TileIndexOf(sharding, p);
    std::vector<int64_t> key;
    for (size_t k = 0; k < types.size(); ++k) {
      if (types[k] == OpShardingType::kManual && first + k < index.size()) {
        key.push_back(index[first + k]);
      }
    }
    labels[p] = label_of.emplace(key, static_cast<int64_t>(label_of.size())).first->second;
  }
  return labels;
}

std::optional<HloSharding> ReachableInManualGroups(const HloSharding& from, const HloSharding& to,
                                                   int64_t num_devices) {
  if (!from.IsManualSubgroup() && !to.IsManualSubgroup()) return to;
  if (from.IsReplicated()) return to;
  if (from.IsManualSubgroup() && to.IsReplicated()) {
    std::vector<int64_t> data_dims(static_cast<size_t>(from.TiledDataRank()));
    for (size_t d = 0; d < data_dims.size(); ++d) data_dims[d] = static_cast<int64_t>(d);
    return ForPartitioning(PartiallyReplicateDims(from, data_dims));
  }
  if (ManualGroupLabels(from, num_devices) != ManualGroupLabels(to, num_devices) ||
      !from.IsManualSubgroup() || !to.IsManualSubgroup()) {
    return std::nullopt;
  }
  return to;
}

}  // namespace xlite::spmd
