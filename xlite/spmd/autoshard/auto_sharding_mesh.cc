#include "xlite/spmd/autoshard/auto_sharding_mesh.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace xlite::spmd {

int64_t DeviceMesh::num_devices() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

std::string DeviceMesh::ToString() const {
  return absl::StrCat(absl::StrJoin(sizes, "x"), ":", absl::StrJoin(names, ","));
}

absl::StatusOr<DeviceMesh> ParseMesh(std::string_view input) {
  // This abseil's string_view is its own type.
  const absl::string_view text(input.data(), input.size());
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad mesh '", text, "': ", why, " (expected e.g. 8, 2x4 or 2x4:data,model)"));
  };
  absl::string_view shape = text, names;
  if (size_t colon = text.find(':'); colon != absl::string_view::npos) {
    shape = text.substr(0, colon);
    names = text.substr(colon + 1);
  }
  DeviceMesh mesh;
  int64_t devices = 1;
  for (absl::string_view piece : absl::StrSplit(shape, 'x')) {
    int64_t size = 0;
    if (!absl::SimpleAtoi(piece, &size) || size < 1) {
      return bad(absl::StrCat("'", piece, "' is not a positive axis size"));
    }
    devices *= size;
    if (devices > (int64_t{1} << 31)) return bad("more than 2^31 devices");
    mesh.sizes.push_back(size);
  }
  if (!names.empty()) {
    for (absl::string_view name : absl::StrSplit(names, ',')) {
      if (name.empty()) return bad("an empty axis name");
      if (std::find(mesh.names.begin(), mesh.names.end(), name) != mesh.names.end()) {
        return bad(absl::StrCat("axis name '", name, "' given twice"));
      }
      mesh.names.emplace_back(name.data(), name.size());
    }
    if (mesh.names.size() != mesh.sizes.size()) {
      return bad(absl::StrCat(mesh.sizes.size(), " axes but ", mesh.names.size(), " names"));
    }
  } else {
    for (size_t a = 0; a < mesh.sizes.size(); ++a) mesh.names.push_back(absl::StrCat("a", a));
  }
  return mesh;
}

HloSharding MeshSharding(const DeviceMesh& mesh,
                         const std::vector<std::vector<int64_t>>& dim_axes) {
  std::vector<int64_t> tile_dims, perm;
  std::vector<bool> used(mesh.sizes.size(), false);
  bool split = false;
  for (const std::vector<int64_t>& axes : dim_axes) {
    int64_t tiles = 1;
    for (int64_t a : axes) {
      tiles *= mesh.sizes[a];
      used[a] = true;
      perm.push_back(a);
    }
    split = split || tiles > 1;
    tile_dims.push_back(tiles);
  }
  if (!split) return HloSharding::Replicated();
  int64_t replicated = 1;
  for (int64_t a = 0; a < mesh.num_axes(); ++a) {
    if (used[a]) continue;
    replicated *= mesh.sizes[a];
    perm.push_back(a);
  }
  if (replicated > 1) tile_dims.push_back(replicated);
  return HloSharding::Tiled(TileAssignment::Iota(tile_dims, mesh.sizes, perm),
                            /*last_tile_dim_replicate=*/replicated > 1)
      .Normalized();
}

}  // namespace xlite::spmd
