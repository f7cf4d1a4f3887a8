#include "xlite/ir/named_sharding.h"

#include <algorithm>
#include <memory>
#include <numeric>

#include "xlite/base/status.h"

namespace xlite {
namespace {

// The part of its axis a reference covers, as [low, high) positions on the
// axis's major-to-minor scale of sizes: the whole axis is [1, size), the
// sub-axis (p)s is [p, p*s).
struct AxisPart {
  int64_t low, high;
};

AxisPart PartOf(const Mesh& mesh, const MeshAxisRef& ref) {
  if (!ref.is_sub_axis()) return {1, mesh.axes[ref.axis].size};
  return {ref.pre_size, ref.pre_size * ref.size};
}

// Axis references, each with what it belongs to (for messages).
using LabelledRefs = std::vector<std::pair<const MeshAxisRef*, std::string_view>>;

// Every reference of the sharding, dims first.
LabelledRefs AllRefs(const NamedSharding& s) {
  LabelledRefs refs;
  for (const NamedSharding::Dim& dim : s.dims) {
    for (const MeshAxisRef& r : dim.axes) refs.emplace_back(&r, "dimension");
  }
  for (const MeshAxisRef& r : s.replicated) refs.emplace_back(&r, "replicated");
  for (const MeshAxisRef& r : s.unreduced) refs.emplace_back(&r, "unreduced");
  for (const MeshAxisRef& r : s.manual) refs.emplace_back(&r, "manual");
  return refs;
}

// The axes of a mesh replica-group list.
LabelledRefs GroupRefs(const std::vector<MeshAxisRef>& axes) {
  LabelledRefs refs;
  for (const MeshAxisRef& ref : axes) refs.emplace_back(&ref, "replica groups");
  return refs;
}

std::string AxisText(const Mesh& mesh, const MeshAxisRef& ref) {
  std::string text = Cat("'", mesh.axes[ref.axis].name, "'");
  if (ref.is_sub_axis()) text += Cat(":(", ref.pre_size, ")", ref.size);
  return text;
}

bool NoDimSplit(const NamedSharding& s) {
  return std::all_of(s.dims.begin(), s.dims.end(),
                     [](const NamedSharding::Dim& d) { return d.axes.empty(); });
}

// `refs` are exactly the mesh's axes, whole and in order.
bool AllAxesInOrder(const Mesh& mesh, const std::vector<MeshAxisRef>& refs) {
  if (refs.size() != mesh.axes.size()) return false;
  for (size_t i = 0; i < refs.size(); ++i) {
    if (refs[i].is_sub_axis() || refs[i].axis != static_cast<int64_t>(i)) return false;
  }
  return true;
}

absl::Status ValidateMesh(const Mesh& mesh) {
  if (mesh.maximal_device) {
    if (!mesh.axes.empty() || mesh.device_ids) {
      return absl::InvalidArgumentError("a maximal mesh has no axes and no device_ids");
    }
    if (*mesh.maximal_device < 0) return absl::InvalidArgumentError("negative mesh device id");
    return absl::OkStatus();
  }
  int64_t devices = 1;
  for (const MeshAxis& axis : mesh.axes) {
    if (axis.size <= 0 || devices > kMaxNamedShardingDevices / axis.size) {
      return absl::InvalidArgumentError(
          Cat("mesh axis '", axis.name, "' makes the mesh larger than ", kMaxNamedShardingDevices,
              " devices, or has a size below 1"));
    }
    devices *= axis.size;
  }
  if (!mesh.device_ids) return absl::OkStatus();
  std::vector<int64_t> ids = mesh.device_ids->Devices();
  if (static_cast<int64_t>(ids.size()) != devices) {
    return absl::InvalidArgumentError(
        Cat("mesh device_ids name ", ids.size(), " devices, the mesh has ", devices));
  }
  std::sort(ids.begin(), ids.end());
  for (int64_t i = 0; i < devices; ++i) {
    if (ids[i] != i) {
      return absl::InvalidArgumentError(
          Cat("mesh device_ids must be a permutation of 0..", devices - 1));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateRef(const Mesh& mesh, const MeshAxisRef& ref) {
  if (ref.axis < 0 || ref.axis >= static_cast<int64_t>(mesh.axes.size())) {
    return absl::InvalidArgumentError(Cat("mesh axis index ", ref.axis,
                                          " is out of range (the mesh has ", mesh.axes.size(),
                                          " axes)"));
  }
  if (!ref.is_sub_axis()) return absl::OkStatus();
  const int64_t size = mesh.axes[ref.axis].size;
  if (ref.pre_size < 1 || ref.size < 2 || ref.size >= size || ref.pre_size > size / ref.size ||
      size % (ref.pre_size * ref.size) != 0) {
    return absl::InvalidArgumentError(Cat("sub-axis ", AxisText(mesh, ref), " does not fit axis '",
                                          mesh.axes[ref.axis].name, "' of size ", size));
  }
  return absl::OkStatus();
}

bool Mergeable(const MeshAxisRef& a, const MeshAxisRef& b) {
  return a.axis == b.axis && a.is_sub_axis() && b.is_sub_axis() &&
         a.pre_size * a.size == b.pre_size;
}

// The mesh cut, per axis, at every boundary of a part that `refs` use
// (major part first): a shape of parts that the devices are row-major over.
struct MeshParts {
  std::vector<std::vector<int64_t>> bounds;  // per axis, ascending, 1 and the size included
  std::vector<int64_t> sizes;                // every part, axis by axis
  std::vector<int64_t> first;                // per axis, the index of its first part

  MeshParts(const Mesh& mesh, const LabelledRefs& refs) : bounds(mesh.axes.size()) {
    for (size_t k = 0; k < mesh.axes.size(); ++k) bounds[k] = {1, mesh.axes[k].size};
    for (const auto& [ref, list] : refs) {
      const AxisPart part = PartOf(mesh, *ref);
      bounds[ref->axis].push_back(part.low);
      bounds[ref->axis].push_back(part.high);
    }
    for (std::vector<int64_t>& b : bounds) {
      std::sort(b.begin(), b.end());
      b.erase(std::unique(b.begin(), b.end()), b.end());
    }
    for (const std::vector<int64_t>& b : bounds) {
      first.push_back(static_cast<int64_t>(sizes.size()));
      for (size_t i = 1; i < b.size(); ++i) sizes.push_back(b[i] / b[i - 1]);
    }
  }

  // The indices of the parts `ref` covers, major first.
  std::vector<int64_t> Of(const Mesh& mesh, const MeshAxisRef& ref) const {
    const AxisPart part = PartOf(mesh, ref);
    const std::vector<int64_t>& b = bounds[ref.axis];
    const int64_t from = std::lower_bound(b.begin(), b.end(), part.low) - b.begin();
    const int64_t to = std::lower_bound(b.begin(), b.end(), part.high) - b.begin();
    std::vector<int64_t> out;
    for (int64_t i = from; i < to; ++i) out.push_back(first[ref.axis] + i);
    return out;
  }
};

// Each reference fits its axis, no two overlap, and the parts they cut each
// axis into nest (every boundary divides the next).
absl::Status ValidateRefs(const Mesh& mesh, const LabelledRefs& refs) {
  for (const auto& [ref, list] : refs) XLITE_RETURN_IF_ERROR(ValidateRef(mesh, *ref));
  for (size_t i = 0; i < refs.size(); ++i) {
    for (size_t j = i + 1; j < refs.size(); ++j) {
      const MeshAxisRef& a = *refs[i].first;
      const MeshAxisRef& b = *refs[j].first;
      if (a.axis != b.axis) continue;
      const AxisPart pa = PartOf(mesh, a), pb = PartOf(mesh, b);
      if (pa.low < pb.high && pb.low < pa.high) {
        return absl::InvalidArgumentError(Cat("mesh axis ", AxisText(mesh, a), " (", refs[i].second,
                                              ") overlaps ", AxisText(mesh, b), " (",
                                              refs[j].second, ")"));
      }
    }
  }
  const MeshParts parts(mesh, refs);
  for (size_t k = 0; k < parts.bounds.size(); ++k) {
    const std::vector<int64_t>& b = parts.bounds[k];
    for (size_t i = 1; i < b.size(); ++i) {
      if (b[i] % b[i - 1] != 0) {
        return absl::InvalidArgumentError(
            Cat("the sub-axes of mesh axis '", mesh.axes[k].name, "' do not nest"));
      }
    }
  }
  return absl::OkStatus();
}

// The device at each mesh position, row-major over the axes.
std::vector<int64_t> MeshDevices(const Mesh& mesh) {
  if (mesh.device_ids) return mesh.device_ids->Devices();
  std::vector<int64_t> devices(static_cast<size_t>(mesh.num_devices()));
  std::iota(devices.begin(), devices.end(), 0);
  return devices;
}

}  // namespace

int64_t Mesh::num_devices() const {
  int64_t n = 1;
  for (const MeshAxis& axis : axes) n *= axis.size;
  return n;
}

int64_t MeshAxisRef::SizeIn(const Mesh& mesh) const {
  return is_sub_axis() ? size : mesh.axes[axis].size;
}

bool NamedSharding::IsReplicated() const {
  return !mesh.maximal_device && NoDimSplit(*this) && unreduced.empty() && manual.empty();
}

bool NamedSharding::IsManual() const {
  return !mesh.maximal_device && NoDimSplit(*this) && replicated.empty() && unreduced.empty() &&
         AllAxesInOrder(mesh, manual);
}

bool NamedSharding::IsUnreduced() const {
  return !mesh.maximal_device && NoDimSplit(*this) && replicated.empty() && manual.empty() &&
         AllAxesInOrder(mesh, unreduced);
}

absl::Status ValidateNamedSharding(const NamedSharding& s) {
  XLITE_RETURN_IF_ERROR(ValidateMesh(s.mesh));
  const auto refs = AllRefs(s);
  if (s.mesh.maximal_device && !refs.empty()) {
    return absl::InvalidArgumentError("a maximal mesh cannot split or name axes");
  }
  XLITE_RETURN_IF_ERROR(ValidateRefs(s.mesh, refs));
  auto check_list = [&](const std::vector<MeshAxisRef>& list,
                        std::string_view what) -> absl::Status {
    for (size_t i = 1; i < list.size(); ++i) {
      const MeshAxisRef& a = list[i - 1];
      const MeshAxisRef& b = list[i];
      if (std::make_pair(a.axis, a.pre_size) > std::make_pair(b.axis, b.pre_size)) {
        return absl::InvalidArgumentError(
            Cat(what, " axes must be sorted by mesh axis and sub-axis pre-size"));
      }
      if (Mergeable(a, b)) {
        return absl::InvalidArgumentError(Cat(what, " axes ", AxisText(s.mesh, a), " and ",
                                              AxisText(s.mesh, b), " should be written as one"));
      }
    }
    return absl::OkStatus();
  };
  for (const NamedSharding::Dim& dim : s.dims) {
    for (size_t i = 1; i < dim.axes.size(); ++i) {
      if (Mergeable(dim.axes[i - 1], dim.axes[i])) {
        return absl::InvalidArgumentError(Cat("dimension axes ", AxisText(s.mesh, dim.axes[i - 1]),
                                              " and ", AxisText(s.mesh, dim.axes[i]),
                                              " should be written as one"));
      }
    }
  }
  XLITE_RETURN_IF_ERROR(check_list(s.replicated, "replicated"));
  XLITE_RETURN_IF_ERROR(check_list(s.unreduced, "unreduced"));
  return check_list(s.manual, "manual");
}

absl::StatusOr<HloSharding> ToTiledSharding(const NamedSharding& s) {
  XLITE_RETURN_IF_ERROR(ValidateNamedSharding(s));
  if (s.mesh.maximal_device) return HloSharding::Maximal(*s.mesh.maximal_device);
  if (s.IsReplicated()) return HloSharding::Replicated();
  if (s.IsManual()) return HloSharding::Manual();
  if (s.IsUnreduced()) return HloSharding::Unreduced();

  // The mesh as an array of parts: each axis cut at every boundary a
  // reference uses, major part first.
  const MeshParts parts(s.mesh, AllRefs(s));
  std::vector<bool> used(parts.sizes.size(), false);
  std::vector<int64_t> perm, tile_dims;
  // Appends the parts of `refs` to the transposed order; returns their size.
  auto take = [&](const std::vector<MeshAxisRef>& refs) {
    int64_t size = 1;
    for (const MeshAxisRef& ref : refs) {
      for (int64_t p : parts.Of(s.mesh, ref)) {
        perm.push_back(p);
        used[p] = true;
        size *= parts.sizes[p];
      }
    }
    return size;
  };
  for (const NamedSharding::Dim& dim : s.dims) tile_dims.push_back(take(dim.axes));
  std::vector<OpShardingType> types;
  if (!s.manual.empty()) {
    tile_dims.push_back(take(s.manual));
    types.push_back(OpShardingType::kManual);
  }
  if (!s.unreduced.empty()) {
    tile_dims.push_back(take(s.unreduced));
    types.push_back(OpShardingType::kUnreduced);
  }
  int64_t replicated = 1;
  for (size_t p = 0; p < parts.sizes.size(); ++p) {
    if (used[p]) continue;
    perm.push_back(static_cast<int64_t>(p));
    replicated *= parts.sizes[p];
  }
  if (replicated > 1) {
    tile_dims.push_back(replicated);
    types.push_back(OpShardingType::kReplicated);
  }

  TileAssignment tiles =
      CanonicalTileAssignment(tile_dims, TransposeDevices(MeshDevices(s.mesh), parts.sizes, perm));
  if (types.size() == 1 && types[0] == OpShardingType::kReplicated) {
    return HloSharding::Tiled(std::move(tiles), /*last_tile_dim_replicate=*/true);
  }
  return HloSharding::Tiled(std::move(tiles), false, std::move(types));
}

absl::Status ValidateMeshAxisList(const Mesh& mesh, const std::vector<MeshAxisRef>& axes) {
  if (mesh.axes.empty()) return absl::InvalidArgumentError("a mesh needs at least one axis");
  XLITE_RETURN_IF_ERROR(ValidateMesh(mesh));
  XLITE_RETURN_IF_ERROR(ValidateRefs(mesh, GroupRefs(axes)));
  for (size_t i = 1; i < axes.size(); ++i) {
    if (Mergeable(axes[i - 1], axes[i])) {
      return absl::InvalidArgumentError(Cat("replica group axes ", AxisText(mesh, axes[i - 1]),
                                            " and ", AxisText(mesh, axes[i]),
                                            " should be written as one"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::vector<int64_t>>> MeshAxisGroups(
    const Mesh& mesh, const std::vector<MeshAxisRef>& axes) {
  XLITE_RETURN_IF_ERROR(ValidateMeshAxisList(mesh, axes));
  const MeshParts parts(mesh, GroupRefs(axes));
  std::vector<bool> listed(parts.sizes.size(), false);
  std::vector<int64_t> grouped;
  int64_t group_size = 1;
  for (const MeshAxisRef& ref : axes) {
    for (int64_t p : parts.Of(mesh, ref)) {
      grouped.push_back(p);
      listed[p] = true;
      group_size *= parts.sizes[p];
    }
  }
  std::vector<int64_t> perm;
  for (size_t p = 0; p < parts.sizes.size(); ++p) {
    if (!listed[p]) perm.push_back(static_cast<int64_t>(p));
  }
  perm.insert(perm.end(), grouped.begin(), grouped.end());
  const std::vector<int64_t> devices = TransposeDevices(MeshDevices(mesh), parts.sizes, perm);
  std::vector<std::vector<int64_t>> groups;
  for (auto it = devices.begin(); it != devices.end(); it += group_size) {
    groups.emplace_back(it, it + group_size);
  }
  return groups;
}

HloSharding FitNamedShardingToShape(const HloSharding& s, const Shape& shape) {
  if (s.IsTuple()) {
    std::vector<const Shape*> leaves;
    auto collect = [&](const Shape& sh, auto& self) -> void {
      if (!sh.IsTuple()) {
        leaves.push_back(&sh);
        return;
      }
      for (const Shape& e : sh.tuple_shapes()) self(e, self);
    };
    collect(shape, collect);
    if (leaves.size() != s.tuple_elements().size()) return s;
    HloSharding out = s;
    for (size_t i = 0; i < leaves.size(); ++i) {
      out.mutable_tuple_elements()[i] = FitNamedShardingToShape(s.tuple_elements()[i], *leaves[i]);
    }
    return out;
  }
  const NamedSharding* named = s.named();
  if (named == nullptr || !named->dims.empty() || !s.IsTiled() || !shape.IsArray() ||
      shape.rank() == 0) {
    return s;
  }
  NamedSharding fitted = *named;
  fitted.dims.resize(static_cast<size_t>(shape.rank()));
  absl::StatusOr<HloSharding> tiled = ToTiledSharding(fitted);
  if (!tiled.ok()) return s;
  HloSharding out = *std::move(tiled);
  out.mutable_metadata() = s.metadata();
  out.set_named(std::make_shared<const NamedSharding>(*named));
  return out;
}

}  // namespace xlite
