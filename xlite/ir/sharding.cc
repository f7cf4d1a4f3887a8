#include "xlite/ir/sharding.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "absl/container/inlined_vector.h"
#include "xlite/base/check.h"
#include "xlite/base/status.h"

namespace xlite {
namespace {

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

}  // namespace

TileAssignment TileAssignment::Explicit(std::vector<int64_t> dims, std::vector<int64_t> devices) {
  TileAssignment t;
  t.dims_ = std::move(dims);
  t.devices_ = std::move(devices);
  return t;
}

TileAssignment TileAssignment::Iota(std::vector<int64_t> dims, std::vector<int64_t> reshape_dims,
                                    std::vector<int64_t> transpose_perm) {
  TileAssignment t;
  t.dims_ = std::move(dims);
  t.is_iota_ = true;
  t.reshape_dims_ = std::move(reshape_dims);
  t.transpose_perm_ = std::move(transpose_perm);
  return t;
}

int64_t TileAssignment::num_elements() const { return Product(dims_); }

int64_t TileAssignment::DeviceAt(int64_t linear_index) const {
  if (!is_iota_) {
    return linear_index >= 0 && linear_index < static_cast<int64_t>(devices_.size())
               ? devices_[linear_index]
               : -1;
  }
  const size_t rank = reshape_dims_.size();
  if (transpose_perm_.empty()) return linear_index;
  // Malformed iota forms (Validate reports them) map to -1 instead of
  // reading out of bounds.
  if (transpose_perm_.size() != rank) return -1;
  for (int64_t p : transpose_perm_) {
    if (p < 0 || p >= static_cast<int64_t>(rank) || reshape_dims_[p] <= 0) return -1;
  }
  // The linear index walks the transposed array row-major; element k of the
  // transposed index is coordinate perm[k] of the iota array.
  absl::InlinedVector<int64_t, 8> source(rank, 0);
  int64_t rest = linear_index;
  for (size_t k = rank; k-- > 0;) {
    int64_t extent = reshape_dims_[transpose_perm_[k]];
    source[transpose_perm_[k]] = rest % extent;
    rest /= extent;
  }
  int64_t value = 0;
  for (size_t d = 0; d < rank; ++d) value = value * reshape_dims_[d] + source[d];
  return value;
}

std::vector<int64_t> TileAssignment::Devices() const {
  if (!is_iota_) return devices_;
  if (num_elements() <= 0) return {};
  std::vector<int64_t> out(static_cast<size_t>(num_elements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = DeviceAt(static_cast<int64_t>(i));
  return out;
}

bool TileAssignment::operator==(const TileAssignment& other) const {
  if (dims_ != other.dims_) return false;
  if (is_iota_ && other.is_iota_ && reshape_dims_ == other.reshape_dims_ &&
      transpose_perm_ == other.transpose_perm_) {
    return true;
  }
  const int64_t n = num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (DeviceAt(i) != other.DeviceAt(i)) return false;
  }
  return true;
}

// ------------------------------------------------------------ HloSharding

HloSharding HloSharding::Replicated() { return HloSharding(); }

HloSharding HloSharding::Manual() {
  HloSharding s;
  s.kind_ = Kind::kManual;
  return s;
}

HloSharding HloSharding::Unknown() {
  HloSharding s;
  s.kind_ = Kind::kUnknown;
  return s;
}

HloSharding HloSharding::Unreduced() {
  HloSharding s;
  s.kind_ = Kind::kUnreduced;
  return s;
}

HloSharding HloSharding::Maximal(int64_t device) {
  HloSharding s;
  s.kind_ = Kind::kMaximal;
  s.maximal_device_ = device;
  return s;
}

HloSharding HloSharding::Tiled(TileAssignment tiles, bool last_tile_dim_replicate,
                               std::vector<OpShardingType> subgroup_types) {
  HloSharding s;
  s.kind_ = Kind::kTiled;
  s.tiles_ = std::move(tiles);
  s.replicate_on_last_tile_dim_ = last_tile_dim_replicate;
  s.subgroup_types_ = std::move(subgroup_types);
  return s;
}

HloSharding HloSharding::Tuple(std::vector<HloSharding> elements) {
  HloSharding s;
  s.kind_ = Kind::kTuple;
  s.tuple_ = std::move(elements);
  return s;
}

int64_t HloSharding::TiledDataRank() const {
  int64_t rank = static_cast<int64_t>(tiles_.dims().size());
  if (replicate_on_last_tile_dim_) --rank;
  rank -= static_cast<int64_t>(subgroup_types_.size());
  return rank;
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> HloSharding::TileBounds(
    const Shape& shape, int64_t device) const {
  if (!shape.IsArray()) {
    return InvalidArgument("tile bounds need an array shape, got ", shape.ToString());
  }
  std::vector<std::pair<int64_t, int64_t>> bounds;
  bounds.reserve(shape.rank());
  if (kind_ == Kind::kTuple) {
    return InvalidArgument("tile bounds of a tuple sharding need a leaf sharding");
  }
  if (kind_ != Kind::kTiled) {
    for (int64_t d : shape.dimensions()) bounds.emplace_back(0, d);
    return bounds;
  }
  if (TiledDataRank() != shape.rank()) {
    return InvalidArgument("sharding tiles ", TiledDataRank(), " dimensions but shape ",
                           shape.ToString(), " has rank ", shape.rank());
  }
  const std::vector<int64_t>& dims = tiles_.dims();
  for (int64_t d : dims) {
    if (d <= 0) return InvalidArgument("tile assignment dimension ", d, " is not positive");
  }
  const int64_t num_tiles = tiles_.num_elements();
  int64_t position = 0;
  while (position < num_tiles && tiles_.DeviceAt(position) != device) ++position;
  if (position == num_tiles) {
    return InvalidArgument("device ", device, " is not in the tile assignment");
  }
  // Row-major coordinates of the device's tile.
  std::vector<int64_t> coord(dims.size());
  int64_t rest = position;
  for (size_t k = dims.size(); k-- > 0;) {
    coord[k] = rest % dims[k];
    rest /= dims[k];
  }
  for (int64_t d = 0; d < shape.rank(); ++d) {
    int64_t size = shape.dimensions(d);
    int64_t extent = (size + dims[d] - 1) / dims[d];
    int64_t start = std::min(coord[d] * extent, size);
    bounds.emplace_back(start, std::min(start + extent, size));
  }
  return bounds;
}

namespace {

absl::Status ValidateLeaf(const HloSharding& s, const Shape& shape, int64_t num_devices) {
  using Kind = HloSharding::Kind;
  switch (s.kind()) {
    case Kind::kReplicated:
    case Kind::kManual:
    case Kind::kUnknown:
    case Kind::kUnreduced:
      return absl::OkStatus();
    case Kind::kMaximal:
      if (s.maximal_device() < 0 ||
          (num_devices != HloSharding::kAnyDeviceCount && s.maximal_device() >= num_devices)) {
        return InvalidArgument("maximal sharding device ", s.maximal_device(),
                               " is out of range [0, ", num_devices, ")");
      }
      return absl::OkStatus();
    case Kind::kTuple:
      return InvalidArgument("nested tuple sharding inside a tuple sharding");
    case Kind::kTiled:
      break;
  }
  if (shape.IsToken()) return absl::OkStatus();
  if (!shape.IsArray()) {
    return InvalidArgument("tiled sharding on non-array shape ", shape.ToString());
  }
  const TileAssignment& tiles = s.tile_assignment();
  for (int64_t d : tiles.dims()) {
    if (d <= 0) return InvalidArgument("tile assignment dimension ", d, " is not positive");
  }
  if (s.TiledDataRank() != shape.rank()) {
    return InvalidArgument("sharding tiles ", s.TiledDataRank(), " dimensions but shape ",
                           shape.ToString(), " has rank ", shape.rank());
  }
  if (tiles.is_iota()) {
    const std::vector<int64_t>& reshape = tiles.reshape_dims();
    const std::vector<int64_t>& perm = tiles.transpose_perm();
    int64_t product = 1;
    for (int64_t r : reshape) {
      if (r <= 0) return InvalidArgument("iota reshape dimension ", r, " is not positive");
      product *= r;
    }
    if (product != tiles.num_elements()) {
      return InvalidArgument("iota tile assignment reshapes ", product, " devices into ",
                             tiles.num_elements(), " tiles");
    }
    if (!perm.empty()) {
      std::vector<int64_t> sorted = perm;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int64_t> identity(reshape.size());
      std::iota(identity.begin(), identity.end(), 0);
      if (sorted != identity) {
        return InvalidArgument("iota transpose is not a permutation of the reshape dims");
      }
    }
  } else if (static_cast<int64_t>(tiles.explicit_devices().size()) != tiles.num_elements()) {
    return InvalidArgument("tile assignment lists ", tiles.explicit_devices().size(),
                           " devices for ", tiles.num_elements(), " tiles");
  }
  const bool any_count = num_devices == HloSharding::kAnyDeviceCount;
  if (!any_count && tiles.num_elements() != num_devices) {
    return InvalidArgument("tile assignment has ", tiles.num_elements(),
                           " devices but the module has ", num_devices);
  }
  std::vector<int64_t> devices = tiles.Devices();
  for (int64_t device : devices) {
    if (device < 0 || (!any_count && device >= num_devices)) {
      return InvalidArgument("device ", device, " is out of range [0, ", num_devices, ")");
    }
  }
  std::sort(devices.begin(), devices.end());
  auto twice = std::adjacent_find(devices.begin(), devices.end());
  if (twice != devices.end()) return InvalidArgument("device ", *twice, " appears twice");
  return absl::OkStatus();
}

void CollectLeaves(const Shape& shape, std::vector<const Shape*>* leaves) {
  if (!shape.IsTuple()) {
    leaves->push_back(&shape);
    return;
  }
  for (const Shape& s : shape.tuple_shapes()) CollectLeaves(s, leaves);
}

}  // namespace

absl::Status HloSharding::Validate(const Shape& shape, int64_t num_devices) const {
  if (kind_ != Kind::kTuple) {
    if (shape.IsTuple()) {
      // A single sharding on a tuple applies to every leaf.
      std::vector<const Shape*> leaves;
      CollectLeaves(shape, &leaves);
      for (const Shape* leaf : leaves) {
        XLITE_RETURN_IF_ERROR(ValidateLeaf(*this, *leaf, num_devices));
      }
      return absl::OkStatus();
    }
    return ValidateLeaf(*this, shape, num_devices);
  }
  if (!shape.IsTuple()) {
    return InvalidArgument("tuple sharding on non-tuple shape ", shape.ToString());
  }
  std::vector<const Shape*> leaves;
  CollectLeaves(shape, &leaves);
  if (leaves.size() != tuple_.size()) {
    return InvalidArgument("tuple sharding has ", tuple_.size(), " elements but shape ",
                           shape.ToString(), " has ", leaves.size(), " leaves");
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    absl::Status status = ValidateLeaf(tuple_[i], *leaves[i], num_devices);
    if (!status.ok()) {
      return InvalidArgument("tuple sharding element ", i, ": ", status.message());
    }
  }
  return absl::OkStatus();
}

namespace {

// Field-by-field comparison (device arrays by content, whatever their form).
bool SameForm(const HloSharding& a, const HloSharding& b) {
  using Kind = HloSharding::Kind;
  if (a.kind() != b.kind() || a.shard_group() != b.shard_group()) return false;
  switch (a.kind()) {
    case Kind::kMaximal:
      return a.maximal_device() == b.maximal_device();
    case Kind::kTiled:
      return a.tile_assignment() == b.tile_assignment() &&
             a.replicate_on_last_tile_dim() == b.replicate_on_last_tile_dim() &&
             a.subgroup_types() == b.subgroup_types();
    case Kind::kTuple: {
      if (a.tuple_elements().size() != b.tuple_elements().size()) return false;
      for (size_t i = 0; i < a.tuple_elements().size(); ++i) {
        if (!(a.tuple_elements()[i] == b.tuple_elements()[i])) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

}  // namespace

bool HloSharding::operator==(const HloSharding& other) const {
  // Metadata is provenance only and does not make shardings differ.
  if (SameForm(*this, other)) return true;
  if (kind_ == Kind::kTuple || other.kind_ == Kind::kTuple) return false;
  if (kind_ != Kind::kTiled && other.kind_ != Kind::kTiled) return false;
  return SameForm(Normalized(), other.Normalized());
}

}  // namespace xlite
