// Error reporting and the small value grammars of HLO text: numbers, lists,
// shapes and layouts.
#include <algorithm>
#include <string>

#include "xlite/base/status.h"
#include "xlite/base/utf8.h"
#include "xlite/text/parser_impl.h"
#include "xlite/text/source_positions.h"

namespace xlite {

HloTextParser::HloTextParser(std::string_view text, const ParseOptions& options)
    : lexer_(text), options_(options), lines_(text) {
  Advance();
}

namespace {

// Where an error is, and the text of its line.
struct ErrorLocation {
  SourcePosition pos;
  std::string_view line_text;
};

ErrorLocation Locate(std::string_view text, size_t offset) {
  if (offset > text.size()) offset = text.size();
  ErrorLocation location{LineCounter(text).At(offset), {}};
  size_t line_start = offset - static_cast<size_t>(location.pos.column - 1);
  size_t line_end = line_start;
  while (line_end < text.size() && text[line_end] != '\n' && text[line_end] != '\r') {
    ++line_end;
  }
  location.line_text = text.substr(line_start, line_end - line_start);
  return location;
}

// The most of a source line an error quotes, in bytes: a longer line shows
// the window around the error's column, elided with "...".
constexpr size_t kQuotedLineBytes = 200;

std::string FormatError(std::string_view file, int64_t line_offset, std::string_view text,
                        size_t offset, std::string_view message) {
  ErrorLocation location = Locate(text, offset);
  const SourcePosition& pos = location.pos;
  std::string_view line = location.line_text;
  const size_t column = std::min(static_cast<size_t>(pos.column - 1), line.size());
  size_t begin = 0, end = line.size();
  if (line.size() > kQuotedLineBytes) {
    begin =
        Utf8CharacterStart(line, column > kQuotedLineBytes / 2 ? column - kQuotedLineBytes / 2 : 0);
    end = Utf8CharacterStart(line, std::min(line.size(), begin + kQuotedLineBytes));
  }
  const std::string prefix = begin > 0 ? "..." : "";
  std::string caret(prefix.size(), ' ');
  // Keep tabs so the caret lines up under the offending byte.
  for (size_t i = begin; i < column && i < end; ++i) caret.push_back(line[i] == '\t' ? '\t' : ' ');
  caret.push_back('^');
  return Cat(file, ":", pos.line + line_offset, ":", pos.column, ": error: ", message, "\n", prefix,
             line.substr(begin, end - begin), end < line.size() ? "..." : "", "\n", caret);
}

}  // namespace

absl::Status HloTextParser::ErrorAt(size_t offset, std::string_view message) const {
  return absl::InvalidArgumentError(
      FormatError(options_.filename, options_.line_offset, lexer_.text(), offset, message));
}

absl::Status HloTextParser::Error(std::string_view message) const {
  if (kind() == TokKind::kError) return ErrorAt(tok().offset, lexer_.error());
  return ErrorAt(tok().offset, message);
}

absl::Status HloTextParser::NotSupportedAt(size_t offset, std::string_view what) const {
  return absl::UnimplementedError(FormatError(options_.filename, options_.line_offset,
                                              lexer_.text(), offset,
                                              Cat("not supported yet: ", what)));
}

absl::Status HloTextParser::Expected(std::string_view what) const {
  if (kind() == TokKind::kError) return ErrorAt(tok().offset, lexer_.error());
  if (kind() == TokKind::kEof) return Error(Cat("expected ", what, ", got end of input"));
  return Error(Cat("expected ", what, ", got '", tok().text, "'"));
}

absl::Status HloTextParser::Expect(TokKind k, std::string_view what) {
  if (kind() != k) return Expected(what);
  Advance();
  return absl::OkStatus();
}

absl::Status HloTextParser::Enter() {
  if (++depth_ > kMaxNesting) {
    return Error(Cat("nesting deeper than ", kMaxNesting, " levels"));
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseInt(int64_t* value) {
  if (kind() != TokKind::kInt) return Expected("an integer");
  if (tok().int_above_int64) return Error("integer does not fit in 64-bit signed range");
  *value = tok().int_value;
  Advance();
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseNonNegativeInt(int64_t* value) {
  if (kind() == TokKind::kInt && tok().int_value < 0 && !tok().int_above_int64) {
    return Error("expected a non-negative integer");
  }
  return ParseInt(value);
}

absl::Status HloTextParser::ParseDouble(double* value) {
  if (kind() != TokKind::kInt && kind() != TokKind::kFloat) return Expected("a number");
  *value = tok().float_value;
  Advance();
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseBool(bool* value) {
  if (AtIdent("true")) {
    *value = true;
  } else if (AtIdent("false")) {
    *value = false;
  } else {
    return Expected("'true' or 'false'");
  }
  Advance();
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseString(std::string* value) {
  if (kind() != TokKind::kString) return Expected("a string");
  value->assign(lexer_.string_value());
  Advance();
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseIdentifier(std::string_view* value) {
  if (kind() != TokKind::kIdent) return Expected("an identifier");
  *value = tok().text;
  Advance();
  return absl::OkStatus();
}

namespace {

// Reads `d(,d)*` or nothing up to `close` from `p`; false when anything else
// (spaces, signs, huge numbers, other bytes) is there.
bool ScanDigitList(const char*& p, const char* end, char close, DimVector* values) {
  if (p < end && *p == close) {
    ++p;
    return true;
  }
  while (true) {
    const char* start = p;
    // 18 digits always fit in int64_t; a 19th sends the list to the grammar.
    const char* limit = end - p > 18 ? p + 18 : end;
    int64_t v = 0;
    while (p < limit && *p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
    if (p == start || p >= end || (*p >= '0' && *p <= '9')) return false;
    values->push_back(v);
    if (*p == close) {
      ++p;
      return true;
    }
    if (*p != ',') return false;
    ++p;
  }
}

}  // namespace

absl::Status HloTextParser::ParseDelimitedInts(TokKind open, TokKind close,
                                               std::string_view open_text,
                                               std::vector<int64_t>* values) {
  values->clear();
  // Plain lists (`{2,1,0}`) are read straight from the bytes into one
  // allocation; anything else (spaces, signs, huge values) takes the grammar.
  if (kind() == open) {
    const std::string_view text = lexer_.text();
    const char* p = text.data() + tok().offset + 1;
    DimVector scanned;
    const char close_char = close == TokKind::kRbrace     ? '}'
                            : close == TokKind::kRbracket ? ']'
                                                          : ')';
    if (ScanDigitList(p, text.data() + text.size(), close_char, &scanned)) {
      values->assign(scanned.begin(), scanned.end());
      lexer_.ResetTo(static_cast<size_t>(p - text.data()));
      return absl::OkStatus();
    }
  }
  return ParseDelimited(open, close, open_text, [&]() -> absl::Status {
    int64_t v = 0;
    XLITE_RETURN_IF_ERROR(ParseInt(&v));
    values->push_back(v);
    return absl::OkStatus();
  });
}

absl::Status HloTextParser::ParseDelimited(TokKind open, TokKind close, std::string_view open_text,
                                           absl::FunctionRef<absl::Status()> element) {
  if (kind() != open) return Expected(Cat("'", open_text, "'"));
  Advance();
  if (Consume(close)) return absl::OkStatus();
  while (true) {
    XLITE_RETURN_IF_ERROR(element());
    if (Consume(close)) return absl::OkStatus();
    if (!Consume(TokKind::kComma)) return Expected("',' or a closing bracket");
  }
}

absl::Status HloTextParser::ParseIntList(std::vector<int64_t>* values) {
  return ParseDelimitedInts(TokKind::kLbrace, TokKind::kRbrace, "{", values);
}

absl::Status HloTextParser::ParseBracketIntList(std::vector<int64_t>* values) {
  return ParseDelimitedInts(TokKind::kLbracket, TokKind::kRbracket, "[", values);
}

absl::Status HloTextParser::ParseParenIntList(std::vector<int64_t>* values) {
  return ParseDelimitedInts(TokKind::kLparen, TokKind::kRparen, "(", values);
}

absl::Status HloTextParser::ParseIntListList(std::vector<std::vector<int64_t>>* values) {
  values->clear();
  return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&] {
    values->emplace_back();
    return ParseIntList(&values->back());
  });
}

absl::Status HloTextParser::ParseBoolList(std::vector<bool>* values) {
  values->clear();
  return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
    bool b;
    XLITE_RETURN_IF_ERROR(ParseBool(&b));
    values->push_back(b);
    return absl::OkStatus();
  });
}

bool HloTextParser::AtShapeStart() {
  if (kind() == TokKind::kLparen) return true;
  if (kind() != TokKind::kIdent) return false;
  if (tok().text == "b") return lexer_.Peek().kind == TokKind::kLparen;
  return PrimitiveTypeFromName(tok().text).has_value();
}

absl::Status HloTextParser::ParseShape(Shape* shape) {
  XLITE_RETURN_IF_ERROR(Enter());
  NestingScope nesting(&depth_);
  if (kind() == TokKind::kLparen) {
    std::vector<Shape> elements;
    XLITE_RETURN_IF_ERROR(ParseDelimited(TokKind::kLparen, TokKind::kRparen, "(", [&] {
      elements.emplace_back();
      return ParseShape(&elements.back());
    }));
    *shape = Shape::Tuple(std::move(elements));
    return absl::OkStatus();
  }
  if (kind() != TokKind::kIdent) return Expected("a shape");
  std::optional<PrimitiveType> type = PrimitiveTypeFromName(tok().text);
  if (!type) {
    if (tok().text == "b" && lexer_.Peek().kind == TokKind::kLparen) {
      size_t offset = tok().offset;
      Advance();
      Advance();
      XLITE_RETURN_IF_ERROR(ParseShape(shape));
      if (!shape->IsArray() || shape->is_buffer()) {
        return ErrorAt(offset, "a buffer shape must hold an array shape");
      }
      shape->set_buffer(true);
      return Expect(TokKind::kRparen, "')' closing the buffer shape");
    }
    return Error(Cat("unknown element type '", tok().text, "'"));
  }
  if (ParseSimpleShape(*type, shape)) return absl::OkStatus();
  const size_t type_offset = tok().offset;
  Advance();
  DimVector dims;
  absl::InlinedVector<bool, 6> dynamic;
  bool any_dynamic = false;
  XLITE_RETURN_IF_ERROR(
      ParseDelimited(TokKind::kLbracket, TokKind::kRbracket, "[", [&]() -> absl::Status {
        bool is_dynamic = false;
        int64_t size = 0;
        if (Consume(TokKind::kQuestion)) {
          dims.push_back(Shape::kUnboundedSize);
          dynamic.push_back(true);
          any_dynamic = true;
          return absl::OkStatus();
        }
        if (Consume(TokKind::kLeq)) is_dynamic = true;
        XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&size));
        dims.push_back(size);
        dynamic.push_back(is_dynamic);
        any_dynamic |= is_dynamic;
        return absl::OkStatus();
      }));
  if (!IsArrayType(*type) && !dims.empty()) {
    return Error(Cat(PrimitiveTypeName(*type), " shapes have no dimensions"));
  }
  *shape = Shape(*type, dims);
  if (any_dynamic) {
    for (size_t i = 0; i < dynamic.size(); ++i) {
      if (dynamic[i]) shape->set_dynamic_dimension(static_cast<int64_t>(i), true);
    }
  }
  if (absl::Status valid = ValidateShape(*shape); !valid.ok()) {
    return ErrorAt(type_offset, std::string(valid.message()));
  }
  if (kind() == TokKind::kLbrace) {
    TokKind next = lexer_.Peek().kind;
    if (next == TokKind::kInt || next == TokKind::kColon || next == TokKind::kRbrace) {
      return ParseLayout(shape);
    }
  }
  return absl::OkStatus();
}

// Most shapes in dumps are `type[d,...]` or `type[d,...]{m,...}` written
// without spaces: those are read straight from the bytes instead of token by
// token. Anything else is left to the general path (returns false, nothing
// consumed); the current token is the element type.
bool HloTextParser::ParseSimpleShape(PrimitiveType type, Shape* shape) {
  if (!IsArrayType(type)) return false;
  const std::string_view text = lexer_.text();
  const char* p = text.data() + tok().offset + tok().text.size();
  const char* end = text.data() + text.size();
  if (p >= end || *p != '[') return false;
  ++p;
  const char* dims_begin = p;
  DimVector dims;
  if (!ScanDigitList(p, end, ']', &dims)) return false;
  // Dimensions written in at most 17 digits in all multiply to under 10^17
  // elements, whose bytes fit int64: only longer lists need ValidateShape.
  const bool may_overflow = p - dims_begin > 18;
  DimVector minor_to_major;
  const bool has_layout = p < end && *p == '{';
  if (has_layout) {
    ++p;
    if (!ScanDigitList(p, end, '}', &minor_to_major)) return false;
    // Checked here so that errors keep coming from the general path.
    if (minor_to_major.size() != dims.size()) return false;
    uint64_t seen = 0;
    for (int64_t d : minor_to_major) {
      if (d >= static_cast<int64_t>(dims.size()) || d >= 64 || (seen >> d) & 1) return false;
      seen |= uint64_t{1} << d;
    }
  }
  *shape = Shape(type, dims);
  // An invalid shape (e.g. an overflowing size) is reported by the general path.
  if (may_overflow && !ValidateShape(*shape).ok()) return false;
  if (has_layout) shape->set_layout(Layout(minor_to_major));
  lexer_.ResetTo(static_cast<size_t>(p - text.data()));
  return true;
}

absl::Status HloTextParser::ParseLayout(Shape* shape) {
  size_t offset = tok().offset;
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  Layout layout;
  while (kind() == TokKind::kInt) {
    int64_t d = 0;
    XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&d));
    layout.minor_to_major.push_back(d);
    if (!Consume(TokKind::kComma)) break;
  }
  if (Consume(TokKind::kColon)) XLITE_RETURN_IF_ERROR(ParseLayoutExtras(&layout));
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' closing the layout"));
  if (shape->IsArray() && static_cast<int64_t>(layout.minor_to_major.size()) != shape->rank()) {
    return ErrorAt(offset, Cat("layout has ", layout.minor_to_major.size(),
                               " dimensions but the shape has rank ", shape->rank()));
  }
  if (shape->IsArray()) {
    absl::InlinedVector<bool, 8> seen(layout.minor_to_major.size(), false);
    for (int64_t d : layout.minor_to_major) {
      if (d >= shape->rank() || seen[d]) {
        return ErrorAt(offset, "layout minor_to_major is not a permutation of the dimensions");
      }
      seen[d] = true;
    }
  }
  shape->set_layout(std::move(layout));
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseLayoutExtras(Layout* layout) {
  auto parse_type = [&](PrimitiveType* type) -> absl::Status {
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
    std::optional<PrimitiveType> t =
        kind() == TokKind::kIdent ? PrimitiveTypeFromName(tok().text) : std::nullopt;
    if (!t) return Expected("an element type");
    *type = *t;
    Advance();
    return Expect(TokKind::kRparen, "')'");
  };
  auto parse_one_int = [&](int64_t* v) -> absl::Status {
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
    XLITE_RETURN_IF_ERROR(ParseInt(v));
    return Expect(TokKind::kRparen, "')'");
  };
  while (kind() != TokKind::kRbrace) {
    if (Consume(TokKind::kHash)) {
      XLITE_RETURN_IF_ERROR(parse_type(&layout->mutable_extras()->index_primitive_type));
      continue;
    }
    if (Consume(TokKind::kStar)) {
      XLITE_RETURN_IF_ERROR(parse_type(&layout->mutable_extras()->pointer_primitive_type));
      continue;
    }
    if (kind() != TokKind::kIdent) return Expected("a layout attribute");
    std::string_view key = tok().text;
    size_t key_offset = tok().offset;
    Advance();
    LayoutExtras* extras = layout->mutable_extras();
    if (key == "D") {
      XLITE_RETURN_IF_ERROR(
          ParseDelimited(TokKind::kLparen, TokKind::kRparen, "(", [&]() -> absl::Status {
            DimLevel level;
            std::string_view name;
            XLITE_RETURN_IF_ERROR(ParseIdentifier(&name));
            if (name == "D") {
              level.type = DimLevelType::kDense;
            } else if (name == "C") {
              level.type = DimLevelType::kCompressed;
            } else if (name == "S") {
              level.type = DimLevelType::kSingleton;
            } else if (name == "H") {
              level.type = DimLevelType::kLooseCompressed;
            } else {
              return Error(Cat("unknown dimension level type '", name, "'"));
            }
            while (true) {
              if (Consume(TokKind::kPlus)) {
                level.unique = false;
              } else if (Consume(TokKind::kTilde)) {
                level.ordered = false;
              } else {
                break;
              }
            }
            extras->dim_levels.push_back(level);
            return absl::OkStatus();
          }));
    } else if (key == "T") {
      if (kind() != TokKind::kLparen) return Expected("'(' starting a tile");
      while (kind() == TokKind::kLparen) {
        Tile tile;
        XLITE_RETURN_IF_ERROR(
            ParseDelimited(TokKind::kLparen, TokKind::kRparen, "(", [&]() -> absl::Status {
              if (Consume(TokKind::kStar)) {
                tile.dimensions.push_back(Tile::kCombineDimension);
                return absl::OkStatus();
              }
              int64_t d = 0;
              XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&d));
              tile.dimensions.push_back(d);
              return absl::OkStatus();
            }));
        extras->tiles.push_back(std::move(tile));
      }
    } else if (key == "L") {
      XLITE_RETURN_IF_ERROR(parse_one_int(&extras->tail_padding_alignment_in_elements));
    } else if (key == "E") {
      XLITE_RETURN_IF_ERROR(parse_one_int(&extras->element_size_in_bits));
    } else if (key == "S") {
      XLITE_RETURN_IF_ERROR(parse_one_int(&extras->memory_space));
    } else if (key == "M") {
      XLITE_RETURN_IF_ERROR(parse_one_int(&extras->dynamic_shape_metadata_prefix_bytes));
    } else if (key == "SC") {
      if (kind() != TokKind::kLparen) return Expected("'(' starting a split config");
      while (Consume(TokKind::kLparen)) {
        SplitConfig config;
        XLITE_RETURN_IF_ERROR(ParseInt(&config.dimension));
        XLITE_RETURN_IF_ERROR(Expect(TokKind::kColon, "':'"));
        while (true) {
          int64_t i = 0;
          XLITE_RETURN_IF_ERROR(ParseInt(&i));
          config.split_indices.push_back(i);
          if (!Consume(TokKind::kComma)) break;
        }
        XLITE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
        extras->split_configs.push_back(std::move(config));
      }
    } else if (key == "P") {
      // As XLA: only a sparse layout (a dimension level other than D) has a
      // physical shape; the levels come first in the text.
      const bool sparse =
          std::any_of(extras->dim_levels.begin(), extras->dim_levels.end(),
                      [](const DimLevel& level) { return level.type != DimLevelType::kDense; });
      if (!sparse) {
        return ErrorAt(key_offset, "layout has a physical shape but is not for a sparse array");
      }
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
      Shape physical;
      XLITE_RETURN_IF_ERROR(ParseShape(&physical));
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
      extras->physical_shape = std::make_shared<const Shape>(std::move(physical));
    } else {
      return ErrorAt(key_offset, Cat("unknown layout attribute '", key, "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseShapeList(std::vector<Shape>* shapes) {
  shapes->clear();
  return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&] {
    shapes->emplace_back();
    return ParseShape(&shapes->back());
  });
}

absl::Status HloTextParser::ParseEntryLayout(ModuleConfig* config) {
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
  std::vector<Shape> params;
  XLITE_RETURN_IF_ERROR(ParseDelimited(TokKind::kLparen, TokKind::kRparen, "(", [&] {
    params.emplace_back();
    return ParseShape(&params.back());
  }));
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kArrow, "'->'"));
  Shape result;
  XLITE_RETURN_IF_ERROR(ParseShape(&result));
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}'"));
  config->entry_parameter_layouts = std::move(params);
  config->entry_result_layout = std::move(result);
  return absl::OkStatus();
}

}  // namespace xlite
