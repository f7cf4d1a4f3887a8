// The mesh ("V3") form of `sharding=` (spec §3.3), as the newest XLA prints
// it: `{mesh['a'=2,'b'=4], [{'a'}, {'b':(2)2, ?}], replicated={...},
// unreduced={...}, manual={...}, metadata={...}}`, the words `replicated`,
// `unreduced`, `manual` for the whole mesh, `device_ids=(...)` after the
// mesh, and `{maximal_mesh[device_id=N]}`. Axes are named, quoted ('a') as the
// newest XLA writes them or bare (a) as earlier versions did, or indexed.
#include <memory>

#include "xlite/base/status.h"
#include "xlite/text/parser_impl.h"

namespace xlite {

absl::Status HloTextParser::ParseMeshAxisRef(const Mesh& mesh, MeshAxisRef* ref) {
  const size_t offset = tok().offset;
  if (kind() == TokKind::kInt) {
    XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&ref->axis));
  } else {
    std::string name;
    XLITE_RETURN_IF_ERROR(ParseMeshAxisName(&name, nullptr));
    auto it = std::find_if(mesh.axes.begin(), mesh.axes.end(),
                           [&](const MeshAxis& a) { return a.name == name; });
    if (it == mesh.axes.end()) return ErrorAt(offset, Cat("no mesh axis '", name, "'"));
    ref->axis = it - mesh.axes.begin();
  }
  if (ref->axis >= static_cast<int64_t>(mesh.axes.size())) {
    return ErrorAt(offset, Cat("mesh axis index ", ref->axis, " is out of range"));
  }
  if (!Consume(TokKind::kColon)) return absl::OkStatus();
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' before a sub-axis pre-size"));
  XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&ref->pre_size));
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
  XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&ref->size));
  if (ref->size == 0) return ErrorAt(offset, "a sub-axis needs a size of at least 2");
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseMeshDeviceIds(Mesh* mesh) {
  const size_t offset = tok().offset;
  if (mesh->maximal_device || mesh->device_ids) {
    return ErrorAt(offset, "device_ids= needs a mesh with axes and is written once");
  }
  std::vector<int64_t> axis_sizes;
  for (const MeshAxis& axis : mesh->axes) axis_sizes.push_back(axis.size);
  if (kind() == TokKind::kLparen && lexer_.Peek().kind == TokKind::kLbracket) {
    Advance();
    std::vector<int64_t> reshape, perm;
    XLITE_RETURN_IF_ERROR(ParseBracketIntList(&reshape));
    if (AtIdent("T")) {
      Advance();
      XLITE_RETURN_IF_ERROR(ParseParenIntList(&perm));
    }
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' closing device_ids"));
    XLITE_RETURN_IF_ERROR(CheckIotaForm(offset, reshape, &perm, mesh->num_devices()));
    mesh->device_ids = TileAssignment::Iota(axis_sizes, reshape, perm);
    return absl::OkStatus();
  }
  std::vector<int64_t> ids;
  XLITE_RETURN_IF_ERROR(ParseDelimitedInts(TokKind::kLparen, TokKind::kRparen, "(", &ids));
  mesh->device_ids = TileAssignment::Explicit(axis_sizes, std::move(ids));
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseNamedSharding(size_t offset, HloSharding* sharding) {
  auto named = std::make_shared<NamedSharding>();
  Mesh& mesh = named->mesh;
  if (AtIdent("maximal_mesh")) {
    Advance();
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kLbracket, "'['"));
    if (kind() != TokKind::kAttrName || tok().text != "device_id") return Expected("device_id=");
    Advance();
    int64_t device = 0;
    XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&device));
    mesh.maximal_device = device;
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kRbracket, "']'"));
  } else {
    Advance();  // `mesh`
    XLITE_RETURN_IF_ERROR(ParseMeshAxes(&mesh.axes, &mesh.quoted_names));
  }
  auto parse_axes = [&](std::vector<MeshAxisRef>* refs) {
    return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&] {
      refs->emplace_back();
      return ParseMeshAxisRef(mesh, &refs->back());
    });
  };
  auto parse_dim = [&](NamedSharding::Dim* dim) {
    return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
      if (dim->open) return Expected("'}' after '?'");
      if (Consume(TokKind::kQuestion)) {
        dim->open = true;
        return absl::OkStatus();
      }
      dim->axes.emplace_back();
      return ParseMeshAxisRef(mesh, &dim->axes.back());
    });
  };
  std::vector<OpMetadata> metadata;
  bool has_dims = false, whole_mesh_word = false;
  while (Consume(TokKind::kComma)) {
    const std::string_view word = tok().text;
    if (kind() == TokKind::kIdent &&
        (word == "replicated" || word == "unreduced" || word == "manual")) {
      if (whole_mesh_word) return Error("a mesh sharding names more than one kind");
      whole_mesh_word = true;
      for (size_t k = 0; word != "replicated" && k < mesh.axes.size(); ++k) {
        MeshAxisRef ref;
        ref.axis = static_cast<int64_t>(k);
        (word == "manual" ? named->manual : named->unreduced).push_back(ref);
      }
      Advance();
    } else if (kind() == TokKind::kLbracket) {
      if (has_dims) return Error("a mesh sharding lists its dimensions once");
      has_dims = true;
      XLITE_RETURN_IF_ERROR(ParseDelimited(TokKind::kLbracket, TokKind::kRbracket, "[", [&] {
        named->dims.emplace_back();
        return parse_dim(&named->dims.back());
      }));
    } else if (kind() == TokKind::kAttrName && word == "device_ids") {
      Advance();
      XLITE_RETURN_IF_ERROR(ParseMeshDeviceIds(&mesh));
    } else if (kind() == TokKind::kAttrName && word == "replicated") {
      Advance();
      XLITE_RETURN_IF_ERROR(parse_axes(&named->replicated));
    } else if (kind() == TokKind::kAttrName && word == "unreduced") {
      Advance();
      XLITE_RETURN_IF_ERROR(parse_axes(&named->unreduced));
    } else if (kind() == TokKind::kAttrName && word == "manual") {
      Advance();
      XLITE_RETURN_IF_ERROR(parse_axes(&named->manual));
    } else if (kind() == TokKind::kAttrName && word == "metadata") {
      Advance();
      XLITE_RETURN_IF_ERROR(ParseShardingMetadata(&metadata));
    } else {
      return Error(Cat("unknown mesh sharding attribute '", word, "'"));
    }
  }
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "',' or '}' in a mesh sharding"));
  if (whole_mesh_word && has_dims) {
    return ErrorAt(offset, "a mesh sharding is either a kind word or a list of dimensions");
  }
  absl::StatusOr<HloSharding> tiled = ToTiledSharding(*named);
  if (!tiled.ok()) return ErrorAt(offset, std::string(tiled.status().message()));
  *sharding = *std::move(tiled);
  sharding->mutable_metadata() = std::move(metadata);
  sharding->set_named(std::move(named));
  return absl::OkStatus();
}

}  // namespace xlite
