// The per-opcode attribute text of an instruction (everything between the
// operand list and the shared attributes): a walk of attribute_schema.h's rows
// in XLA's printing order, default values left out as XLA does, with one
// writer per value syntax.
#include <string>
#include <string_view>
#include <vector>

#include "xlite/ir/attribute_names.h"
#include "xlite/ir/computation.h"
#include "xlite/text/attribute_schema.h"
#include "xlite/text/printer_internal.h"

namespace xlite::printer_internal {
namespace {

using attr_schema::Presence;
namespace syntax = attr_schema::syntax;

void AppendWindow(const Window& window, std::string* out) {
  out->push_back('{');
  bool first = true;
  auto field = [&](const char* name, auto is_default, auto write) {
    bool all_default = true;
    for (const WindowDimension& d : window) all_default = all_default && is_default(d);
    if (all_default && std::string_view(name) != "size") return;
    if (!first) out->push_back(' ');
    first = false;
    out->append(name);
    out->push_back('=');
    for (size_t i = 0; i < window.size(); ++i) {
      if (i > 0) out->push_back('x');
      write(window[i]);
    }
  };
  field(
      "size", [](const WindowDimension&) { return false; },
      [&](const WindowDimension& d) { AppendInt(d.size, out); });
  field(
      "stride", [](const WindowDimension& d) { return d.stride == 1; },
      [&](const WindowDimension& d) { AppendInt(d.stride, out); });
  field(
      "pad", [](const WindowDimension& d) { return d.padding_low == 0 && d.padding_high == 0; },
      [&](const WindowDimension& d) {
        AppendInt(d.padding_low, out);
        out->push_back('_');
        AppendInt(d.padding_high, out);
      });
  field(
      "lhs_dilate", [](const WindowDimension& d) { return d.base_dilation == 1; },
      [&](const WindowDimension& d) { AppendInt(d.base_dilation, out); });
  field(
      "rhs_dilate", [](const WindowDimension& d) { return d.window_dilation == 1; },
      [&](const WindowDimension& d) { AppendInt(d.window_dilation, out); });
  field(
      "rhs_reversal", [](const WindowDimension& d) { return !d.window_reversal; },
      [&](const WindowDimension& d) { out->push_back(d.window_reversal ? '1' : '0'); });
  out->push_back('}');
}

// `b01f_01io->b01f`: each role's letter at its dimension number, spatial
// dimensions by their index. As in XLA, each side is as long as its largest
// dimension number needs, with `?` for the numbers no role names.
void AppendConvDims(const ConvDimensions& d, std::string* out) {
  auto side = [&](int64_t a, char a_label, int64_t b, char b_label,
                  const std::vector<int64_t>& spatial) {
    int64_t rank = std::max(a, b) + 1;
    for (int64_t s : spatial) rank = std::max(rank, s + 1);
    std::string labels(static_cast<size_t>(std::max<int64_t>(rank, 0)), '?');
    auto put = [&](int64_t dim, char c) {
      if (dim >= 0 && dim < rank) labels[dim] = c;
    };
    put(a, a_label);
    put(b, b_label);
    for (size_t i = 0; i < spatial.size(); ++i) {
      put(spatial[i], static_cast<char>('0' + i));
    }
    out->append(labels);
  };
  side(d.input_batch, 'b', d.input_feature, 'f', d.input_spatial);
  out->push_back('_');
  side(d.kernel_input_feature, 'i', d.kernel_output_feature, 'o', d.kernel_spatial);
  out->append("->");
  side(d.output_batch, 'b', d.output_feature, 'f', d.output_spatial);
}

// `{a,b}` of `write(element)`, joined by `separator`.
template <typename List, typename Write>
void AppendBraced(const List& list, std::string_view separator, Write write, std::string* out) {
  out->push_back('{');
  bool first = true;
  for (const auto& element : list) {
    if (!first) out->append(separator);
    first = false;
    write(element);
  }
  out->push_back('}');
}

void AppendIntListList(const std::vector<std::vector<int64_t>>& lists, std::string* out) {
  AppendBraced(
      lists, ",", [&](const std::vector<int64_t>& l) { AppendIntList(l, out); }, out);
}

void AppendReplicaGroups(const ReplicaGroups& g, std::string* out) {
  if (g.is_mesh()) {
    AppendMesh(g.mesh, out);
    out->append(" {");
    for (size_t i = 0; i < g.mesh_group_axes.size(); ++i) {
      if (i > 0) out->push_back(',');
      AppendMeshAxisRef(g.mesh, g.mesh_group_axes[i], out);
    }
    out->push_back('}');
    return;
  }
  if (g.is_iota) {
    out->push_back('[');
    AppendInt(g.num_groups, out);
    out->push_back(',');
    AppendInt(g.group_size, out);
    out->push_back(']');
    AppendIotaDevices(g.iota_reshape, g.iota_perm, out);
    return;
  }
  AppendIntListList(g.groups, out);
}

// The schema's walker that writes: every row not at its default, in order.
class AttributeWriter {
 public:
  AttributeWriter(const HloInstruction& inst, bool percent, std::string* out)
      : inst_(inst), percent_(percent), out_(out) {
    // An instruction made without its record (not by the parser) prints only
    // its called computations.
    const AttrsKind kind = AttrsKindOf(inst.opcode());
    has_record_ = inst.has_attrs() || kind == AttrsKind::kNone;
  }

  template <typename T>
  const T& record() const {
    static const T kAbsent{};
    return inst_.has_attrs() ? inst_.attrs<T>() : kAbsent;
  }

  template <typename Syntax, typename M, typename D = M>
  void Row(std::string_view key, Syntax syntax, const M& member, Presence presence,
           const D& default_value = D{}) {
    if (!has_record_ || presence == Presence::kReadOnly) return;
    if (presence == Presence::kOptional && attr_schema::AtDefault<Syntax>(member, default_value)) {
      return;
    }
    if constexpr (attr_schema::IsOptional<M>::value) {
      if (!member.has_value()) return;
      WriteValue(syntax, *member, Key(key));
    } else {
      WriteValue(syntax, member, Key(key));
    }
  }

  void Dimensions(Presence, bool = false) {
    if (has_record_ && inst_.has_dimensions_attr())
      AppendIntList(inst_.dimensions(), Key("dimensions"));
  }

  void Computation(std::string_view key, Presence presence) {
    const auto& called = inst_.called_computations();
    if (presence == Presence::kReadOnly || next_called_ >= called.size()) return;
    AppendName(called[next_called_++]->name(), percent_, Key(key));
  }

  void ComputationList(std::string_view key, Presence presence) {
    const auto& called = inst_.called_computations();
    if (presence == Presence::kReadOnly || next_called_ >= called.size()) return;
    std::string* o = Key(key);
    o->push_back('{');
    for (size_t i = next_called_; i < called.size(); ++i) {
      if (i > next_called_) o->append(", ");
      AppendName(called[i]->name(), percent_, o);
    }
    o->push_back('}');
    next_called_ = called.size();
  }

  template <typename Syntax>
  void Ignored(std::string_view, Syntax) {}

 private:
  // Appends `, key=` and returns the output for the value.
  std::string* Key(std::string_view key) {
    out_->append(", ");
    out_->append(key);
    out_->push_back('=');
    return out_;
  }

  // One overload per value syntax of attribute_schema.h.
  static void WriteValue(syntax::Int, int64_t v, std::string* out) { AppendInt(v, out); }
  static void WriteValue(syntax::IntList, const std::vector<int64_t>& v, std::string* out) {
    AppendIntList(v, out);
  }
  static void WriteValue(syntax::IntListList, const std::vector<std::vector<int64_t>>& v,
                         std::string* out) {
    AppendIntListList(v, out);
  }
  static void WriteValue(syntax::Pairs, const std::vector<std::pair<int64_t, int64_t>>& v,
                         std::string* out) {
    AppendBraced(
        v, ",",
        [&](const std::pair<int64_t, int64_t>& p) {
          out->push_back('{');
          AppendInt(p.first, out);
          out->push_back(',');
          AppendInt(p.second, out);
          out->push_back('}');
        },
        out);
  }
  static void WriteValue(syntax::Bool, bool v, std::string* out) {
    out->append(v ? "true" : "false");
  }
  static void WriteValue(syntax::BoolList, const std::vector<bool>& v, std::string* out) {
    AppendBraced(
        v, ",", [&](bool b) { out->append(b ? "true" : "false"); }, out);
  }
  template <typename E>
  static void WriteValue(syntax::Enum, E v, std::string* out) {
    AppendEnumName(v, out);
  }
  static void WriteValue(syntax::Quoted, const std::string& v, std::string* out) {
    AppendQuoted(v, out);
  }
  static void WriteValue(syntax::Identifier, const std::string& v, std::string* out) {
    out->append(v);
  }
  static void WriteValue(syntax::F32, float v, std::string* out) {
    AppendFloat(v, PrimitiveType::F32, out);
  }
  static void WriteValue(syntax::ShapeText, const Shape& v, std::string* out) { v.AppendTo(out); }
  static void WriteValue(syntax::ShapeList, const std::vector<Shape>& v, std::string* out) {
    AppendBraced(
        v, ", ", [&](const Shape& s) { s.AppendTo(out); }, out);
  }
  static void WriteValue(syntax::LiteralText, const Literal& v, std::string* out) {
    AppendShapedLiteralText(v, out);
  }
  static void WriteValue(syntax::Padding, const PaddingConfig& p, std::string* out) {
    bool interior = false;
    for (const PaddingDimension& d : p) interior = interior || d.interior != 0;
    for (size_t i = 0; i < p.size(); ++i) {
      if (i > 0) out->push_back('x');
      AppendInt(p[i].low, out);
      out->push_back('_');
      AppendInt(p[i].high, out);
      if (interior) {
        out->push_back('_');
        AppendInt(p[i].interior, out);
      }
    }
  }
  static void WriteValue(syntax::Slices, const SliceAttrs& a, std::string* out) {
    bool strided = false;
    for (int64_t s : a.strides) strided = strided || s != 1;
    out->push_back('{');
    for (size_t i = 0; i < a.starts.size(); ++i) {
      if (i > 0) out->append(", ");
      out->push_back('[');
      AppendInt(a.starts[i], out);
      out->push_back(':');
      AppendInt(a.limits[i], out);
      if (strided) {
        out->push_back(':');
        AppendInt(a.strides[i], out);
      }
      out->push_back(']');
    }
    out->push_back('}');
  }
  static void WriteValue(syntax::Aliasing, const std::vector<OutputOperandAlias>& aliases,
                         std::string* out) {
    AppendBraced(
        aliases, ", ",
        [&](const OutputOperandAlias& alias) {
          AppendShapeIndex(alias.output_index, out);
          out->append(": (");
          AppendInt(alias.operand, out);
          out->append(", ");
          AppendShapeIndex(alias.operand_index, out);
          out->push_back(')');
        },
        out);
  }
  static void WriteValue(syntax::Groups, const ReplicaGroups& g, std::string* out) {
    AppendReplicaGroups(g, out);
  }
  static void WriteValue(syntax::Domain, const DomainAttrs& a, std::string* out) {
    out->append("{kind=");
    AppendQuoted(a.kind, out);
    if (a.entry) {
      out->append(", entry=");
      AppendShardingText(*a.entry, out);
    }
    if (a.exit) {
      out->append(", exit=");
      AppendShardingText(*a.exit, out);
    }
    out->push_back('}');
  }
  static void WriteValue(syntax::Accuracy, const ResultAccuracy& r, std::string* out) {
    if (!r.mode.empty()) {
      out->append("{mode=");
      out->append(r.mode);
      out->push_back('}');
      return;
    }
    out->append("{tolerance={atol=");
    AppendFloat(r.atol, PrimitiveType::F64, out);
    out->append(",rtol=");
    AppendFloat(r.rtol, PrimitiveType::F64, out);
    out->append(",ulps=");
    AppendInt(r.ulps, out);
    out->append("}}");
  }
  static void WriteValue(syntax::Sparsity, const std::vector<SparsityDescriptor>& sparsity,
                         std::string* out) {
    for (size_t i = 0; i < sparsity.size(); ++i) {
      if (i > 0) out->push_back('_');
      const SparsityDescriptor& d = sparsity[i];
      out->append(d.operand == 0 ? "L." : "R.");
      AppendInt(d.dimension, out);
      out->push_back('@');
      AppendInt(d.n, out);
      out->push_back(':');
      AppendInt(d.m, out);
    }
  }
  static void WriteValue(syntax::ConvLabels, const ConvDimensions& d, std::string* out) {
    AppendConvDims(d, out);
  }
  static void WriteValue(syntax::WindowText, const Window& w, std::string* out) {
    AppendWindow(w, out);
  }
  static void WriteValue(syntax::PrecisionList, const std::vector<Precision>& list,
                         std::string* out) {
    AppendBraced(
        list, ",", [&](Precision p) { AppendEnumName(p, out); }, out);
  }

  const HloInstruction& inst_;
  bool percent_;
  std::string* out_;
  bool has_record_ = true;
  size_t next_called_ = 0;
};

}  // namespace

void AppendOpAttributes(const HloInstruction& inst, bool percent, std::string* out) {
  AttributeWriter writer(inst, percent, out);
  attr_schema::WalkAttributes(writer, inst);
}

}  // namespace xlite::printer_internal
