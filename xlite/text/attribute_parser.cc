// The value grammars of instruction attributes, spec §1.9/§1.10 (windows, dim
// labels, padding, replica groups, metadata, frontend attributes, domains,
// ...). Which keys an opcode takes is attribute_schema.h's; attribute_reader.cc
// reads them.
#include <algorithm>
#include <charconv>

#include "absl/strings/match.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/ir/computation.h"
#include "xlite/text/parser_impl.h"

namespace xlite {
namespace {

// Splits `text` on `sep` into integers; false when a piece is not one.
bool SplitInts(std::string_view text, char sep, std::vector<int64_t>* out) {
  out->clear();
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    std::string_view piece =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(piece.data(), piece.data() + piece.size(), v);
    if (piece.empty() || ec != std::errc() || ptr != piece.data() + piece.size()) {
      return false;
    }
    out->push_back(v);
    if (end == std::string_view::npos) return true;
    start = end + 1;
  }
}

}  // namespace

absl::Status HloTextParser::ParseEnum(const EnumSpelling& spelling, int* index) {
  if (kind() != TokKind::kIdent) return Expected("an enumerator");
  int found = FindEnumName(spelling, tok().text);
  if (found < 0) {
    return Error(
        Cat("unknown value '", tok().text, "' (expected one of ", EnumNameList(spelling), ")"));
  }
  *index = found;
  Advance();
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseMetadata(OpMetadata* m) {
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' starting metadata"));
  while (!Consume(TokKind::kRbrace)) {
    if (Consume(TokKind::kComma)) continue;
    if (kind() != TokKind::kAttrName) return Expected("a metadata field");
    std::string_view key = tok().text;
    Advance();
    if (key == "op_type") {
      XLITE_RETURN_IF_ERROR(ParseString(&m->op_type));
    } else if (key == "op_name") {
      XLITE_RETURN_IF_ERROR(ParseString(&m->op_name));
    } else if (key == "source_file") {
      XLITE_RETURN_IF_ERROR(ParseString(&m->source_file));
    } else if (key == "source_line") {
      XLITE_RETURN_IF_ERROR(ParseInt(&m->source_line));
    } else if (key == "source_end_line") {
      XLITE_RETURN_IF_ERROR(ParseInt(&m->source_end_line));
    } else if (key == "source_column") {
      XLITE_RETURN_IF_ERROR(ParseInt(&m->source_column));
    } else if (key == "source_end_column") {
      XLITE_RETURN_IF_ERROR(ParseInt(&m->source_end_column));
    } else if (key == "stack_frame_id") {
      XLITE_RETURN_IF_ERROR(ParseInt(&m->stack_frame_id));
    } else if (key == "deduplicated_name") {
      XLITE_RETURN_IF_ERROR(ParseString(&m->deduplicated_name));
    } else if (key == "scheduling_name") {
      XLITE_RETURN_IF_ERROR(ParseString(&m->scheduling_name));
    } else if (key == "profile_type") {
      XLITE_RETURN_IF_ERROR(ParseIntList(&m->profile_type));
    } else if (key == "preserve_layout") {
      XLITE_RETURN_IF_ERROR(ParseBool(&m->preserve_layout));
    } else {
      return Error(Cat("unknown metadata field '", key, "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseFrontendAttributes(FrontendAttributes* attributes) {
  attributes->clear();
  XLITE_RETURN_IF_ERROR(
      ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
        FrontendAttribute attr;
        if (kind() == TokKind::kAttrName) {
          attr.key = std::string(tok().text);
          Advance();
        } else if (kind() == TokKind::kString) {
          XLITE_RETURN_IF_ERROR(ParseString(&attr.key));
          XLITE_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'='"));
        } else {
          return Expected("a frontend attribute key=");
        }
        if (kind() == TokKind::kLbrace) {
          std::string_view block;
          if (!lexer_.ScanBraceBlock(&block)) return Error("unbalanced '{' in frontend attribute");
          attr.value = std::string(block);
          attr.is_json = true;
        } else {
          XLITE_RETURN_IF_ERROR(ParseString(&attr.value));
        }
        attributes->push_back(std::move(attr));
        return absl::OkStatus();
      }));
  // Insertion sort: stable, and the lists are short.
  for (size_t i = 1; i < attributes->size(); ++i) {
    for (size_t j = i; j > 0 && (*attributes)[j].key < (*attributes)[j - 1].key; --j) {
      std::swap((*attributes)[j], (*attributes)[j - 1]);
    }
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseStatistics(Statistics* statistics) {
  bool first = true;
  return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
    if (kind() != TokKind::kAttrName) return Expected("a statistic name=");
    std::string name(tok().text);
    Advance();
    if (first) {
      first = false;
      if (name != "visualizing_index")
        return Error("statistics must start with visualizing_index=");
      return ParseInt(&statistics->visualizing_index);
    }
    double value;
    XLITE_RETURN_IF_ERROR(ParseDouble(&value));
    statistics->stats.emplace_back(std::move(name), value);
    return absl::OkStatus();
  });
}

absl::Status HloTextParser::ParseWindow(Window* window) {
  size_t offset = tok().offset;
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' starting a window"));
  std::vector<int64_t> size, stride, lhs_dilate, rhs_dilate, reversal;
  std::vector<std::vector<int64_t>> pad;
  bool has_size = false;
  auto parse_dxd = [&](std::vector<int64_t>* out) -> absl::Status {
    if ((kind() != TokKind::kDxD && kind() != TokKind::kInt) || !SplitInts(tok().text, 'x', out)) {
      return Expected("window sizes like 3x3");
    }
    Advance();
    return absl::OkStatus();
  };
  while (!Consume(TokKind::kRbrace)) {
    if (kind() != TokKind::kAttrName) return Expected("a window field");
    std::string_view key = tok().text;
    Advance();
    if (key == "size") {
      has_size = true;
      XLITE_RETURN_IF_ERROR(parse_dxd(&size));
    } else if (key == "stride") {
      XLITE_RETURN_IF_ERROR(parse_dxd(&stride));
    } else if (key == "lhs_dilate") {
      XLITE_RETURN_IF_ERROR(parse_dxd(&lhs_dilate));
    } else if (key == "rhs_dilate") {
      XLITE_RETURN_IF_ERROR(parse_dxd(&rhs_dilate));
    } else if (key == "rhs_reversal") {
      XLITE_RETURN_IF_ERROR(parse_dxd(&reversal));
    } else if (key == "pad") {
      if (kind() != TokKind::kPad) return Expected("window padding like 0_0x1_1");
      std::vector<int64_t> dims;
      std::string_view text = tok().text;
      size_t start = 0;
      while (start <= text.size()) {
        size_t end = text.find('x', start);
        std::string_view piece = text.substr(
            start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (!SplitInts(piece, '_', &dims) || dims.size() != 2) {
          return Error("window padding must be low_high per dimension");
        }
        pad.push_back(dims);
        if (end == std::string_view::npos) break;
        start = end + 1;
      }
      Advance();
    } else {
      return Error(Cat("unknown window field '", key, "'"));
    }
  }
  window->clear();
  if (!has_size) {
    if (!stride.empty() || !pad.empty() || !lhs_dilate.empty() || !rhs_dilate.empty() ||
        !reversal.empty()) {
      return ErrorAt(offset, "window needs size=");
    }
    return absl::OkStatus();
  }
  const size_t rank = size.size();
  auto check = [&](size_t n, std::string_view field) -> absl::Status {
    if (n != 0 && n != rank) {
      return ErrorAt(offset, Cat("window ", field, " has ", n, " dimensions, size has ", rank));
    }
    return absl::OkStatus();
  };
  XLITE_RETURN_IF_ERROR(check(stride.size(), "stride"));
  XLITE_RETURN_IF_ERROR(check(pad.size(), "pad"));
  XLITE_RETURN_IF_ERROR(check(lhs_dilate.size(), "lhs_dilate"));
  XLITE_RETURN_IF_ERROR(check(rhs_dilate.size(), "rhs_dilate"));
  XLITE_RETURN_IF_ERROR(check(reversal.size(), "rhs_reversal"));
  for (size_t i = 0; i < rank; ++i) {
    WindowDimension d;
    d.size = size[i];
    if (!stride.empty()) d.stride = stride[i];
    if (!pad.empty()) {
      d.padding_low = pad[i][0];
      d.padding_high = pad[i][1];
    }
    if (!lhs_dilate.empty()) d.base_dilation = lhs_dilate[i];
    if (!rhs_dilate.empty()) d.window_dilation = rhs_dilate[i];
    if (!reversal.empty()) {
      if (reversal[i] != 0 && reversal[i] != 1)
        return ErrorAt(offset, "rhs_reversal must be 0 or 1");
      d.window_reversal = reversal[i] == 1;
    }
    window->push_back(d);
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseConvDims(ConvDimensions* dims) {
  if (kind() != TokKind::kDimLabels) return Expected("dimension labels like b01f_01io->b01f");
  std::string_view text = tok().text;
  size_t underscore = text.find('_');
  size_t arrow = text.find("->");
  std::string_view lhs = text.substr(0, underscore);
  std::string_view rhs = text.substr(underscore + 1, arrow - underscore - 1);
  std::string_view out = text.substr(arrow + 2);
  // Reads one part: `a`/`b` are the two role letters, digits spatial dims.
  auto parse_part = [&](std::string_view part, char a, char b, int64_t* a_dim, int64_t* b_dim,
                        std::vector<int64_t>* spatial) -> absl::Status {
    *a_dim = *b_dim = -1;
    int64_t num_spatial = 0;
    for (char c : part) num_spatial += (c >= '0' && c <= '9') ? 1 : 0;
    spatial->assign(num_spatial, -1);
    for (size_t i = 0; i < part.size(); ++i) {
      char c = part[i];
      int64_t pos = static_cast<int64_t>(i);
      if (c == a || c == b) {
        int64_t* slot = c == a ? a_dim : b_dim;
        if (*slot != -1)
          return Error(Cat("dimension label '", std::string(1, c), "' repeated in ", text));
        *slot = pos;
      } else if (c >= '0' && c <= '9') {
        int64_t k = c - '0';
        if (k >= num_spatial || (*spatial)[k] != -1) {
          return Error(Cat("invalid spatial dimension labels in ", text));
        }
        (*spatial)[k] = pos;
      } else if (c != '?') {
        return Error(Cat("unexpected dimension label in ", text));
      }
    }
    if (*a_dim == -1 || *b_dim == -1) return Error(Cat("missing dimension label in ", text));
    return absl::OkStatus();
  };
  XLITE_RETURN_IF_ERROR(
      parse_part(lhs, 'b', 'f', &dims->input_batch, &dims->input_feature, &dims->input_spatial));
  XLITE_RETURN_IF_ERROR(parse_part(rhs, 'i', 'o', &dims->kernel_input_feature,
                                   &dims->kernel_output_feature, &dims->kernel_spatial));
  XLITE_RETURN_IF_ERROR(
      parse_part(out, 'b', 'f', &dims->output_batch, &dims->output_feature, &dims->output_spatial));
  if (dims->input_spatial.size() != dims->kernel_spatial.size() ||
      dims->input_spatial.size() != dims->output_spatial.size()) {
    return Error(Cat("dimension labels ", text, " disagree on the spatial rank"));
  }
  Advance();
  return absl::OkStatus();
}

absl::Status HloTextParser::ParsePadding(PaddingConfig* padding) {
  padding->clear();
  if (kind() != TokKind::kPad) return Expected("padding like 0_0x1_1");
  std::string_view text = tok().text;
  size_t start = 0;
  std::vector<int64_t> parts;
  while (true) {
    size_t end = text.find('x', start);
    std::string_view piece =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!SplitInts(piece, '_', &parts) || parts.size() < 2 || parts.size() > 3) {
      return Error("padding must be low_high[_interior] per dimension");
    }
    PaddingDimension d;
    d.low = parts[0];
    d.high = parts[1];
    if (parts.size() == 3) d.interior = parts[2];
    padding->push_back(d);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  Advance();
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseSliceRanges(SliceAttrs* slice) {
  return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
    int64_t start, limit, stride = 1;
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kLbracket, "'['"));
    XLITE_RETURN_IF_ERROR(ParseInt(&start));
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kColon, "':'"));
    XLITE_RETURN_IF_ERROR(ParseInt(&limit));
    if (Consume(TokKind::kColon)) XLITE_RETURN_IF_ERROR(ParseInt(&stride));
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kRbracket, "']'"));
    slice->starts.push_back(start);
    slice->limits.push_back(limit);
    slice->strides.push_back(stride);
    return absl::OkStatus();
  });
}

absl::Status HloTextParser::ParseReplicaGroups(ReplicaGroups* groups) {
  *groups = ReplicaGroups();
  if (kind() == TokKind::kLbrace) return ParseIntListList(&groups->groups);
  size_t offset = tok().offset;
  if (AtIdent("mesh")) {
    Advance();
    return ParseMeshReplicaGroups(offset, groups);
  }
  std::vector<int64_t> shape;
  XLITE_RETURN_IF_ERROR(ParseBracketIntList(&shape));
  if (shape.size() != 2) return ErrorAt(offset, "iota replica groups need [num_groups,group_size]");
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kLeq, "'<='"));
  XLITE_RETURN_IF_ERROR(ParseBracketIntList(&groups->iota_reshape));
  if (AtIdent("T")) {
    Advance();
    XLITE_RETURN_IF_ERROR(ParseParenIntList(&groups->iota_perm));
  }
  groups->is_iota = true;
  groups->num_groups = shape[0];
  groups->group_size = shape[1];
  int64_t product = 1;
  for (int64_t d : groups->iota_reshape) {
    if (d <= 0 || product > INT64_MAX / d) return ErrorAt(offset, "invalid iota replica groups");
    product *= d;
  }
  if (shape[0] <= 0 || shape[1] <= 0 || shape[0] > INT64_MAX / shape[1] ||
      shape[0] * shape[1] != product) {
    return ErrorAt(offset,
                   "iota replica groups: num_groups*group_size differs from the device count");
  }
  const size_t rank = groups->iota_reshape.size();
  if (!groups->iota_perm.empty()) {
    std::vector<bool> seen(rank, false);
    if (groups->iota_perm.size() != rank)
      return ErrorAt(offset, "iota transpose has the wrong length");
    for (int64_t p : groups->iota_perm) {
      if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p]) {
        return ErrorAt(offset, "iota transpose is not a permutation");
      }
      seen[p] = true;
    }
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseMeshAxisName(std::string* name, bool* quoted) {
  // The newest printer quotes names with '...' and does not escape them;
  // earlier ones wrote bare identifiers.
  size_t name_offset = tok().offset;
  if (quoted != nullptr) *quoted = kind() == TokKind::kString;
  if (kind() == TokKind::kIdent) {
    name->assign(tok().text);
    Advance();
    return absl::OkStatus();
  }
  XLITE_RETURN_IF_ERROR(ParseString(name));
  if (name->empty() || name->find_first_of("'\\") != std::string::npos) {
    return ErrorAt(name_offset, "mesh axis names must be non-empty and free of quotes");
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseMeshAxes(std::vector<MeshAxis>* axes, bool* quoted) {
  int64_t devices = 1;
  return ParseDelimited(TokKind::kLbracket, TokKind::kRbracket, "[", [&]() -> absl::Status {
    MeshAxis axis;
    size_t axis_offset = tok().offset;
    if (kind() == TokKind::kAttrName) {  // `name=4`: a bare name and its '='
      axis.name.assign(tok().text);
      if (quoted != nullptr) *quoted = false;
      Advance();
    } else {
      XLITE_RETURN_IF_ERROR(ParseMeshAxisName(&axis.name, quoted));
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'='"));
    }
    XLITE_RETURN_IF_ERROR(ParseInt(&axis.size));
    for (const MeshAxis& other : *axes) {
      if (other.name == axis.name) {
        return ErrorAt(axis_offset, Cat("duplicate mesh axis '", axis.name, "'"));
      }
    }
    if (axis.size <= 0 || devices > INT64_MAX / axis.size) {
      return ErrorAt(axis_offset, "invalid mesh axis size");
    }
    devices *= axis.size;
    axes->push_back(std::move(axis));
    return absl::OkStatus();
  });
}

// `mesh['a'=4,'b'=2], device_ids=(...) {'b','a':(1)2}`, as XLA's
// MeshAxesReplicaGroupList::ToString writes it (Mesh::ToString, then the
// axes the groups span).
absl::Status HloTextParser::ParseMeshReplicaGroups(size_t offset, ReplicaGroups* groups) {
  Mesh& mesh = groups->mesh;
  XLITE_RETURN_IF_ERROR(ParseMeshAxes(&mesh.axes, &mesh.quoted_names));
  if (mesh.axes.empty()) return ErrorAt(offset, "a mesh needs at least one axis");
  if (Consume(TokKind::kComma)) {
    if (kind() != TokKind::kAttrName || tok().text != "device_ids") {
      return Expected("device_ids= after the mesh of replica_groups");
    }
    Advance();
    XLITE_RETURN_IF_ERROR(ParseMeshDeviceIds(&mesh));
  }
  XLITE_RETURN_IF_ERROR(ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&] {
    groups->mesh_group_axes.emplace_back();
    return ParseMeshAxisRef(mesh, &groups->mesh_group_axes.back());
  }));
  absl::Status valid = ValidateMeshAxisList(mesh, groups->mesh_group_axes);
  if (!valid.ok()) return ErrorAt(offset, Cat("mesh replica_groups: ", valid.message()));
  return absl::OkStatus();
}

absl::Status HloTextParser::ParsePairs(std::vector<std::pair<int64_t, int64_t>>* pairs) {
  std::vector<std::vector<int64_t>> lists;
  size_t offset = tok().offset;
  XLITE_RETURN_IF_ERROR(ParseIntListList(&lists));
  pairs->clear();
  for (const auto& l : lists) {
    if (l.size() != 2)
      return ErrorAt(offset, "source_target_pairs entries must be {source,target}");
    pairs->emplace_back(l[0], l[1]);
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseOutputOperandAliasing(std::vector<OutputOperandAlias>* aliasing) {
  aliasing->clear();
  return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
    OutputOperandAlias alias;
    XLITE_RETURN_IF_ERROR(ParseIntList(&alias.output_index));
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kColon, "':'"));
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
    XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&alias.operand));
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kComma, "','"));
    XLITE_RETURN_IF_ERROR(ParseIntList(&alias.operand_index));
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
    aliasing->push_back(std::move(alias));
    return absl::OkStatus();
  });
}

absl::Status HloTextParser::ParsePrecisionList(std::vector<Precision>* precision) {
  precision->clear();
  XLITE_RETURN_IF_ERROR(
      ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
        Precision p;
        XLITE_RETURN_IF_ERROR(ParseEnum(&p));
        precision->push_back(p);
        return absl::OkStatus();
      }));
  // All-default is stored as empty, the form the printer leaves out.
  if (std::all_of(precision->begin(), precision->end(),
                  [](Precision p) { return p == Precision::kDefault; })) {
    precision->clear();
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseResultAccuracy(ResultAccuracy* accuracy) {
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  if (kind() != TokKind::kAttrName) return Expected("mode= or tolerance=");
  std::string_view key = tok().text;
  Advance();
  if (key == "mode") {
    // XLA's ResultAccuracy modes; its dumps write them in either case.
    const bool known =
        kind() == TokKind::kIdent && (absl::EqualsIgnoreCase(AsAbsl(tok().text), "default") ||
                                      absl::EqualsIgnoreCase(AsAbsl(tok().text), "highest"));
    if (!known) return Expected("a result_accuracy mode (default or highest)");
    accuracy->mode = std::string(tok().text);
    Advance();
  } else if (key == "tolerance") {
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
    while (!Consume(TokKind::kRbrace)) {
      if (Consume(TokKind::kComma)) continue;
      if (kind() != TokKind::kAttrName) return Expected("atol=, rtol= or ulps=");
      std::string_view field = tok().text;
      Advance();
      if (field == "atol") {
        XLITE_RETURN_IF_ERROR(ParseDouble(&accuracy->atol));
      } else if (field == "rtol") {
        XLITE_RETURN_IF_ERROR(ParseDouble(&accuracy->rtol));
      } else if (field == "ulps") {
        XLITE_RETURN_IF_ERROR(ParseInt(&accuracy->ulps));
      } else {
        return Error(Cat("unknown tolerance field '", field, "'"));
      }
    }
  } else {
    return Error(Cat("unknown result_accuracy field '", key, "'"));
  }
  return Expect(TokKind::kRbrace, "'}'");
}

absl::Status HloTextParser::ParseSparsity(std::vector<SparsityDescriptor>* sparsity) {
  sparsity->clear();
  const size_t offset = tok().offset;
  if (kind() != TokKind::kIdent) return Expected("a sparsity descriptor like L.1@2:4");
  const std::string_view text = lexer_.text();
  size_t pos = offset;
  // Reads the digits at `pos` into `*value`; false when there are none.
  auto number = [&](int64_t* value) {
    size_t start = pos;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
    auto [ptr, ec] = std::from_chars(text.data() + start, text.data() + pos, *value);
    return pos > start && ec == std::errc() && ptr == text.data() + pos;
  };
  auto expect = [&](char c) {
    if (pos >= text.size() || text[pos] != c) return false;
    ++pos;
    return true;
  };
  while (true) {
    SparsityDescriptor d;
    const size_t item = pos;
    if (pos >= text.size() || (text[pos] != 'L' && text[pos] != 'R')) {
      return ErrorAt(item, "expected a sparsity descriptor like L.1@2:4 (L or R first)");
    }
    d.operand = text[pos] == 'L' ? 0 : 1;
    ++pos;
    if (!expect('.') || !number(&d.dimension) || !expect('@') || !number(&d.n) || !expect(':') ||
        !number(&d.m)) {
      return ErrorAt(item, "expected a sparsity descriptor like L.1@2:4");
    }
    if (d.n < 1 || d.m <= d.n) {
      return ErrorAt(item, Cat("structured sparsity ", d.n, ":", d.m, " needs 1 <= n < m"));
    }
    for (const SparsityDescriptor& other : *sparsity) {
      if (other.operand == d.operand) {
        return ErrorAt(item,
                       Cat("two sparsity descriptors for the ", d.operand == 0 ? "lhs" : "rhs"));
      }
    }
    sparsity->push_back(d);
    if (!expect('_')) break;
  }
  lexer_.ResetTo(pos);
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseDomain(DomainAttrs* domain) {
  size_t offset = tok().offset;
  bool has_kind = false;
  XLITE_RETURN_IF_ERROR(
      ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
        if (kind() != TokKind::kAttrName) return Expected("kind=, entry= or exit=");
        std::string_view key = tok().text;
        Advance();
        if (key == "kind") {
          has_kind = true;
          return ParseString(&domain->kind);
        }
        if (key == "entry" || key == "exit") {
          HloSharding sharding;
          XLITE_RETURN_IF_ERROR(ParseSharding(&sharding));
          (key == "entry" ? domain->entry : domain->exit) = std::move(sharding);
          return absl::OkStatus();
        }
        return Error(Cat("unknown domain field '", key, "'"));
      }));
  if (!has_kind) return ErrorAt(offset, "domain needs kind=");
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseComputationRef(HloComputation** computation) {
  if (kind() == TokKind::kLbrace) {
    auto nested = std::make_unique<HloComputation>("_");
    HloComputation* c = nested.get();
    XLITE_RETURN_IF_ERROR(ParseComputationBody(c));
    *computation = AddSyntheticComputation(std::move(nested), "_");
    return absl::OkStatus();
  }
  if (kind() != TokKind::kName && kind() != TokKind::kIdent) return Expected("a computation name");
  auto it = computations_.find(tok().text);
  if (it == computations_.end()) {
    return Error(Cat("undefined computation '", tok().text, "'"));
  }
  *computation = it->second;
  Advance();
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseComputationList(std::vector<HloComputation*>* computations) {
  computations->clear();
  return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&] {
    computations->push_back(nullptr);
    return ParseComputationRef(&computations->back());
  });
}

absl::Status HloTextParser::ParseControlPredecessors(HloInstruction* inst) {
  return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
    if (kind() != TokKind::kName && kind() != TokKind::kIdent)
      return Expected("an instruction name");
    auto it = scope_->names.find(tok().text);
    if (it == scope_->names.end()) {
      return Error(Cat("undefined instruction '", tok().text, "' in control-predecessors"));
    }
    it->second->AddControlDependencyTo(inst);
    Advance();
    return absl::OkStatus();
  });
}

}  // namespace xlite
