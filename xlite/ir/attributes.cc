#include "xlite/ir/attributes.h"

namespace xlite {

ComparisonType DefaultComparisonType(PrimitiveType operand_type) {
  if (IsFloat(operand_type) || IsComplex(operand_type)) return ComparisonType::kFloat;
  return IsSignedInt(operand_type) ? ComparisonType::kSigned : ComparisonType::kUnsigned;
}

std::vector<std::vector<int64_t>> ReplicaGroups::Groups() const {
  if (is_mesh()) {
    auto expanded = MeshAxisGroups(mesh, mesh_group_axes);
    return expanded.ok() ? *std::move(expanded) : std::vector<std::vector<int64_t>>();
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
