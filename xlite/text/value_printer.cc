// Text of HLO values: numbers, strings, literals, shardings, metadata and
// frontend attributes.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/escaping.h"
#include "xlite/ir/attribute_names.h"
#include "xlite/ir/float_format.h"
#include "xlite/ir/named_sharding.h"
#include "xlite/text/printer_internal.h"

namespace xlite::printer_internal {
namespace {

void AppendUnsigned(uint64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

// `nan`, `-nan`, `nan(0x7f)`: XLA writes the payload unless it is the default.
void AppendNan(bool negative, uint64_t payload, std::string* out) {
  if (negative) out->push_back('-');
  out->append("nan");
  if (payload != 0) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "(0x%llx)", static_cast<unsigned long long>(payload));
    out->append(buf);
  }
}

void AppendArrayElement(const Literal& literal, int64_t i, std::string* out) {
  PrimitiveType type = literal.shape().element_type();
  switch (KindOf(type)) {
    case TypeKind::kPred:  // as XLA: `true` for a scalar, `1` inside an array
      if (literal.shape().rank() == 0) {
        out->append(literal.GetInt64(i) != 0 ? "true" : "false");
      } else {
        out->push_back(literal.GetInt64(i) != 0 ? '1' : '0');
      }
      return;
    case TypeKind::kSignedInt:
      AppendInt(literal.GetInt64(i), out);
      return;
    case TypeKind::kUnsignedInt:
      AppendUnsigned(static_cast<uint64_t>(literal.GetInt64(i)), out);
      return;
    case TypeKind::kFloat: {
      double value = literal.GetDouble(i);
      if (std::isnan(value)) {  // the payload from the bits: doubles lose it
        AppendNan(std::signbit(value), PrintedNanPayload(literal.GetBits(i), type), out);
      } else {
        AppendFloat(value, type, out);
      }
      return;
    }
    case TypeKind::kComplex: {
      std::complex<double> c = literal.GetComplex(i);
      PrimitiveType part = ComplexComponentType(type);
      out->push_back('(');
      AppendFloat(c.real(), part, out);
      out->append(", ");
      AppendFloat(c.imag(), part, out);
      out->push_back(')');
      return;
    }
    default:
      XLITE_CHECK(false);
  }
}

// Dimension `dim` of an array literal starting at linear element `*next`
// (`parent_index`: the index taken in dimension dim-1), spaced as XLA's
// one-line literal printer does: rank 1 `{a, b}`; in higher ranks the
// innermost level `{ a, b }` (`{a}` for one element) inside `{ ... }`, and
// from rank 4 on each inner level opens with `/*iK=n*/`, the index it sits at.
void AppendArrayLevel(const Literal& literal, int64_t dim, int64_t parent_index, int64_t* next,
                      std::string* out) {
  const Shape& shape = literal.shape();
  const int64_t rank = shape.rank();
  const int64_t size = shape.dimensions(dim);
  const bool innermost = dim + 1 == rank;
  std::string_view close = " }";
  if (rank == 1) {
    out->push_back('{');
    close = "}";
  } else if (innermost) {
    out->append(size <= 1 ? "{" : "{ ");
    if (size <= 1) close = "}";
  } else if (rank > 3 && dim > 0) {
    out->append("{ /*i");
    AppendInt(dim - 1, out);
    out->push_back('=');
    AppendInt(parent_index, out);
    out->append(size > 0 ? "*/ " : "*/");
  } else {
    out->append("{ ");
  }
  for (int64_t i = 0; i < size; ++i) {
    if (i > 0) out->append(", ");
    if (innermost) {
      AppendArrayElement(literal, (*next)++, out);
    } else {
      AppendArrayLevel(literal, dim + 1, i, next, out);
    }
  }
  out->append(close);
}

// `( a, b )`, as XLA writes a tuple literal on one line; `element` writes
// each element.
void AppendTupleText(const Literal& literal, void (*element)(const Literal&, std::string*),
                     std::string* out) {
  out->append("( ");
  for (size_t i = 0; i < literal.tuple_elements().size(); ++i) {
    if (i > 0) out->append(", ");
    element(literal.tuple_elements()[i], out);
  }
  out->append(" )");
}

// `, replicated={'a', 'b'}` (nothing for an empty list).
void AppendMeshAxisList(std::string_view key, const Mesh& mesh,
                        const std::vector<MeshAxisRef>& refs, std::string* out) {
  if (refs.empty()) return;
  out->append(", ");
  out->append(key);
  out->append("={");
  for (size_t i = 0; i < refs.size(); ++i) {
    if (i > 0) out->append(", ");
    AppendMeshAxisRef(mesh, refs[i], out);
  }
  out->push_back('}');
}

// `{{op_name="a"}, {op_name="b"}}`.
void AppendMetadataList(const std::vector<OpMetadata>& metadata, std::string* out) {
  out->push_back('{');
  for (size_t i = 0; i < metadata.size(); ++i) {
    if (i > 0) out->append(", ");
    AppendMetadataText(metadata[i], out);
  }
  out->push_back('}');
}

// What follows the mesh of a sharding that is not maximal: the kind words
// where they say it all, else the dims (all unsplit ones written `[]`) and
// the replicated, unreduced and manual axes.
void AppendNamedShardingSplits(const NamedSharding& n, std::string* out) {
  if (n.IsReplicated() && n.replicated.empty()) {
    out->append(", replicated");
    return;
  }
  if (n.IsUnreduced()) {
    out->append(", unreduced");
    return;
  }
  if (n.IsManual()) {
    out->append(", manual");
    return;
  }
  out->append(", [");
  const bool any_split = std::any_of(n.dims.begin(), n.dims.end(),
                                     [](const NamedSharding::Dim& d) { return !d.axes.empty(); });
  for (size_t i = 0; any_split && i < n.dims.size(); ++i) {
    if (i > 0) out->append(", ");
    out->push_back('{');
    for (size_t j = 0; j < n.dims[i].axes.size(); ++j) {
      if (j > 0) out->append(", ");
      AppendMeshAxisRef(n.mesh, n.dims[i].axes[j], out);
    }
    if (n.dims[i].open) out->append(n.dims[i].axes.empty() ? "?" : ", ?");
    out->push_back('}');
  }
  out->push_back(']');
  AppendMeshAxisList("replicated", n.mesh, n.replicated, out);
  AppendMeshAxisList("unreduced", n.mesh, n.unreduced, out);
  AppendMeshAxisList("manual", n.mesh, n.manual, out);
}

// The mesh form as XLA writes it; metadata always as a list.
void AppendNamedShardingItems(const NamedSharding& n, const std::vector<OpMetadata>& metadata,
                              std::string* out) {
  AppendMesh(n.mesh, out);
  if (!n.mesh.maximal_device) AppendNamedShardingSplits(n, out);
  if (metadata.empty()) return;
  out->append(", metadata=");
  AppendMetadataList(metadata, out);
}

void AppendShardingItems(const HloSharding& s, std::string* out) {
  if (s.named() != nullptr) {
    AppendNamedShardingItems(*s.named(), s.metadata(), out);
    return;
  }
  using Kind = HloSharding::Kind;
  switch (s.kind()) {
    case Kind::kReplicated:
      out->append("replicated");
      break;
    case Kind::kManual:
      out->append("manual");
      break;
    case Kind::kUnknown:
      out->append("unknown");
      break;
    case Kind::kUnreduced:
      out->append("unreduced");
      break;
    case Kind::kMaximal:
      out->append("maximal device=");
      AppendInt(s.maximal_device(), out);
      break;
    case Kind::kTiled: {
      const TileAssignment& t = s.tile_assignment();
      out->append("devices=[");
      AppendIntsJoined(t.dims(), out);
      out->push_back(']');
      if (t.is_iota()) {
        AppendIotaDevices(t.reshape_dims(), t.transpose_perm(), out);
      } else {
        AppendIntsJoined(t.explicit_devices(), out);
      }
      if (s.replicate_on_last_tile_dim()) out->append(" last_tile_dim_replicate");
      if (!s.subgroup_types().empty()) {
        out->append(" last_tile_dims={");
        for (size_t i = 0; i < s.subgroup_types().size(); ++i) {
          if (i > 0) out->append(", ");
          AppendEnumName(s.subgroup_types()[i], out);
        }
        out->push_back('}');
      }
      break;
    }
    case Kind::kTuple:
      XLITE_CHECK(false);
  }
  if (s.shard_group()) {
    out->append(s.shard_group()->shard_as ? " shard_as " : " shard_like ");
    AppendInt(s.shard_group()->id, out);
  }
  if (!s.metadata().empty()) {
    out->append(" metadata=");
    if (s.metadata().size() == 1) {
      AppendMetadataText(s.metadata()[0], out);
    } else {
      AppendMetadataList(s.metadata(), out);
    }
  }
}

}  // namespace

void AppendMeshAxisRef(const Mesh& mesh, const MeshAxisRef& ref, std::string* out) {
  AppendMeshAxisName(mesh.axes[ref.axis].name, mesh.quoted_names, out);
  if (!ref.is_sub_axis()) return;
  out->append(":(");
  AppendInt(ref.pre_size, out);
  out->push_back(')');
  AppendInt(ref.size, out);
}

void AppendMesh(const Mesh& mesh, std::string* out) {
  if (mesh.maximal_device) {
    out->append("maximal_mesh[device_id=");
    AppendInt(*mesh.maximal_device, out);
    out->push_back(']');
    return;
  }
  AppendMeshAxes(mesh.axes, mesh.quoted_names, out);
  if (!mesh.device_ids) return;
  const TileAssignment& ids = *mesh.device_ids;
  out->append(", device_ids=(");
  if (ids.is_iota()) {
    out->push_back('[');
    AppendIntsJoined(ids.reshape_dims(), out);
    out->push_back(']');
    if (ids.reshape_dims().size() > 1 && !ids.transpose_perm().empty()) {
      out->append("T(");
      AppendIntsJoined(ids.transpose_perm(), out);
      out->push_back(')');
    }
  } else {
    AppendIntsJoined(ids.explicit_devices(), out);
  }
  out->push_back(')');
}

void AppendInt(int64_t v, std::string* out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, r.ptr);
}

void AppendIntsJoined(absl::Span<const int64_t> values, std::string* out) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendInt(values[i], out);
  }
}

void AppendIotaDevices(absl::Span<const int64_t> reshape, absl::Span<const int64_t> perm,
                       std::string* out) {
  out->append("<=[");
  AppendIntsJoined(reshape, out);
  out->push_back(']');
  if (reshape.size() > 1) {
    out->append("T(");
    AppendIntsJoined(perm, out);
    out->push_back(')');
  }
}

void AppendMeshAxisName(std::string_view name, bool quoted, std::string* out) {
  if (quoted) out->push_back('\'');
  out->append(name);
  if (quoted) out->push_back('\'');
}

void AppendMeshAxes(const std::vector<MeshAxis>& axes, bool quoted, std::string* out) {
  out->append("mesh[");
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendMeshAxisName(axes[i].name, quoted, out);
    out->push_back('=');
    AppendInt(axes[i].size, out);
  }
  out->push_back(']');
}

void AppendIntList(absl::Span<const int64_t> values, std::string* out) {
  out->push_back('{');
  AppendIntsJoined(values, out);
  out->push_back('}');
}

void AppendShapeIndex(absl::Span<const int64_t> index, std::string* out) {
  AppendIntList(index, out);
}

void AppendQuoted(std::string_view text, std::string* out) {
  out->push_back('"');
  out->append(absl::CEscape(absl::string_view(text.data(), text.size())));
  out->push_back('"');
}

void AppendFloat(double value, PrimitiveType type, std::string* out) {
  if (std::isnan(value)) {
    AppendNan(std::signbit(value), PrintedNanPayload(EncodeFloat(value, type), type), out);
    return;
  }
  if (std::isinf(value)) {
    out->append(value < 0 ? "-inf" : "inf");
    return;
  }
  char buf[64];
  if (type == PrimitiveType::F64) {
    auto r = std::to_chars(buf, buf + sizeof buf, value);
    out->append(buf, r.ptr);
    return;
  }
  if (type == PrimitiveType::F32) {
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(value));
    out->append(buf, r.ptr);
    return;
  }
  // Narrow types: small integers as such (`65504`, not `6.55e+04`), else the
  // fewest significant digits that encode back to the same bits.
  if (value == std::trunc(value) && std::fabs(value) < 1e6) {
    int n = std::snprintf(buf, sizeof buf, "%.0f", value);
    out->append(buf, n);
    return;
  }
  uint64_t bits = EncodeFloat(value, type);
  for (int precision = 1; precision <= 17; ++precision) {
    int n = std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (EncodeFloat(std::strtod(buf, nullptr), type) == bits || precision == 17) {
      out->append(buf, n);
      return;
    }
  }
}

void AppendLiteralText(const Literal& literal, std::string* out) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    AppendTupleText(literal, &AppendLiteralText, out);
    return;
  }
  if (shape.rank() == 0) {
    AppendArrayElement(literal, 0, out);
    return;
  }
  int64_t next = 0;
  AppendArrayLevel(literal, 0, 0, &next, out);
}

void AppendName(std::string_view name, bool percent, std::string* out) {
  char c = name.empty() ? '\0' : name[0];
  bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  if (percent || !word || name == "inf" || name == "nan" || name == "ROOT" || name == "ENTRY" ||
      name == "HloModule" || PrimitiveTypeFromName(name)) {
    out->push_back('%');
  }
  out->append(name);
}

void AppendShapedLiteralText(const Literal& literal, std::string* out) {
  if (!literal.shape().IsTuple()) {
    literal.shape().AppendTo(out);
    out->push_back(' ');
    AppendLiteralText(literal, out);
    return;
  }
  AppendTupleText(literal, &AppendShapedLiteralText, out);
}

void AppendShardingText(const HloSharding& sharding, std::string* out) {
  out->push_back('{');
  if (sharding.IsTuple()) {
    const auto& elements = sharding.tuple_elements();
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i > 0) out->append(", ");
      if (i > 0 && i % 5 == 0) {
        out->append("/*index=");
        AppendInt(static_cast<int64_t>(i), out);
        out->append("*/");
      }
      AppendShardingText(elements[i], out);
    }
  } else {
    AppendShardingItems(sharding, out);
  }
  out->push_back('}');
}

void AppendMetadataText(const OpMetadata& m, std::string* out) {
  out->push_back('{');
  bool first = true;
  auto sep = [&] {
    if (!first) out->push_back(' ');
    first = false;
  };
  auto str = [&](const char* key, const std::string& v) {
    if (v.empty()) return;
    sep();
    out->append(key);
    out->push_back('=');
    AppendQuoted(v, out);
  };
  auto num = [&](const char* key, int64_t v) {
    if (v == 0) return;
    sep();
    out->append(key);
    out->push_back('=');
    AppendInt(v, out);
  };
  str("op_type", m.op_type);
  str("op_name", m.op_name);
  str("source_file", m.source_file);
  num("source_line", m.source_line);
  num("source_end_line", m.source_end_line);
  num("source_column", m.source_column);
  num("source_end_column", m.source_end_column);
  if (!m.profile_type.empty()) {
    sep();
    out->append("profile_type=");
    AppendIntList(m.profile_type, out);
  }
  str("deduplicated_name", m.deduplicated_name);
  if (m.preserve_layout) {
    sep();
    out->append("preserve_layout=true");
  }
  str("scheduling_name", m.scheduling_name);
  num("stack_frame_id", m.stack_frame_id);
  out->push_back('}');
}

void AppendFrontendAttributesText(const FrontendAttributes& attrs, std::string* out) {
  out->push_back('{');
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->append(attrs[i].key);
    out->push_back('=');
    if (attrs[i].is_json) {
      out->append(attrs[i].value);
    } else {
      AppendQuoted(attrs[i].value, out);
    }
  }
  out->push_back('}');
}

}  // namespace xlite::printer_internal
