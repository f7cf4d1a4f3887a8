// The device mesh auto-sharding searches over (`2x4:data,model`): named axes
// of devices numbered row-major, and the HloSharding of a tensor whose dims
// are split over some of those axes (the rest replicate it).
#ifndef XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_MESH_H_
#define XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_MESH_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/ir/sharding.h"

namespace xlite::spmd {

struct DeviceMesh {
  std::vector<int64_t> sizes;      // major to minor
  std::vector<std::string> names;  // one per axis

  int64_t num_devices() const;
  int64_t num_axes() const { return static_cast<int64_t>(sizes.size()); }
  // "2x4:data,model".
  std::string ToString() const;
};

// `AxBxC[:name,name,name]`; unnamed axes are called a0, a1, ... . Every size
// is at least 1 and the device count fits in 2^31.
absl::StatusOr<DeviceMesh> ParseMesh(std::string_view text);

// Per tensor dim, the mesh axes it is split over (major first). Axes on no
// dim replicate the tensor. Replicated() when nothing is split.
HloSharding MeshSharding(const DeviceMesh& mesh, const std::vector<std::vector<int64_t>>& dim_axes);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_MESH_H_
