#include "xlite/spmd/shardy_syntax.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>

#include "xlite/base/status.h"

namespace xlite::spmd {
namespace {

// A cursor over one attribute's text; every error quotes the text and the
// position it stopped at.
class SdyReader {
 public:
  explicit SdyReader(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }
  bool Peek(std::string_view token) {
    SkipSpace();
    return text_.substr(pos_, token.size()) == token;
  }
  bool Consume(std::string_view token) {
    if (!Peek(token)) return false;
    pos_ += token.size();
    return true;
  }
  absl::Status Expect(std::string_view token) {
    if (Consume(token)) return absl::OkStatus();
    return Error(Cat("expected '", token, "'"));
  }
  absl::Status Error(std::string_view what) const {
    return InvalidArgument("malformed Shardy attribute \"", text_, "\" at offset ", pos_, ": ",
                           what);
  }

  // "name" (no escapes inside axis and mesh names) or a bare identifier.
  absl::StatusOr<std::string> Name() {
    SkipSpace();
    if (Consume("\"")) {
      const size_t end = text_.find('"', pos_);
      if (end == std::string_view::npos) return Error("unterminated name");
      std::string name(text_.substr(pos_, end - pos_));
      pos_ = end + 1;
      return name;
    }
    const size_t begin = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
            text_[pos_] == '.' || text_[pos_] == '$' || text_[pos_] == '-')) {
      ++pos_;
    }
    if (pos_ == begin) return Error("expected a name");
    return std::string(text_.substr(begin, pos_ - begin));
  }

  absl::StatusOr<int64_t> Int() {
    SkipSpace();
    const size_t begin = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (value > (int64_t{1} << 40)) return Error("integer too large");
      value = value * 10 + (text_[pos_] - '0');
      ++pos_;
    }
    if (pos_ == begin) return Error("expected an integer");
    return value;
  }

  // `<` mesh body `>` after `#sdy.mesh` or `mesh`: `[ "x"=2, ... ]` and an
  // optional `, device_ids=[...]`.
  absl::StatusOr<Mesh> MeshBody() {
    XLITE_RETURN_IF_ERROR(Expect("<"));
    XLITE_RETURN_IF_ERROR(Expect("["));
    Mesh mesh;
    while (!Consume("]")) {
      if (!mesh.axes.empty()) XLITE_RETURN_IF_ERROR(Expect(","));
      MeshAxis axis;
      XLITE_ASSIGN_OR_RETURN(axis.name, Name());
      XLITE_RETURN_IF_ERROR(Expect("="));
      XLITE_ASSIGN_OR_RETURN(axis.size, Int());
      if (axis.size < 1) return Error(Cat("mesh axis \"", axis.name, "\" has size 0"));
      for (const MeshAxis& a : mesh.axes) {
        if (a.name == axis.name) return Error(Cat("mesh axis \"", axis.name, "\" twice"));
      }
      mesh.axes.push_back(std::move(axis));
    }
    if (Consume(",")) {
      XLITE_RETURN_IF_ERROR(Expect("device_ids"));
      XLITE_RETURN_IF_ERROR(Expect("="));
      XLITE_RETURN_IF_ERROR(Expect("["));
      std::vector<int64_t> ids;
      while (!Consume("]")) {
        if (!ids.empty()) XLITE_RETURN_IF_ERROR(Expect(","));
        XLITE_ASSIGN_OR_RETURN(int64_t id, Int());
        ids.push_back(id);
      }
      if (mesh.axes.empty()) {
        if (ids.size() != 1) return Error("a mesh without axes names one device");
        mesh.maximal_device = ids[0];
      } else {
        std::vector<int64_t> sizes;
        for (const MeshAxis& a : mesh.axes) sizes.push_back(a.size);
        if (static_cast<int64_t>(ids.size()) != mesh.num_devices()) {
          return Error("device_ids do not match the mesh's size");
        }
        std::vector<int64_t> sorted = ids;
        std::sort(sorted.begin(), sorted.end());
        for (size_t i = 0; i < sorted.size(); ++i) {
          if (sorted[i] != static_cast<int64_t>(i)) {
            return Error("device_ids are not a permutation of 0..n-1");
          }
        }
        mesh.device_ids = TileAssignment::Explicit(sizes, std::move(ids));
      }
    }
    XLITE_RETURN_IF_ERROR(Expect(">"));
    return mesh;
  }

  // `"x"` or the sub-axis `"x":(pre)size` of `mesh`.
  absl::StatusOr<MeshAxisRef> AxisRef(const Mesh& mesh) {
    XLITE_ASSIGN_OR_RETURN(std::string name, Name());
    auto it = std::find_if(mesh.axes.begin(), mesh.axes.end(),
                           [&](const MeshAxis& a) { return a.name == name; });
    if (it == mesh.axes.end()) return Error(Cat("the mesh has no axis \"", name, "\""));
    MeshAxisRef ref;
    ref.axis = it - mesh.axes.begin();
    if (Consume(":")) {
      XLITE_RETURN_IF_ERROR(Expect("("));
      XLITE_ASSIGN_OR_RETURN(ref.pre_size, Int());
      XLITE_RETURN_IF_ERROR(Expect(")"));
      XLITE_ASSIGN_OR_RETURN(ref.size, Int());
      if (ref.pre_size < 1 || ref.size < 2) return Error("a sub-axis needs (pre>=1)size>=2");
    }
    return ref;
  }

  // `{"x", "y":(2)2, ?}p1`: the axes, whether it is open, a dropped priority.
  absl::StatusOr<NamedSharding::Dim> Dim(const Mesh& mesh) {
    XLITE_RETURN_IF_ERROR(Expect("{"));
    NamedSharding::Dim dim;
    bool first = true;
    while (!Consume("}")) {
      if (!first) XLITE_RETURN_IF_ERROR(Expect(","));
      first = false;
      if (Consume("?")) {
        dim.open = true;
        XLITE_RETURN_IF_ERROR(Expect("}"));
        break;
      }
      XLITE_ASSIGN_OR_RETURN(MeshAxisRef ref, AxisRef(mesh));
      dim.axes.push_back(ref);
    }
    if (Consume("p")) XLITE_RETURN_IF_ERROR(Int().status());
    return dim;
  }

  absl::StatusOr<std::vector<MeshAxisRef>> AxisSet(const Mesh& mesh) {
    XLITE_RETURN_IF_ERROR(Expect("{"));
    std::vector<MeshAxisRef> refs;
    while (!Consume("}")) {
      if (!refs.empty()) XLITE_RETURN_IF_ERROR(Expect(","));
      XLITE_ASSIGN_OR_RETURN(MeshAxisRef ref, AxisRef(mesh));
      refs.push_back(ref);
    }
    return refs;
  }

  // The inside of `<...>` of one sharding: mesh (`@name` or inline), dims,
  // then `replicated={...}` / `unreduced={...}`.
  absl::StatusOr<NamedSharding> ShardingBody(const SdyMeshes& meshes) {
    NamedSharding s;
    if (Consume("@")) {
      XLITE_ASSIGN_OR_RETURN(std::string name, Name());
      auto it = meshes.find(name);
      if (it == meshes.end()) {
        return Error(Cat("unknown mesh @", name, " (not in the module's xla.sdy.meshes)"));
      }
      s.mesh = it->second;
    } else {
      if (!Consume("#sdy.mesh") && !Consume("mesh")) return Error("expected @mesh or mesh<...>");
      XLITE_ASSIGN_OR_RETURN(s.mesh, MeshBody());
    }
    XLITE_RETURN_IF_ERROR(Expect(","));
    XLITE_RETURN_IF_ERROR(Expect("["));
    while (!Consume("]")) {
      if (!s.dims.empty()) XLITE_RETURN_IF_ERROR(Expect(","));
      XLITE_ASSIGN_OR_RETURN(NamedSharding::Dim dim, Dim(s.mesh));
      s.dims.push_back(std::move(dim));
    }
    while (Consume(",")) {
      if (Consume("replicated")) {
        XLITE_RETURN_IF_ERROR(Expect("="));
        XLITE_ASSIGN_OR_RETURN(s.replicated, AxisSet(s.mesh));
      } else if (Consume("unreduced")) {
        XLITE_RETURN_IF_ERROR(Expect("="));
        XLITE_ASSIGN_OR_RETURN(s.unreduced, AxisSet(s.mesh));
      } else {
        return Error("expected replicated= or unreduced=");
      }
    }
    return s;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<SdyMeshes> ParseSdyMeshes(std::string_view text) {
  SdyReader r(text);
  XLITE_RETURN_IF_ERROR(r.Expect("{"));
  SdyMeshes meshes;
  while (!r.Consume("}")) {
    if (!meshes.empty()) XLITE_RETURN_IF_ERROR(r.Expect(","));
    XLITE_ASSIGN_OR_RETURN(std::string name, r.Name());
    XLITE_RETURN_IF_ERROR(r.Expect("="));
    XLITE_RETURN_IF_ERROR(r.Expect("#sdy.mesh"));
    XLITE_ASSIGN_OR_RETURN(Mesh mesh, r.MeshBody());
    if (!meshes.emplace(name, std::move(mesh)).second) {
      return r.Error(Cat("mesh @", name, " defined twice"));
    }
  }
  if (!r.AtEnd()) return r.Error("text after the meshes");
  return meshes;
}

absl::StatusOr<std::vector<NamedSharding>> ParseSdyShardings(std::string_view text,
                                                             const SdyMeshes& meshes) {
  SdyReader r(text);
  std::vector<NamedSharding> shardings;
  if (r.Consume("#sdy.sharding_per_value")) {
    XLITE_RETURN_IF_ERROR(r.Expect("<"));
    XLITE_RETURN_IF_ERROR(r.Expect("["));
    while (!r.Consume("]")) {
      if (!shardings.empty()) XLITE_RETURN_IF_ERROR(r.Expect(","));
      XLITE_RETURN_IF_ERROR(r.Expect("<"));
      XLITE_ASSIGN_OR_RETURN(NamedSharding s, r.ShardingBody(meshes));
      XLITE_RETURN_IF_ERROR(r.Expect(">"));
      shardings.push_back(std::move(s));
    }
  } else {
    XLITE_RETURN_IF_ERROR(r.Expect("#sdy.sharding"));
    XLITE_RETURN_IF_ERROR(r.Expect("<"));
    XLITE_ASSIGN_OR_RETURN(NamedSharding s, r.ShardingBody(meshes));
    shardings.push_back(std::move(s));
  }
  XLITE_RETURN_IF_ERROR(r.Expect(">"));
  if (!r.AtEnd()) return r.Error("text after the sharding");
  return shardings;
}

absl::StatusOr<std::vector<std::string>> ParseSdyManualAxes(std::string_view text) {
  SdyReader r(text);
  XLITE_RETURN_IF_ERROR(r.Expect("#sdy"));
  XLITE_RETURN_IF_ERROR(r.Expect("<"));
  XLITE_RETURN_IF_ERROR(r.Expect("manual_axes"));
  XLITE_RETURN_IF_ERROR(r.Expect("{"));
  std::vector<std::string> axes;
  while (!r.Consume("}")) {
    if (!axes.empty()) XLITE_RETURN_IF_ERROR(r.Expect(","));
    XLITE_ASSIGN_OR_RETURN(std::string name, r.Name());
    axes.push_back(std::move(name));
  }
  XLITE_RETURN_IF_ERROR(r.Expect(">"));
  if (!r.AtEnd()) return r.Error("text after the manual axes");
  return axes;
}

}  // namespace xlite::spmd
