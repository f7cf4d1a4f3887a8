#include "xlite/ir/sharding_transforms.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace xlite {
namespace {

// One axis of a sharding's device array split per factor.
struct Axis {
  int64_t size = 1;
  int64_t factor = -1;  // the factor it tiles, or -1 for a trailing/leftover axis
  OpShardingType type = OpShardingType::kReplicated;  // when factor == -1
};

// Tiles `t` of one dim spread over its factors major to minor.
void SplitTiles(int64_t t, const std::vector<int64_t>& factors, const std::vector<int64_t>& sizes,
                std::vector<Axis>* axes) {
  if (factors.size() == 1) {
    axes->push_back({t, factors[0]});
    return;
  }
  for (int64_t f : factors) {
    int64_t size = sizes[f];
    int64_t tile = 1;
    if (t > 1) {
      if (size % t == 0) {
        tile = t;
      } else if (t % size == 0) {
        tile = size;
      } else {
        tile = std::gcd(t, size);
      }
      // A partial tile ends the split: the rest replicates.
      t /= tile;
      if (tile != size) {
        axes->push_back({tile, f});
        axes->push_back({t, -1});
        t = 1;
        continue;
      }
    }
    axes->push_back({tile, f});
  }
  if (t > 1) axes->push_back({t, -1});
}

}  // namespace

HloSharding ProjectSharding(const HloSharding& source, const FactorMapping& m) {
  if (!source.IsTiled()) return source;
  if (source.TiledDataRank() != static_cast<int64_t>(m.source_dims.size())) {
    return HloSharding::Replicated();
  }
  const std::vector<int64_t>& dims = source.tile_assignment().dims();
  std::vector<OpShardingType> trailing = TrailingTileTypes(source);
  // Source device array with one axis per (dim, factor) plus leftovers.
  std::vector<Axis> axes;
  for (size_t d = 0; d < m.source_dims.size(); ++d) {
    SplitTiles(dims[d], m.source_dims[d], m.factor_sizes, &axes);
  }
  for (size_t k = 0; k < trailing.size(); ++k) {
    axes.push_back({dims[m.source_dims.size() + k], -1, trailing[k]});
  }
  std::vector<int64_t> axis_of_factor(m.factor_sizes.size(), -1);
  for (size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].factor >= 0 && axes[a].size > 1) axis_of_factor[axes[a].factor] = a;
  }
  // Target: each dim takes the axes of its factors while they can be written
  // as one tile count; the rest joins the replication.
  std::vector<bool> used(axes.size(), false);
  std::vector<int64_t> perm, target_dims;
  for (const std::vector<int64_t>& factors : m.target_dims) {
    int64_t tiles = 1;
    int64_t nontrivial = 0;
    for (int64_t f : factors) nontrivial += (m.factor_sizes[f] != 1 || axis_of_factor[f] >= 0);
    bool open = true;  // still taking tiles (every earlier factor fully tiled)
    for (int64_t f : factors) {
      const int64_t a = axis_of_factor[f];
      const int64_t size = m.factor_sizes[f];
      if (a < 0 || used[a]) {
        if (size != 1) open = false;
        continue;
      }
      const int64_t tile = axes[a].size;
      const bool fits = nontrivial == 1 || (size % tile == 0);
      if (!open || !fits) continue;
      perm.push_back(a);
      used[a] = true;
      tiles *= tile;
      if (tile != size) open = false;
    }
    target_dims.push_back(tiles);
  }
  // Trailing: replication (dropped factors, leftovers, replicated subgroups),
  // then each other subgroup kind, in source axis order.
  std::vector<OpShardingType> types;
  auto add_trailing = [&](OpShardingType type) {
    int64_t size = 1;
    for (size_t a = 0; a < axes.size(); ++a) {
      if (used[a]) continue;
      const bool replicated = axes[a].factor >= 0 || axes[a].type == OpShardingType::kReplicated;
      if ((type == OpShardingType::kReplicated) != replicated) continue;
      if (!replicated && axes[a].type != type) continue;
      perm.push_back(a);
      used[a] = true;
      size *= axes[a].size;
    }
    if (size > 1) {
      types.push_back(type);
      target_dims.push_back(size);
    }
  };
  add_trailing(OpShardingType::kReplicated);
  for (OpShardingType type :
       {OpShardingType::kManual, OpShardingType::kMaximal, OpShardingType::kUnreduced}) {
    add_trailing(type);
  }
  // Permute the device array.
  std::vector<int64_t> axis_dims;
  for (const Axis& a : axes) axis_dims.push_back(a.size);
  std::vector<int64_t> strides(axes.size(), 1);
  for (size_t k = axes.size(); k-- > 1;) strides[k - 1] = strides[k] * axis_dims[k];
  std::vector<int64_t> permuted_dims;
  for (int64_t a : perm) permuted_dims.push_back(axis_dims[a]);
  const std::vector<int64_t> devices = source.tile_assignment().Devices();
  std::vector<int64_t> out(devices.size());
  for (size_t i = 0; i < out.size(); ++i) {
    std::vector<int64_t> coord = RowMajorCoordinates(static_cast<int64_t>(i), permuted_dims);
    int64_t from = 0;
    for (size_t k = 0; k < perm.size(); ++k) from += coord[k] * strides[perm[k]];
    out[i] = devices[from];
  }
  HloSharding result = HloSharding::Tiled(TileAssignment::Explicit(target_dims, out), false, types);
  if (source.shard_group()) result.set_shard_group(*source.shard_group());
  return result.Normalized();
}

namespace {

// One factor per dim; `target_of_source[d]` is the target dim of source dim
// d or -1 (dropped); target dims without a source get fresh factors.
FactorMapping DimMapping(int64_t source_rank, int64_t target_rank,
                         absl::Span<const int64_t> target_of_source) {
  FactorMapping m;
  m.source_dims.resize(source_rank);
  m.target_dims.resize(target_rank);
  for (int64_t d = 0; d < source_rank; ++d) {
    const int64_t f = static_cast<int64_t>(m.factor_sizes.size());
    m.factor_sizes.push_back(0);
    m.source_dims[d] = {f};
    if (target_of_source[d] >= 0) m.target_dims[target_of_source[d]] = {f};
  }
  return m;
}

}  // namespace

HloSharding TransposeSharding(const HloSharding& sharding, absl::Span<const int64_t> perm) {
  std::vector<int64_t> target_of_source(perm.size(), -1);
  for (size_t k = 0; k < perm.size(); ++k) target_of_source[perm[k]] = static_cast<int64_t>(k);
  const int64_t rank = static_cast<int64_t>(perm.size());
  return ProjectSharding(sharding, DimMapping(rank, rank, target_of_source));
}

HloSharding ReverseTileOrder(const HloSharding& sharding, absl::Span<const int64_t> dims) {
  if (!sharding.IsTiled()) return sharding;
  const TileAssignment& tiles = sharding.tile_assignment();
  const std::vector<int64_t>& shape = tiles.dims();
  bool flips = false;
  for (int64_t d : dims) flips = flips || (d >= 0 && d < sharding.TiledDataRank() && shape[d] > 1);
  if (!flips) return sharding;
  std::vector<int64_t> devices(tiles.num_elements());
  for (int64_t linear = 0; linear < tiles.num_elements(); ++linear) {
    std::vector<int64_t> at = RowMajorCoordinates(linear, shape);
    for (int64_t d : dims) {
      if (d >= 0 && d < sharding.TiledDataRank()) at[d] = shape[d] - 1 - at[d];
    }
    int64_t source = 0;
    for (size_t k = 0; k < shape.size(); ++k) source = source * shape[k] + at[k];
    devices[linear] = tiles.DeviceAt(source);
  }
  HloSharding out =
      HloSharding::Tiled(CanonicalTileAssignment(shape, devices),
                         sharding.replicate_on_last_tile_dim(), sharding.subgroup_types());
  out.mutable_metadata() = sharding.metadata();
  return out;
}

HloSharding PartiallyReplicateDims(const HloSharding& sharding, absl::Span<const int64_t> dims) {
  if (!sharding.IsTiled()) return sharding;
  const int64_t rank = sharding.TiledDataRank();
  std::vector<int64_t> target_of_source(rank);
  std::iota(target_of_source.begin(), target_of_source.end(), 0);
  for (int64_t d : dims) {
    if (d >= 0 && d < rank) target_of_source[d] = -1;
  }
  return ProjectSharding(sharding, DimMapping(rank, rank, target_of_source));
}

HloSharding PartiallyReplicateAllDimsExcept(const HloSharding& sharding,
                                            absl::Span<const int64_t> keep) {
  if (!sharding.IsTiled()) return sharding;
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < sharding.TiledDataRank(); ++d) {
    if (std::find(keep.begin(), keep.end(), d) == keep.end()) dims.push_back(d);
  }
  return PartiallyReplicateDims(sharding, dims);
}

HloSharding RemoveDims(const HloSharding& sharding, absl::Span<const int64_t> dims) {
  if (!sharding.IsTiled()) return sharding;
  const int64_t rank = sharding.TiledDataRank();
  std::vector<int64_t> target_of_source(rank);
  int64_t next = 0;
  for (int64_t d = 0; d < rank; ++d) {
    const bool removed = std::find(dims.begin(), dims.end(), d) != dims.end();
    target_of_source[d] = removed ? -1 : next++;
  }
  return ProjectSharding(sharding, DimMapping(rank, next, target_of_source));
}

HloSharding InsertDims(const HloSharding& sharding, absl::Span<const int64_t> dims) {
  if (!sharding.IsTiled()) return sharding;
  const int64_t rank = sharding.TiledDataRank();
  const int64_t target_rank = rank + static_cast<int64_t>(dims.size());
  std::vector<int64_t> target_of_source;
  for (int64_t t = 0; t < target_rank; ++t) {
    if (std::find(dims.begin(), dims.end(), t) == dims.end()) target_of_source.push_back(t);
  }
  if (static_cast<int64_t>(target_of_source.size()) != rank) return sharding;
  FactorMapping m = DimMapping(rank, target_rank, target_of_source);
  for (std::vector<int64_t>& factors : m.target_dims) {
    if (factors.empty()) {
      factors.push_back(static_cast<int64_t>(m.factor_sizes.size()));
      m.factor_sizes.push_back(1);
    }
  }
  return ProjectSharding(sharding, m);
}

FactorMapping ReshapeFactors(absl::Span<const int64_t> from, absl::Span<const int64_t> to) {
  FactorMapping m;
  m.source_dims.resize(from.size());
  m.target_dims.resize(to.size());
  auto new_factor = [&](int64_t size) {
    m.factor_sizes.push_back(size);
    return static_cast<int64_t>(m.factor_sizes.size()) - 1;
  };
  size_t i = 0, j = 0;
  int64_t a = i < from.size() ? from[0] : 1, b = j < to.size() ? to[0] : 1;
  auto next_from = [&] {
    ++i;
    a = i < from.size() ? from[i] : 1;
  };
  auto next_to = [&] {
    ++j;
    b = j < to.size() ? to[j] : 1;
  };
  while (i < from.size() || j < to.size()) {
    if (i < from.size() && a == 1) {
      next_from();
      continue;
    }
    if (j < to.size() && b == 1) {
      next_to();
      continue;
    }
    if (i >= from.size() || j >= to.size()) break;  // sizes disagree: rest unmapped
    const int64_t g = std::gcd(a, b);
    if (g > 1) {
      const int64_t f = new_factor(g);
      m.source_dims[i].push_back(f);
      m.target_dims[j].push_back(f);
      a /= g;
      b /= g;
      continue;
    }
    // Coprime remainders: consume whole remainders on both sides until the
    // products meet; these pieces belong to one side only.
    int64_t p = a, q = b;
    m.source_dims[i].push_back(new_factor(a));
    m.target_dims[j].push_back(new_factor(b));
    next_from();
    next_to();
    while (p != q && (i < from.size() || j < to.size())) {
      if (p < q && i < from.size()) {
        p *= a;
        m.source_dims[i].push_back(new_factor(a));
        next_from();
      } else if (j < to.size()) {
        q *= b;
        m.target_dims[j].push_back(new_factor(b));
        next_to();
      } else {
        break;
      }
    }
  }
  return m;
}

HloSharding ReshapeSharding(const HloSharding& sharding, absl::Span<const int64_t> from,
                            absl::Span<const int64_t> to) {
  return ProjectSharding(sharding, ReshapeFactors(from, to));
}

std::optional<HloSharding> MergeShardings(const HloSharding& a, const HloSharding& b) {
  if (a.IsReplicated()) return b;
  if (b.IsReplicated()) return a;
  if (!a.IsTiled() || !b.IsTiled()) {
    if (a == b) return a;
    return std::nullopt;
  }
  const int64_t rank = a.TiledDataRank();
  if (rank != b.TiledDataRank()) return std::nullopt;
  const int64_t n = a.tile_assignment().num_elements();
  if (n != b.tile_assignment().num_elements()) return std::nullopt;
  if (a.ManualFactor() != b.ManualFactor()) return std::nullopt;
  std::vector<int64_t> da = a.DataTileDims(), db = b.DataTileDims(), merged(rank);
  int64_t tiles = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (da[d] != db[d] && da[d] != 1 && db[d] != 1) return std::nullopt;
    merged[d] = std::max(da[d], db[d]);
    tiles *= merged[d];
  }
  const int64_t manual = a.ManualFactor();
  if (n % (tiles * manual) != 0) return std::nullopt;
  const int64_t replication = n / (tiles * manual);
  // Each device's merged coordinates; every (data, manual) cell needs
  // exactly `replication` devices.
  auto manual_coord = [](const HloSharding& s, const std::vector<int64_t>& index) {
    std::vector<OpShardingType> types = TrailingTileTypes(s);
    const size_t first = index.size() - types.size();
    int64_t c = 0;
    for (size_t k = 0; k < types.size(); ++k) {
      if (types[k] == OpShardingType::kManual) {
        c = c * s.tile_assignment().dims()[first + k] + index[first + k];
      }
    }
    return c;
  };
  std::map<std::vector<int64_t>, std::vector<int64_t>> cells;
  for (int64_t device : a.tile_assignment().Devices()) {
    std::optional<std::vector<int64_t>> ia = a.TileIndexForDevice(device);
    std::optional<std::vector<int64_t>> ib = b.TileIndexForDevice(device);
    if (!ia || !ib) return std::nullopt;
    if (manual_coord(a, *ia) != manual_coord(b, *ib)) return std::nullopt;
    std::vector<int64_t> key(rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (da[d] > 1 && db[d] > 1 && (*ia)[d] != (*ib)[d]) return std::nullopt;
      key[d] = da[d] > 1 ? (*ia)[d] : (*ib)[d];
    }
    key.push_back(manual_coord(a, *ia));
    std::vector<int64_t>& cell = cells[key];
    if (static_cast<int64_t>(cell.size()) == replication) return std::nullopt;
    cell.push_back(device);
  }
  // Lay out [merged..., replication, manual] row-major over the cell keys
  // (data coords, then manual coord), replication innermost per cell.
  std::vector<int64_t> dims = merged;
  dims.push_back(replication);
  dims.push_back(manual);
  std::vector<int64_t> devices(static_cast<size_t>(n));
  for (const auto& [key, members] : cells) {
    int64_t base = 0;
    for (int64_t d = 0; d < rank; ++d) base = base * merged[d] + key[d];
    for (size_t r = 0; r < members.size(); ++r) {
      const int64_t linear = (base * replication + static_cast<int64_t>(r)) * manual + key[rank];
      devices[linear] = members[r];
    }
  }
  HloSharding result = HloSharding::Tiled(TileAssignment::Explicit(dims, devices), false,
                                          {OpShardingType::kReplicated, OpShardingType::kManual});
  if (a.shard_group()) result.set_shard_group(*a.shard_group());
  return result.Normalized();
}

bool IsMoreSpecific(const HloSharding& a, const HloSharding& b) {
  if (a.IsTuple() && b.IsTuple() && a.tuple_elements().size() == b.tuple_elements().size()) {
    bool any = false;
    for (size_t i = 0; i < a.tuple_elements().size(); ++i) {
      if (IsMoreSpecific(b.tuple_elements()[i], a.tuple_elements()[i])) return false;
      any |= IsMoreSpecific(a.tuple_elements()[i], b.tuple_elements()[i]);
    }
    return any;
  }
  if (a.IsManual() || b.IsManual()) return false;
  if (!b.IsTileMaximal() && !b.IsReplicated()) return a.NumTiles() > b.NumTiles();
  if (!a.IsTileMaximal() && !a.IsReplicated()) return true;
  return !a.IsReplicated() && b.IsReplicated() && a.kind() == HloSharding::Kind::kMaximal;
}

}  // namespace xlite
