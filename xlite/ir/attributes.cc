#include "xlite/ir/attributes.h"

namespace xlite {

ComparisonType DefaultComparisonType(PrimitiveType operand_type) {
  if (IsFloat(operand_type) || IsComplex(operand_type)) return ComparisonType::kFloat;
  return IsSignedInt(operand_type) ? ComparisonType::kSigned : ComparisonType::kUnsigned;
}

std::vector<std::vector<int64_t>> ReplicaGroups::Groups() const {
  if (is_mesh()) {
    // A mesh is the iota [rest, selected] <= [mesh] T(unselected..., selected...).
    std::vector<int64_t> dims, perm;
    std::vector<bool> selected(mesh_axes.size(), false);
    for (int64_t axis : mesh_selected) {
      if (axis < 0 || axis >= static_cast<int64_t>(mesh_axes.size()) || selected[axis]) return {};
      selected[axis] = true;
    }
    int64_t size = 1, count = 1;
    for (size_t i = 0; i < mesh_axes.size(); ++i) {
      if (mesh_axes[i].size <= 0) return {};
      dims.push_back(mesh_axes[i].size);
      if (!selected[i]) {
        perm.push_back(static_cast<int64_t>(i));
        count *= mesh_axes[i].size;
      }
    }
    for (int64_t axis : mesh_selected) {
      perm.push_back(axis);
      size *= mesh_axes[axis].size;
    }
    ReplicaGroups iota;
    iota.is_iota = true;
    iota.num_groups = count;
    iota.group_size = size;
    iota.iota_reshape = std::move(dims);
    iota.iota_perm = std::move(perm);
    return iota.Groups();
  }
  if (!is_iota) return groups;
  if (num_groups <= 0 || group_size <= 0) return {};
  // Same device-array arithmetic as an iota tile assignment of shape
  // [num_groups, group_size]; each row is one group.
  std::vector<int64_t> ids =
      TileAssignment::Iota({num_groups, group_size}, iota_reshape, iota_perm).Devices();
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(num_groups));
  for (int64_t g = 0; g < num_groups; ++g) {
    out[g].assign(ids.begin() + g * group_size, ids.begin() + (g + 1) * group_size);
  }
  return out;
}

}  // namespace xlite
