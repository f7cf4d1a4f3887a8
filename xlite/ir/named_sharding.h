// NamedSharding: the mesh form of a sharding that the newest XLA dumps write
// ("V3", Shardy's TensorShardingAttr in HLO text): a mesh of named axes over
// the devices, per tensor dim the axes or sub-axes that split it (major
// first), and the axes the value is explicitly replicated, unreduced or
// manual over. ToTiledSharding gives the equivalent tile-assignment sharding,
// which is what propagation and the partitioner work with; HloSharding keeps
// the mesh form beside it so that the text prints back as it was written.
#ifndef XLITE_IR_NAMED_SHARDING_H_
#define XLITE_IR_NAMED_SHARDING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xlite/base/optional_hash.h"
#include "xlite/ir/sharding.h"

namespace xlite {

// One axis of a mesh: `'x'=4`.
struct MeshAxis {
  std::string name;
  int64_t size = 0;
  bool operator==(const MeshAxis&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const MeshAxis& x) {
    return H::combine(std::move(h), x.name, x.size);
  }
};

struct Mesh {
  std::vector<MeshAxis> axes;
  // The device at each mesh position (row-major over the axes) when it is not
  // the position itself: `device_ids=(0,2,1,3)` or `device_ids=([4,2]T(1,0))`
  // (a tile assignment whose dims are the axis sizes).
  // Not hashed (TileAssignment has no hash).
  std::optional<TileAssignment> device_ids;
  // `maximal_mesh[device_id=N]`: no axes, one device.
  std::optional<int64_t> maximal_device;
  // How the text wrote the axis names: 'a' (the newest XLA) or a.
  bool quoted_names = true;

  int64_t num_devices() const;  // product of the axis sizes
  bool operator==(const Mesh&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const Mesh& x) {
    return H::combine(std::move(h), x.axes, HashOptional(x.maximal_device), x.quoted_names);
  }
};

// An axis, or the sub-axis `'x':(pre_size)size` of it: the axis seen as
// [pre_size, size, rest] (major to minor) and its middle part.
struct MeshAxisRef {
  int64_t axis = 0;  // index into Mesh::axes
  int64_t pre_size = 1;
  int64_t size = 0;  // of a sub-axis; 0: the whole axis

  bool is_sub_axis() const { return size != 0; }
  // Devices along this axis or sub-axis.
  int64_t SizeIn(const Mesh& mesh) const;
  bool operator==(const MeshAxisRef&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const MeshAxisRef& x) {
    return H::combine(std::move(h), x.axis, x.pre_size, x.size);
  }
};

struct NamedSharding {
  struct Dim {
    std::vector<MeshAxisRef> axes;  // major to minor
    bool open = false;              // `?`: propagation may split it further
    bool operator==(const Dim&) const = default;
  };
  Mesh mesh;
  std::vector<Dim> dims;
  std::vector<MeshAxisRef> replicated, unreduced, manual;

  // As XLA asks: no dim split, no unreduced or manual axis.
  bool IsReplicated() const;
  // Every mesh axis, whole and in order, is manual (unreduced) and nothing else.
  bool IsManual() const;
  bool IsUnreduced() const;
  bool operator==(const NamedSharding&) const = default;
};

// Checks what XLA's VerifyNamedSharding checks: axes in range, sub-axes that
// fit their axis, no axis used twice or overlapping, sub-axes of one axis
// that nest, replicated/unreduced/manual lists sorted, no neighbouring
// sub-axes that would merge; mesh device ids a permutation of 0..n-1.
absl::Status ValidateNamedSharding(const NamedSharding& sharding);

// The tile-assignment sharding with the same meaning (XLA's V3ToV2Sharding):
// tile dims per tensor dim, then manual, unreduced and replicated subgroups
// (every axis part not named elsewhere is replicated). The result has one
// data dim per written dim. Fails on an invalid sharding or a mesh of more
// than kMaxNamedShardingDevices devices.
inline constexpr int64_t kMaxNamedShardingDevices = int64_t{1} << 24;
absl::StatusOr<HloSharding> ToTiledSharding(const NamedSharding& sharding);

// The checks XLA's MeshAxesReplicaGroupList makes on the axes its groups
// span (ValidateSpanOfAxes): a mesh with axes and valid device ids, every
// axis or sub-axis in range and fitting, none overlapping, the sub-axes of
// one axis nesting, no two neighbours that should be written as one.
absl::Status ValidateMeshAxisList(const Mesh& mesh, const std::vector<MeshAxisRef>& axes);

// The groups of such a list, as XLA's flattened_replica_groups: each axis is
// cut where the listed sub-axes begin and end, the mesh's devices are
// transposed so that the unlisted parts come first (in mesh order) and the
// listed ones last (in the written order), and cut into groups of the
// listed axes' size.
absl::StatusOr<std::vector<std::vector<int64_t>>> MeshAxisGroups(
    const Mesh& mesh, const std::vector<MeshAxisRef>& axes);

// XLA writes a mesh sharding that splits no dim with no dims at all (`[]`,
// e.g. `{mesh[...], [], unreduced={'b'}}`); on a value of rank r that means
// r unsplit dims. Returns `s` with such leaves (tuple leaves matched to the
// leaves of `shape`) given the dims of the value they annotate; anything
// else unchanged.
HloSharding FitNamedShardingToShape(const HloSharding& s, const Shape& shape);

}  // namespace xlite

#endif  // XLITE_IR_NAMED_SHARDING_H_
