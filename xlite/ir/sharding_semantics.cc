// HloSharding's semantic queries (declared in sharding.h): tile shapes and
// indices per device, replication groups, XLA's canonical subgroup form and
// the iota form of a device list.
#include <algorithm>
#include <map>
#include <numeric>

#include "xlite/ir/sharding.h"

namespace xlite {
namespace {

int64_t ProductOf(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Subgroup order in XLA's canonical form: by OpSharding::Type number
// (MAXIMAL=1, MANUAL=4, UNREDUCED=6), replication last.
int XlaTypeRank(OpShardingType type) {
  switch (type) {
    case OpShardingType::kReplicated:
      return 100;
    case OpShardingType::kMaximal:
      return 1;
    case OpShardingType::kManual:
      return 4;
    case OpShardingType::kUnreduced:
      return 6;
  }
  return 7;
}

}  // namespace

std::vector<int64_t> TransposeDevices(const std::vector<int64_t>& devices,
                                      absl::Span<const int64_t> dims,
                                      absl::Span<const int64_t> perm) {
  std::vector<int64_t> out_dims(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) out_dims[k] = dims[perm[k]];
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) strides[k - 1] = strides[k] * dims[k];
  std::vector<int64_t> out(devices.size());
  for (size_t i = 0; i < out.size(); ++i) {
    std::vector<int64_t> coord = RowMajorCoordinates(static_cast<int64_t>(i), out_dims);
    int64_t source = 0;
    for (size_t k = 0; k < perm.size(); ++k) source += coord[k] * strides[perm[k]];
    out[i] = devices[source];
  }
  return out;
}


std::vector<OpShardingType> TrailingTileTypes(const HloSharding& s) {
  if (s.replicate_on_last_tile_dim()) return {OpShardingType::kReplicated};
  return s.subgroup_types();
}

std::vector<int64_t> RowMajorCoordinates(int64_t linear, absl::Span<const int64_t> dims) {
  std::vector<int64_t> coord(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    coord[k] = linear % dims[k];
    linear /= dims[k];
  }
  return coord;
}

TileAssignment CanonicalTileAssignment(std::vector<int64_t> dims,
                                       const std::vector<int64_t>& devices) {
  const int64_t n = static_cast<int64_t>(devices.size());
  auto explicit_form = [&] { return TileAssignment::Explicit(dims, devices); };
  if (n == 0 || n != ProductOf(dims) || devices[0] != 0) return explicit_form();
  // Walk from the minor end: each run of equally spaced devices is one axis
  // of the transposed iota array (size, stride).
  std::vector<std::pair<int64_t, int64_t>> axes;  // minor first
  int64_t block = 1;
  while (block < n) {
    const int64_t stride = devices[block];
    if (stride <= 0) return explicit_form();
    int64_t length = 1;
    while (block * (length + 1) <= n && devices[block * length] == length * stride) ++length;
    while (length > 1 && n % (block * length) != 0) --length;
    if (length <= 1) return explicit_form();
    axes.emplace_back(length, stride);
    block *= length;
  }
  // Every device must be the sum of its digits times the axis strides.
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, value = 0;
    for (const auto& [size, stride] : axes) {
      value += (rest % size) * stride;
      rest /= size;
    }
    if (value != devices[i]) return explicit_form();
  }
  // The iota array's dims are the axes by decreasing stride; each stride must
  // be the product of the sizes below it.
  std::vector<size_t> by_stride(axes.size());
  std::iota(by_stride.begin(), by_stride.end(), 0);
  std::sort(by_stride.begin(), by_stride.end(),
            [&](size_t a, size_t b) { return axes[a].second > axes[b].second; });
  int64_t expected = 1;
  for (size_t k = by_stride.size(); k-- > 0;) {
    if (axes[by_stride[k]].second != expected) return explicit_form();
    expected *= axes[by_stride[k]].first;
  }
  // Transposed order (major first) as positions in the iota dims; then merge
  // iota dims that stay adjacent and in order.
  std::vector<int64_t> position(axes.size());
  for (size_t k = 0; k < by_stride.size(); ++k) position[by_stride[k]] = static_cast<int64_t>(k);
  std::vector<int64_t> perm;
  for (size_t k = axes.size(); k-- > 0;) perm.push_back(position[k]);
  std::vector<int64_t> reshape;
  for (size_t k : by_stride) reshape.push_back(axes[k].first);
  std::vector<std::vector<int64_t>> runs;  // runs of perm entries p, p+1, ...
  for (int64_t p : perm) {
    if (!runs.empty() && runs.back().back() + 1 == p) {
      runs.back().push_back(p);
    } else {
      runs.push_back({p});
    }
  }
  if (runs.size() == 1) return TileAssignment::Iota(std::move(dims), {n}, {});
  std::vector<std::vector<int64_t>> sorted_runs = runs;
  std::sort(sorted_runs.begin(), sorted_runs.end());
  std::vector<int64_t> merged_reshape, merged_perm;
  for (const auto& run : sorted_runs) {
    int64_t size = 1;
    for (int64_t p : run) size *= reshape[p];
    merged_reshape.push_back(size);
  }
  for (const auto& run : runs) {
    merged_perm.push_back(std::find(sorted_runs.begin(), sorted_runs.end(), run) -
                          sorted_runs.begin());
  }
  return TileAssignment::Iota(std::move(dims), std::move(merged_reshape), std::move(merged_perm));
}

bool HloSharding::IsReplicated() const {
  if (kind_ == Kind::kReplicated) return true;
  if (kind_ != Kind::kTiled) return false;
  for (OpShardingType t : TrailingTileTypes(*this)) {
    if (t != OpShardingType::kReplicated) return false;
  }
  return NumTiles() == 1;
}

bool HloSharding::IsManualSubgroup() const {
  return kind_ == Kind::kTiled && std::find(subgroup_types_.begin(), subgroup_types_.end(),
                                            OpShardingType::kManual) != subgroup_types_.end();
}

bool HloSharding::HasPartialReplication() const {
  if (kind_ != Kind::kTiled) return false;
  return replicate_on_last_tile_dim_ ||
         std::find(subgroup_types_.begin(), subgroup_types_.end(), OpShardingType::kReplicated) !=
             subgroup_types_.end();
}

std::vector<int64_t> HloSharding::DataTileDims() const {
  if (kind_ != Kind::kTiled) return {};
  const std::vector<int64_t>& dims = tiles_.dims();
  const int64_t rank = std::max<int64_t>(0, TiledDataRank());
  return std::vector<int64_t>(dims.begin(), dims.begin() + rank);
}

int64_t HloSharding::NumTiles() const { return ProductOf(DataTileDims()); }

namespace {

int64_t TrailingFactor(const HloSharding& s, OpShardingType type) {
  if (!s.IsTiled()) return 1;
  std::vector<OpShardingType> types = TrailingTileTypes(s);
  const std::vector<int64_t>& dims = s.tile_assignment().dims();
  const size_t first = dims.size() - types.size();
  int64_t factor = 1;
  for (size_t k = 0; k < types.size(); ++k) {
    if (types[k] == type) factor *= dims[first + k];
  }
  return factor;
}

}  // namespace

int64_t HloSharding::ReplicationFactor() const {
  return TrailingFactor(*this, OpShardingType::kReplicated);
}

int64_t HloSharding::ManualFactor() const { return TrailingFactor(*this, OpShardingType::kManual); }

std::vector<int64_t> HloSharding::TileShape(const Shape& shape) const {
  std::vector<int64_t> out(shape.dimensions().begin(), shape.dimensions().end());
  std::vector<int64_t> tiles = DataTileDims();
  if (tiles.size() != out.size()) return out;
  for (size_t d = 0; d < out.size(); ++d) {
    if (tiles[d] > 0) out[d] = (out[d] + tiles[d] - 1) / tiles[d];
  }
  return out;
}

std::optional<std::vector<int64_t>> HloSharding::TileIndexForDevice(int64_t device) const {
  if (kind_ != Kind::kTiled) return std::nullopt;
  const int64_t n = tiles_.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (tiles_.DeviceAt(i) == device) return RowMajorCoordinates(i, tiles_.dims());
  }
  return std::nullopt;
}

int64_t HloSharding::DeviceForTileIndex(absl::Span<const int64_t> index) const {
  if (kind_ != Kind::kTiled || index.size() != tiles_.dims().size()) return -1;
  int64_t linear = 0;
  for (size_t k = 0; k < index.size(); ++k) {
    if (index[k] < 0 || index[k] >= tiles_.dims()[k]) return -1;
    linear = linear * tiles_.dims()[k] + index[k];
  }
  return tiles_.DeviceAt(linear);
}

std::vector<std::vector<int64_t>> HloSharding::ReplicationGroups(int64_t num_devices) const {
  if (kind_ == Kind::kMaximal) return {{maximal_device_}};
  if (kind_ != Kind::kTiled) {
    std::vector<int64_t> all(static_cast<size_t>(std::max<int64_t>(num_devices, 0)));
    std::iota(all.begin(), all.end(), 0);
    return {all};
  }
  // Key of a device: its data coordinates and its coordinates along the
  // non-replicated trailing dims (manual groups hold different data).
  std::vector<OpShardingType> types = TrailingTileTypes(*this);
  const std::vector<int64_t>& dims = tiles_.dims();
  const size_t first_trailing = dims.size() - types.size();
  std::map<std::vector<int64_t>, size_t> group_of;
  std::vector<std::vector<int64_t>> groups;
  std::vector<std::pair<std::vector<int64_t>, size_t>> order;
  for (int64_t i = 0; i < tiles_.num_elements(); ++i) {
    std::vector<int64_t> coord = RowMajorCoordinates(i, dims);
    std::vector<int64_t> key;
    for (size_t k = 0; k < dims.size(); ++k) {
      if (k >= first_trailing && types[k - first_trailing] == OpShardingType::kReplicated) continue;
      key.push_back(coord[k]);
    }
    auto [it, inserted] = group_of.emplace(key, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(tiles_.DeviceAt(i));
  }
  return groups;
}

HloSharding HloSharding::Normalized() const {
  if (kind_ == Kind::kTuple) {
    std::vector<HloSharding> elements;
    elements.reserve(tuple_.size());
    for (const HloSharding& e : tuple_) elements.push_back(e.Normalized());
    HloSharding out = Tuple(std::move(elements));
    out.shard_group_ = shard_group_;
    return out;
  }
  if (kind_ != Kind::kTiled) return *this;
  const std::vector<int64_t>& dims = tiles_.dims();
  const int64_t data_rank = TiledDataRank();
  std::vector<OpShardingType> types = TrailingTileTypes(*this);
  if (data_rank < 0 ||
      static_cast<int64_t>(dims.size()) != data_rank + static_cast<int64_t>(types.size()) ||
      static_cast<int64_t>(tiles_.Devices().size()) != tiles_.num_elements()) {
    return *this;  // malformed (Validate reports it); keep as written
  }
  // Group trailing dims by kind in XLA's order, dropping size-1 dims.
  std::vector<size_t> kinds_order(types.size());
  std::iota(kinds_order.begin(), kinds_order.end(), 0);
  std::stable_sort(kinds_order.begin(), kinds_order.end(), [&](size_t a, size_t b) {
    return XlaTypeRank(types[a]) < XlaTypeRank(types[b]);
  });
  std::vector<int64_t> perm(static_cast<size_t>(data_rank));
  std::iota(perm.begin(), perm.end(), 0);
  std::vector<int64_t> new_dims(dims.begin(), dims.begin() + data_rank);
  std::vector<OpShardingType> new_types;
  for (size_t k : kinds_order) {
    perm.push_back(data_rank + static_cast<int64_t>(k));
    const int64_t size = dims[data_rank + k];
    if (size == 1) continue;
    if (!new_types.empty() && new_types.back() == types[k]) {
      new_dims.back() *= size;
    } else {
      new_types.push_back(types[k]);
      new_dims.push_back(size);
    }
  }
  std::vector<int64_t> devices = TransposeDevices(tiles_.Devices(), dims, perm);
  const bool all_data_one = ProductOf(absl::MakeConstSpan(new_dims).subspan(0, data_rank)) == 1;
  HloSharding out;
  if (all_data_one && (new_types.empty() ||
                       (new_types.size() == 1 && new_types[0] == OpShardingType::kReplicated))) {
    out = Replicated();
  } else if (all_data_one && new_types.size() == 1 && new_types[0] == OpShardingType::kManual) {
    out = Manual();
  } else if (new_types.size() == 1 && new_types[0] == OpShardingType::kReplicated) {
    out = Tiled(CanonicalTileAssignment(new_dims, devices), /*last_tile_dim_replicate=*/true);
  } else {
    out = Tiled(CanonicalTileAssignment(new_dims, devices), false, new_types);
  }
  out.shard_group_ = shard_group_;
  out.metadata_ = metadata_;
  return out;
}

Shape OutfeedShardingShape(const HloSharding& sharding, const Shape& data) {
  if (sharding.IsTuple() &&
      static_cast<int64_t>(sharding.tuple_elements().size()) == data.LeafCount()) {
    return data.IsTuple() ? data : Shape::Tuple({data});
  }
  return Shape::Tuple({data, Shape::Token()});
}

}  // namespace xlite
