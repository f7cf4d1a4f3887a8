// Instruction attributes: the per-opcode attribute tables (which names an
// opcode takes, which are required, where each value is stored) and the value
// grammars of spec §1.9/§1.10 (windows, dim labels, padding, replica groups,
// metadata, frontend attributes, backend_config, ...).
#include <algorithm>
#include <charconv>

#include "absl/strings/match.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/ir/computation.h"
#include "xlite/text/parser_impl.h"

namespace xlite {
namespace {

constexpr bool kRequired = true;
constexpr bool kOptional = false;

template <typename T>
T* Record(const std::unique_ptr<OpAttrs>& record) {
  T* typed = dynamic_cast<T*>(record.get());
  XLITE_CHECK(typed != nullptr);
  return typed;
}

// Splits `text` on `sep` into integers; false when a piece is not one.
bool SplitInts(std::string_view text, char sep, std::vector<int64_t>* out) {
  out->clear();
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    std::string_view piece = text.substr(start, end == std::string_view::npos
                                                    ? std::string_view::npos
                                                    : end - start);
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
    return Error(Cat("unknown value '", tok().text, "' (expected one of ",
                     EnumNameList(spelling), ")"));
  }
  *index = found;
  Advance();
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseAttributes(std::initializer_list<AttrSpec> specs,
                                            HloInstruction* common,
                                            size_t instruction_offset,
                                            const AttrSpec* extra) {
  absl::InlinedVector<bool, 16> seen(specs.size() + 1, false);
  absl::InlinedVector<std::string_view, 4> seen_common;
  while (!in_nested_operand_ && kind() == TokKind::kComma) {
    Advance();
    if (kind() != TokKind::kAttrName) return Expected("an attribute name=");
    std::string_view name = tok().text;
    size_t name_offset = tok().offset;
    Advance();
    const AttrSpec* spec = nullptr;
    size_t slot = 0;
    for (const AttrSpec& s : specs) {
      if (s.name == name) {
        spec = &s;
        break;
      }
      ++slot;
    }
    if (spec == nullptr && extra != nullptr && extra->name == name) spec = extra;
    if (spec != nullptr) {
      if (seen[slot]) return ErrorAt(name_offset, Cat("duplicate attribute '", name, "'"));
      seen[slot] = true;
      XLITE_RETURN_IF_ERROR(spec->parse());
      continue;
    }
    if (std::find(seen_common.begin(), seen_common.end(), name) != seen_common.end()) {
      return ErrorAt(name_offset, Cat("duplicate attribute '", name, "'"));
    }
    bool handled = false;
    XLITE_RETURN_IF_ERROR(ParseCommonAttribute(name, common, &handled));
    if (!handled) return ErrorAt(name_offset, Cat("unknown attribute '", name, "'"));
    seen_common.push_back(name);
  }
  size_t slot = 0;
  for (const AttrSpec& s : specs) {
    if (s.required && !seen[slot]) {
      return ErrorAt(instruction_offset, Cat("missing required attribute '", s.name, "'"));
    }
    ++slot;
  }
  if (extra != nullptr && extra->required && !seen[specs.size()]) {
    return ErrorAt(instruction_offset, Cat("missing required attribute '", extra->name, "'"));
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseCommonAttribute(std::string_view name,
                                                 HloInstruction* inst, bool* handled) {
  *handled = true;
  if (name == "sharding") {
    HloSharding sharding;
    XLITE_RETURN_IF_ERROR(ParseSharding(&sharding));
    inst->set_sharding(std::move(sharding));
  } else if (name == "metadata") {
    return ParseMetadata(inst->mutable_metadata());
  } else if (name == "frontend_attributes") {
    return ParseFrontendAttributes(inst->mutable_frontend_attributes());
  } else if (name == "backend_config") {
    if (kind() == TokKind::kString) {
      std::string text;
      XLITE_RETURN_IF_ERROR(ParseString(&text));
      inst->set_backend_config(std::move(text), false);
    } else if (kind() == TokKind::kLbrace) {
      std::string_view block;
      if (!lexer_.ScanBraceBlock(&block)) return Error("unbalanced '{' in backend_config");
      inst->set_backend_config(std::string(block), true);
    } else {
      return Expected("a string or a JSON dict");
    }
  } else if (name == "statistics") {
    Statistics statistics;
    XLITE_RETURN_IF_ERROR(ParseStatistics(&statistics));
    inst->set_statistics(std::move(statistics));
  } else if (name == "origin" || name == "original_value") {  // original_value: 2024 dumps
    std::string_view block;
    if (kind() != TokKind::kLbrace) return Expected("'{'");
    if (!lexer_.ScanBraceBlock(&block)) return Error("unbalanced '{' in origin");
    inst->set_origin(std::string(block));
  } else if (name == "control-predecessors") {
    return ParseControlPredecessors(inst);
  } else {
    *handled = false;
  }
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
  XLITE_RETURN_IF_ERROR(ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{",
                                       [&]() -> absl::Status {
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
      if (name != "visualizing_index") return Error("statistics must start with visualizing_index=");
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
    if ((kind() != TokKind::kDxD && kind() != TokKind::kInt) ||
        !SplitInts(tok().text, 'x', out)) {
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
        std::string_view piece = text.substr(start, end == std::string_view::npos
                                                        ? std::string_view::npos
                                                        : end - start);
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
      if (reversal[i] != 0 && reversal[i] != 1) return ErrorAt(offset, "rhs_reversal must be 0 or 1");
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
  auto parse_part = [&](std::string_view part, char a, char b, int64_t* a_dim,
                        int64_t* b_dim, std::vector<int64_t>* spatial) -> absl::Status {
    *a_dim = *b_dim = -1;
    int64_t num_spatial = 0;
    for (char c : part) num_spatial += (c >= '0' && c <= '9') ? 1 : 0;
    spatial->assign(num_spatial, -1);
    for (size_t i = 0; i < part.size(); ++i) {
      char c = part[i];
      int64_t pos = static_cast<int64_t>(i);
      if (c == a || c == b) {
        int64_t* slot = c == a ? a_dim : b_dim;
        if (*slot != -1) return Error(Cat("dimension label '", std::string(1, c), "' repeated in ", text));
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
  XLITE_RETURN_IF_ERROR(parse_part(lhs, 'b', 'f', &dims->input_batch, &dims->input_feature,
                                   &dims->input_spatial));
  XLITE_RETURN_IF_ERROR(parse_part(rhs, 'i', 'o', &dims->kernel_input_feature,
                                   &dims->kernel_output_feature, &dims->kernel_spatial));
  XLITE_RETURN_IF_ERROR(parse_part(out, 'b', 'f', &dims->output_batch, &dims->output_feature,
                                   &dims->output_spatial));
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
    std::string_view piece = text.substr(start, end == std::string_view::npos
                                                    ? std::string_view::npos
                                                    : end - start);
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
    return ErrorAt(offset, "iota replica groups: num_groups*group_size differs from the device count");
  }
  const size_t rank = groups->iota_reshape.size();
  if (!groups->iota_perm.empty()) {
    std::vector<bool> seen(rank, false);
    if (groups->iota_perm.size() != rank) return ErrorAt(offset, "iota transpose has the wrong length");
    for (int64_t p : groups->iota_perm) {
      if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p]) {
        return ErrorAt(offset, "iota transpose is not a permutation");
      }
      seen[p] = true;
    }
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseMeshReplicaGroups(size_t offset, ReplicaGroups* groups) {
  // The printer quotes names with '...' and does not escape them.
  auto axis_name = [&](std::string* name) -> absl::Status {
    size_t name_offset = tok().offset;
    XLITE_RETURN_IF_ERROR(ParseString(name));
    if (name->empty() || name->find_first_of("'\\") != std::string::npos) {
      return ErrorAt(name_offset, "mesh axis names must be non-empty and free of quotes");
    }
    return absl::OkStatus();
  };
  int64_t devices = 1;
  XLITE_RETURN_IF_ERROR(ParseDelimited(TokKind::kLbracket, TokKind::kRbracket, "[",
                                       [&]() -> absl::Status {
    MeshAxis axis;
    size_t axis_offset = tok().offset;
    XLITE_RETURN_IF_ERROR(axis_name(&axis.name));
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'='"));
    XLITE_RETURN_IF_ERROR(ParseInt(&axis.size));
    for (const MeshAxis& other : groups->mesh_axes) {
      if (other.name == axis.name) {
        return ErrorAt(axis_offset, Cat("duplicate mesh axis '", axis.name, "'"));
      }
    }
    if (axis.size <= 0 || devices > INT64_MAX / axis.size) {
      return ErrorAt(axis_offset, "invalid mesh axis size");
    }
    devices *= axis.size;
    groups->mesh_axes.push_back(std::move(axis));
    return absl::OkStatus();
  }));
  if (groups->mesh_axes.empty()) return ErrorAt(offset, "a mesh needs at least one axis");
  return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
    std::string name;
    size_t name_offset = tok().offset;
    XLITE_RETURN_IF_ERROR(axis_name(&name));
    auto& axes = groups->mesh_axes;
    auto it = std::find_if(axes.begin(), axes.end(),
                           [&](const MeshAxis& a) { return a.name == name; });
    if (it == axes.end()) return ErrorAt(name_offset, Cat("no mesh axis '", name, "'"));
    int64_t index = it - axes.begin();
    auto& selected = groups->mesh_selected;
    if (std::find(selected.begin(), selected.end(), index) != selected.end()) {
      return ErrorAt(name_offset, Cat("mesh axis '", name, "' is selected twice"));
    }
    selected.push_back(index);
    return absl::OkStatus();
  });
}

absl::Status HloTextParser::ParsePairs(std::vector<std::pair<int64_t, int64_t>>* pairs) {
  std::vector<std::vector<int64_t>> lists;
  size_t offset = tok().offset;
  XLITE_RETURN_IF_ERROR(ParseIntListList(&lists));
  pairs->clear();
  for (const auto& l : lists) {
    if (l.size() != 2) return ErrorAt(offset, "source_target_pairs entries must be {source,target}");
    pairs->emplace_back(l[0], l[1]);
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseOutputOperandAliasing(
    std::vector<OutputOperandAlias>* aliasing) {
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
    const bool known = kind() == TokKind::kIdent &&
                       (absl::EqualsIgnoreCase(AsAbsl(tok().text), "default") ||
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

absl::Status HloTextParser::ParseDomain(DomainAttrs* domain) {
  size_t offset = tok().offset;
  bool has_kind = false;
  XLITE_RETURN_IF_ERROR(ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{",
                                       [&]() -> absl::Status {
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
    if (kind() != TokKind::kName && kind() != TokKind::kIdent) return Expected("an instruction name");
    auto it = scope_->names.find(tok().text);
    if (it == scope_->names.end()) {
      return Error(Cat("undefined instruction '", tok().text, "' in control-predecessors"));
    }
    it->second->AddControlDependencyTo(inst);
    Advance();
    return absl::OkStatus();
  });
}

absl::Status HloTextParser::ParseOpcodeAttributes(HloInstruction* inst,
                                                  HloInstruction* common,
                                                  size_t offset, const AttrSpec* extra) {
  using O = HloOpcode;
  const HloOpcode op = inst->opcode();
  const AttrsKind attrs_kind = AttrsKindOf(op);
  std::unique_ptr<OpAttrs> record =
      attrs_kind == AttrsKind::kAccuracy ? nullptr : MakeDefaultAttrs(attrs_kind);
  std::vector<HloComputation*> called;  // in the opcode's order
  HloComputation* to_apply = nullptr;
  auto parse_dims = [&]() -> absl::Status {
    std::vector<int64_t> dims;
    XLITE_RETURN_IF_ERROR(ParseIntList(&dims));
    inst->set_dimensions(std::move(dims));
    return absl::OkStatus();
  };
  auto parse_to_apply = [&] { return ParseComputationRef(&to_apply); };
  auto finish = [&](absl::Status status) -> absl::Status {
    XLITE_RETURN_IF_ERROR(status);
    if (to_apply != nullptr) inst->AppendCalledComputation(to_apply);
    for (HloComputation* c : called) inst->AppendCalledComputation(c);
    if (record) inst->set_attrs(std::move(record));
    return absl::OkStatus();
  };
  auto attrs = [&](std::initializer_list<AttrSpec> specs) {
    return finish(ParseAttributes(specs, common, offset, extra));
  };

  switch (attrs_kind) {
    case AttrsKind::kParameter: {
      auto* a = Record<ParameterAttrs>(record);
      auto parse_replication = [&]() -> absl::Status {
        std::vector<bool> r;
        XLITE_RETURN_IF_ERROR(ParseBoolList(&r));
        a->replication = std::move(r);
        return absl::OkStatus();
      };
      return attrs({{"parameter_replication", kOptional, parse_replication}});
    }
    case AttrsKind::kConstant:
      record = nullptr;  // set by the caller from the parenthesised literal
      return attrs({});
    case AttrsKind::kInt: {
      auto* a = Record<IntAttrs>(record);
      auto int_value = [&] { return ParseInt(&a->value); };
      auto flag = [&] { return ParseBool(&a->flag); };
      switch (op) {
        case O::kIota: return attrs({{"iota_dimension", kRequired, int_value}});
        case O::kGetTupleElement: return attrs({{"index", kRequired, int_value}});
        case O::kReshape: return attrs({{"inferred_dimension", kOptional, int_value}});
        case O::kTopK:
          a->flag = true;
          return attrs({{"k", kRequired, int_value}, {"largest", kOptional, flag}});
        case O::kRngGetAndUpdateState: return attrs({{"delta", kRequired, int_value}});
        case O::kCopyStart:
          return attrs({{"cross_program_prefetch_index", kOptional, int_value}});
        case O::kCholesky: return attrs({{"lower", kOptional, flag}});
        case O::kSort:
          return attrs({{"dimensions", kRequired, parse_dims},
                        {"to_apply", kRequired, parse_to_apply},
                        {"is_stable", kOptional, flag}});
        case O::kCall:
          return attrs({{"to_apply", kRequired, parse_to_apply},
                        {"is_composite", kOptional, flag}});
        default: return attrs({});
      }
    }
    case AttrsKind::kCompare: {
      auto* a = Record<CompareAttrs>(record);
      auto direction = [&] {
        return ParseEnum(&a->direction);
      };
      auto type = [&]() -> absl::Status {
        ComparisonType t;
        XLITE_RETURN_IF_ERROR(ParseEnum(&t));
        // A spelled-out default is the default: the printer leaves it out.
        bool is_default = inst->operand_count() > 0 &&
                          t == DefaultComparisonType(inst->operand(0)->shape().element_type());
        if (!is_default) a->type = t;
        return absl::OkStatus();
      };
      return attrs({{"direction", kRequired, direction}, {"type", kOptional, type}});
    }
    case AttrsKind::kSlice: {
      auto* a = Record<SliceAttrs>(record);
      auto slice = [&] { return ParseSliceRanges(a); };
      return attrs({{"slice", kRequired, slice}});
    }
    case AttrsKind::kDynamicSlice: {
      auto* a = Record<DynamicSliceAttrs>(record);
      auto sizes = [&] { return ParseIntList(&a->sizes); };
      return attrs({{"dynamic_slice_sizes", kRequired, sizes}});
    }
    case AttrsKind::kPad: {
      auto* a = Record<PadAttrs>(record);
      auto padding = [&] { return ParsePadding(&a->padding); };
      return attrs({{"padding", kRequired, padding}});
    }
    case AttrsKind::kWindow: {
      auto* a = Record<WindowAttrs>(record);
      auto window = [&] { return ParseWindow(&a->window); };
      if (op == O::kReduceWindow) {
        return attrs({{"window", kOptional, window}, {"to_apply", kRequired, parse_to_apply}});
      }
      HloComputation* select = nullptr;
      HloComputation* scatter = nullptr;
      auto parse_select = [&] { return ParseComputationRef(&select); };
      auto parse_scatter = [&] { return ParseComputationRef(&scatter); };
      XLITE_RETURN_IF_ERROR(ParseAttributes({{"window", kOptional, window},
                                             {"select", kRequired, parse_select},
                                             {"scatter", kRequired, parse_scatter}},
                                            common, offset, extra));
      called = {select, scatter};
      return finish(absl::OkStatus());
    }
    case AttrsKind::kConvolution: {
      auto* a = Record<ConvolutionAttrs>(record);
      auto window = [&] { return ParseWindow(&a->window); };
      auto labels = [&] { return ParseConvDims(&a->dims); };
      auto fgc = [&] { return ParseInt(&a->feature_group_count); };
      auto bgc = [&] { return ParseInt(&a->batch_group_count); };
      auto precision = [&] { return ParsePrecisionList(&a->precision.operand_precision); };
      auto algorithm = [&]() -> absl::Status {
        std::string_view name;
        XLITE_RETURN_IF_ERROR(ParseIdentifier(&name));
        a->precision.algorithm = std::string(name);
        return absl::OkStatus();
      };
      auto conv_kind = [&]() -> absl::Status {
        std::string_view name;
        XLITE_RETURN_IF_ERROR(ParseIdentifier(&name));
        a->conv_kind = std::string(name);
        return absl::OkStatus();
      };
      return attrs({{"window", kOptional, window},
                    {"dim_labels", kRequired, labels},
                    {"feature_group_count", kOptional, fgc},
                    {"batch_group_count", kOptional, bgc},
                    {"operand_precision", kOptional, precision},
                    {"algorithm", kOptional, algorithm},
                    {"conv_kind", kOptional, conv_kind}});
    }
    case AttrsKind::kDot: {
      auto* a = Record<DotAttrs>(record);
      auto lb = [&] { return ParseIntList(&a->dims.lhs_batch); };
      auto rb = [&] { return ParseIntList(&a->dims.rhs_batch); };
      auto lc = [&] { return ParseIntList(&a->dims.lhs_contracting); };
      auto rc = [&] { return ParseIntList(&a->dims.rhs_contracting); };
      auto lr = [&] { return ParseIntList(&a->ragged.lhs_ragged); };
      auto rg = [&] { return ParseIntList(&a->ragged.rhs_group); };
      auto precision = [&] { return ParsePrecisionList(&a->precision.operand_precision); };
      auto algorithm = [&]() -> absl::Status {
        std::string_view name;
        XLITE_RETURN_IF_ERROR(ParseIdentifier(&name));
        a->precision.algorithm = std::string(name);
        return absl::OkStatus();
      };
      if (op == O::kRaggedDot) {
        return attrs({{"lhs_batch_dims", kOptional, lb}, {"rhs_batch_dims", kOptional, rb},
                      {"lhs_contracting_dims", kOptional, lc},
                      {"rhs_contracting_dims", kOptional, rc},
                      {"lhs_ragged_dims", kOptional, lr}, {"rhs_group_dims", kOptional, rg},
                      {"operand_precision", kOptional, precision},
                      {"algorithm", kOptional, algorithm}});
      }
      return attrs({{"lhs_batch_dims", kOptional, lb}, {"rhs_batch_dims", kOptional, rb},
                    {"lhs_contracting_dims", kOptional, lc},
                    {"rhs_contracting_dims", kOptional, rc},
                    {"operand_precision", kOptional, precision},
                    {"algorithm", kOptional, algorithm}});
    }
    case AttrsKind::kGather: {
      auto* a = Record<GatherAttrs>(record);
      auto offset_dims = [&] { return ParseIntList(&a->dims.offset_dims); };
      auto collapsed = [&] { return ParseIntList(&a->dims.collapsed_slice_dims); };
      auto start_map = [&] { return ParseIntList(&a->dims.start_index_map); };
      auto ob = [&] { return ParseIntList(&a->dims.operand_batching_dims); };
      auto sb = [&] { return ParseIntList(&a->dims.start_indices_batching_dims); };
      auto ivd = [&] { return ParseInt(&a->dims.index_vector_dim); };
      auto sizes = [&] { return ParseIntList(&a->slice_sizes); };
      auto sorted = [&] { return ParseBool(&a->indices_are_sorted); };
      return attrs({{"offset_dims", kRequired, offset_dims},
                    {"collapsed_slice_dims", kRequired, collapsed},
                    {"start_index_map", kRequired, start_map},
                    {"operand_batching_dims", kOptional, ob},
                    {"start_indices_batching_dims", kOptional, sb},
                    {"index_vector_dim", kRequired, ivd},
                    {"slice_sizes", kRequired, sizes},
                    {"indices_are_sorted", kOptional, sorted}});
    }
    case AttrsKind::kScatter: {
      auto* a = Record<ScatterAttrs>(record);
      auto uwd = [&] { return ParseIntList(&a->dims.update_window_dims); };
      auto iwd = [&] { return ParseIntList(&a->dims.inserted_window_dims); };
      auto sdod = [&] { return ParseIntList(&a->dims.scatter_dims_to_operand_dims); };
      auto ib = [&] { return ParseIntList(&a->dims.input_batching_dims); };
      auto sib = [&] { return ParseIntList(&a->dims.scatter_indices_batching_dims); };
      auto ivd = [&] { return ParseInt(&a->dims.index_vector_dim); };
      auto sorted = [&] { return ParseBool(&a->indices_are_sorted); };
      auto unique = [&] { return ParseBool(&a->unique_indices); };
      return attrs({{"update_window_dims", kRequired, uwd},
                    {"inserted_window_dims", kRequired, iwd},
                    {"scatter_dims_to_operand_dims", kRequired, sdod},
                    {"input_batching_dims", kOptional, ib},
                    {"scatter_indices_batching_dims", kOptional, sib},
                    {"index_vector_dim", kRequired, ivd},
                    {"to_apply", kRequired, parse_to_apply},
                    {"indices_are_sorted", kOptional, sorted},
                    {"unique_indices", kOptional, unique}});
    }
    case AttrsKind::kFft: {
      auto* a = Record<FftAttrs>(record);
      auto type = [&] { return ParseEnum(&a->type); };
      auto length = [&] { return ParseIntList(&a->length); };
      return attrs({{"fft_type", kRequired, type}, {"fft_length", kRequired, length}});
    }
    case AttrsKind::kTriangularSolve: {
      auto* a = Record<TriangularSolveAttrs>(record);
      auto left = [&] { return ParseBool(&a->left_side); };
      auto lower = [&] { return ParseBool(&a->lower); };
      auto unit = [&] { return ParseBool(&a->unit_diagonal); };
      auto transpose = [&] { return ParseEnum(&a->transpose_a); };
      return attrs({{"left_side", kOptional, left}, {"lower", kOptional, lower},
                    {"unit_diagonal", kOptional, unit},
                    {"transpose_a", kOptional, transpose}});
    }
    case AttrsKind::kBatchNorm: {
      auto* a = Record<BatchNormAttrs>(record);
      auto epsilon = [&]() -> absl::Status {
        double e;
        XLITE_RETURN_IF_ERROR(ParseDouble(&e));
        a->epsilon = static_cast<float>(e);
        return absl::OkStatus();
      };
      auto feature = [&] { return ParseInt(&a->feature_index); };
      return attrs({{"epsilon", kRequired, epsilon}, {"feature_index", kRequired, feature}});
    }
    case AttrsKind::kReducePrecision: {
      auto* a = Record<ReducePrecisionAttrs>(record);
      auto e = [&] { return ParseInt(&a->exponent_bits); };
      auto m = [&] { return ParseInt(&a->mantissa_bits); };
      return attrs({{"exponent_bits", kRequired, e}, {"mantissa_bits", kRequired, m}});
    }
    case AttrsKind::kRng: {
      auto* a = Record<RngAttrs>(record);
      if (op == O::kRng) {
        auto d = [&] { return ParseEnum(&a->distribution); };
        return attrs({{"distribution", kRequired, d}});
      }
      auto alg = [&] { return ParseEnum(&a->algorithm); };
      return attrs({{"algorithm", kRequired, alg}});
    }
    case AttrsKind::kCollective: {
      auto* a = Record<CollectiveAttrs>(record);
      auto groups = [&] { return ParseReplicaGroups(&a->replica_groups); };
      auto channel = [&]() -> absl::Status {
        int64_t id = 0;
        XLITE_RETURN_IF_ERROR(ParseInt(&id));
        a->channel_id = id;
        return absl::OkStatus();
      };
      auto global = [&] { return ParseBool(&a->use_global_device_ids); };
      auto constrain = [&] { return ParseBool(&a->constrain_layout); };
      auto pairs = [&] { return ParsePairs(&a->source_target_pairs); };
      auto sizes = [&] { return ParseIntListList(&a->slice_sizes); };
      // Legacy all-reduce `mode=`: accepted and dropped (spec §2.7).
      auto mode = [&] {
        std::string_view ignored;
        return ParseIdentifier(&ignored);
      };
      switch (op) {
        case O::kAllReduce:
        case O::kAllReduceStart:
        case O::kCollectiveReduce:
          return attrs({{"to_apply", kRequired, parse_to_apply},
                        {"replica_groups", kOptional, groups},
                        {"channel_id", kOptional, channel},
                        {"use_global_device_ids", kOptional, global},
                        {"constrain_layout", kOptional, constrain},
                        {"mode", kOptional, mode}});
        case O::kReduceScatter:
          return attrs({{"to_apply", kRequired, parse_to_apply},
                        {"dimensions", kRequired, parse_dims},
                        {"replica_groups", kOptional, groups},
                        {"channel_id", kOptional, channel},
                        {"use_global_device_ids", kOptional, global},
                        {"constrain_layout", kOptional, constrain},
                        {"mode", kOptional, mode}});
        case O::kAllGather:
        case O::kAllGatherStart:
          return attrs({{"dimensions", kRequired, parse_dims},
                        {"replica_groups", kOptional, groups},
                        {"channel_id", kOptional, channel},
                        {"use_global_device_ids", kOptional, global},
                        {"constrain_layout", kOptional, constrain}});
        case O::kAllToAll:
          return attrs({{"dimensions", kOptional, parse_dims},
                        {"replica_groups", kOptional, groups},
                        {"channel_id", kOptional, channel},
                        {"constrain_layout", kOptional, constrain}});
        case O::kCollectivePermute:
        case O::kCollectivePermuteStart:
          return attrs({{"source_target_pairs", kRequired, pairs},
                        {"channel_id", kOptional, channel},
                        {"slice_sizes", kOptional, sizes}});
        default:  // collective-broadcast, ragged-all-to-all
          return attrs({{"replica_groups", kOptional, groups},
                        {"channel_id", kOptional, channel}});
      }
    }
    case AttrsKind::kSendRecv: {
      auto* a = Record<SendRecvAttrs>(record);
      auto channel = [&]() -> absl::Status {
        int64_t id = 0;
        XLITE_RETURN_IF_ERROR(ParseInt(&id));
        a->channel_id = id;
        return absl::OkStatus();
      };
      auto host = [&] { return ParseBool(&a->is_host_transfer); };
      return attrs({{"channel_id", kOptional, channel}, {"is_host_transfer", kOptional, host}});
    }
    case AttrsKind::kFeed: {
      auto* a = Record<FeedAttrs>(record);
      auto config = [&] { return ParseString(&a->config); };
      if (op == O::kInfeed) return attrs({{"infeed_config", kOptional, config}});
      auto shape = [&]() -> absl::Status {
        Shape s;
        XLITE_RETURN_IF_ERROR(ParseShape(&s));
        a->outfeed_shape = std::move(s);
        return absl::OkStatus();
      };
      return attrs({{"outfeed_config", kOptional, config}, {"outfeed_shape", kOptional, shape}});
    }
    case AttrsKind::kFusion: {
      auto* a = Record<FusionAttrs>(record);
      auto fusion_kind = [&] { return ParseEnum(&a->kind); };
      auto calls = [&] { return ParseComputationRef(&to_apply); };
      auto aliasing = [&] { return ParseOutputOperandAliasing(&a->output_to_operand_aliasing); };
      XLITE_RETURN_IF_ERROR(finish(ParseAttributes({{"kind", kRequired, fusion_kind},
                                                    {"calls", kRequired, calls},
                                                    {"output_to_operand_aliasing", kOptional,
                                                     aliasing}},
                                                   common, offset, extra)));
      inst->called_computations()[0]->set_is_fusion_computation(true);
      return absl::OkStatus();
    }
    case AttrsKind::kCustomCall: {
      auto* a = Record<CustomCallAttrs>(record);
      auto target = [&] { return ParseString(&a->target); };
      auto api = [&] { return ParseEnum(&a->api_version); };
      auto side_effect = [&] { return ParseBool(&a->has_side_effect); };
      auto layouts = [&]() -> absl::Status {
        std::vector<Shape> shapes;
        XLITE_RETURN_IF_ERROR(ParseShapeList(&shapes));
        a->operand_layout_constraints = std::move(shapes);
        return absl::OkStatus();
      };
      auto aliasing = [&] { return ParseOutputOperandAliasing(&a->output_to_operand_aliasing); };
      auto schedule = [&] { return ParseEnum(&a->schedule); };
      auto window = [&]() -> absl::Status {
        Window w;
        XLITE_RETURN_IF_ERROR(ParseWindow(&w));
        a->window = std::move(w);
        return absl::OkStatus();
      };
      auto labels = [&]() -> absl::Status {
        ConvDimensions d;
        XLITE_RETURN_IF_ERROR(ParseConvDims(&d));
        a->conv_dims = std::move(d);
        return absl::OkStatus();
      };
      auto fgc = [&] { return ParseInt(&a->feature_group_count); };
      auto bgc = [&] { return ParseInt(&a->batch_group_count); };
      auto padding_type = [&]() -> absl::Status {
        PaddingType t;
        XLITE_RETURN_IF_ERROR(ParseEnum(&t));
        a->padding_type = t;
        return absl::OkStatus();
      };
      auto literal = [&]() -> absl::Status {
        Literal l;
        XLITE_RETURN_IF_ERROR(ParseShapedLiteral(&l));
        a->literal = std::move(l);
        return absl::OkStatus();
      };
      auto precision = [&] { return ParsePrecisionList(&a->precision.operand_precision); };
      auto list = [&] { return ParseComputationList(&called); };
      return attrs({{"custom_call_target", kRequired, target},
                    {"api_version", kOptional, api},
                    {"custom_call_has_side_effect", kOptional, side_effect},
                    {"operand_layout_constraints", kOptional, layouts},
                    {"output_to_operand_aliasing", kOptional, aliasing},
                    {"schedule", kOptional, schedule},
                    {"custom_call_schedule", kOptional, schedule},
                    {"window", kOptional, window},
                    {"dim_labels", kOptional, labels},
                    {"feature_group_count", kOptional, fgc},
                    {"batch_group_count", kOptional, bgc},
                    {"padding_type", kOptional, padding_type},
                    {"literal", kOptional, literal},
                    {"operand_precision", kOptional, precision},
                    {"to_apply", kOptional, parse_to_apply},
                    {"called_computations", kOptional, list}});
    }
    case AttrsKind::kAsync: {
      auto* a = Record<AsyncAttrs>(record);
      written_async_thread_.reset();
      auto thread = [&]() -> absl::Status {
        XLITE_RETURN_IF_ERROR(ParseString(&a->execution_thread));
        written_async_thread_ = a->execution_thread;
        return absl::OkStatus();
      };
      auto calls = [&] { return ParseComputationRef(&to_apply); };
      auto aliasing = [&] { return ParseOutputOperandAliasing(&a->output_to_operand_aliasing); };
      return attrs({{"calls", op == O::kAsyncStart, calls},
                    {"async_execution_thread", kOptional, thread},
                    {"output_to_operand_aliasing", kOptional, aliasing}});
    }
    case AttrsKind::kDomain: {
      auto* a = Record<DomainAttrs>(record);
      auto domain = [&] { return ParseDomain(a); };
      return attrs({{"domain", kRequired, domain}});
    }
    case AttrsKind::kScan: {
      auto* a = Record<ScanAttrs>(record);
      auto carries = [&] { return ParseInt(&a->num_carries); };
      auto reverse = [&] { return ParseBool(&a->is_reverse); };
      auto associative = [&] { return ParseBool(&a->is_associative); };
      return attrs({{"dimensions", kRequired, parse_dims},
                    {"num_carries", kRequired, carries},
                    {"to_apply", kRequired, parse_to_apply},
                    {"is_reverse", kOptional, reverse},
                    {"is_associative", kOptional, associative}});
    }
    case AttrsKind::kAccuracy: {
      auto accuracy = [&]() -> absl::Status {
        auto r = std::make_unique<AccuracyAttrs>();
        XLITE_RETURN_IF_ERROR(ParseResultAccuracy(&r->accuracy));
        record = std::move(r);
        return absl::OkStatus();
      };
      return attrs({{"result_accuracy", kOptional, accuracy}});
    }
    case AttrsKind::kNone:
      break;
  }
  switch (op) {
    case O::kBroadcast: {
      // XLA lets a broadcast of a scalar omit dimensions= (they are then {}).
      const bool scalar_operand =
          inst->operand_count() == 1 && inst->operand(0)->shape().IsScalar();
      XLITE_RETURN_IF_ERROR(
          attrs({{"dimensions", scalar_operand ? kOptional : kRequired, parse_dims}}));
      if (!inst->has_dimensions_attr()) inst->set_dimensions({});
      return absl::OkStatus();
    }
    case O::kTranspose:
    case O::kReverse:
    case O::kConcatenate:
    case O::kGetDimensionSize:
    case O::kSetDimensionSize:
      return attrs({{"dimensions", kRequired, parse_dims}});
    case O::kReduce:
      return attrs({{"dimensions", kRequired, parse_dims},
                    {"to_apply", kRequired, parse_to_apply}});
    case O::kMap:
      return attrs({{"dimensions", kOptional, parse_dims},
                    {"to_apply", kRequired, parse_to_apply}});
    case O::kWhile: {
      HloComputation* condition = nullptr;
      HloComputation* body = nullptr;
      auto parse_condition = [&] { return ParseComputationRef(&condition); };
      auto parse_body = [&] { return ParseComputationRef(&body); };
      XLITE_RETURN_IF_ERROR(ParseAttributes(
          {{"condition", kRequired, parse_condition}, {"body", kRequired, parse_body}},
          common, offset, extra));
      called = {condition, body};
      return finish(absl::OkStatus());
    }
    case O::kConditional: {
      HloComputation* on_true = nullptr;
      HloComputation* on_false = nullptr;
      std::vector<HloComputation*> branches;
      auto parse_true = [&] { return ParseComputationRef(&on_true); };
      auto parse_false = [&] { return ParseComputationRef(&on_false); };
      auto parse_branches = [&] { return ParseComputationList(&branches); };
      // As XLA: the selector's type decides the spelling, a pred[] takes
      // true_/false_computation and an s32[] branch_computations.
      if (inst->operand_count() == 0 || !inst->operand(0)->shape().IsScalar()) {
        return ErrorAt(offset, "the first operand of a conditional must be a scalar");
      }
      const PrimitiveType selector = inst->operand(0)->shape().element_type();
      if (selector == PrimitiveType::PRED) {
        XLITE_RETURN_IF_ERROR(ParseAttributes({{"true_computation", kRequired, parse_true},
                                               {"false_computation", kRequired, parse_false}},
                                              common, offset, extra));
        called = {on_true, on_false};
      } else if (selector == PrimitiveType::S32) {
        XLITE_RETURN_IF_ERROR(ParseAttributes({{"branch_computations", kRequired, parse_branches}},
                                              common, offset, extra));
        called = std::move(branches);
      } else {
        return ErrorAt(offset,
                       "the first operand of a conditional must be a pred[] or s32[] scalar");
      }
      return finish(absl::OkStatus());
    }
    default:
      return attrs({});
  }
}

}  // namespace xlite
