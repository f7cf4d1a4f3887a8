// Literal values of `constant(...)` and `literal=`: dense nested braces with
// exact per-dimension counts, `{...}` elision, tuples, complex pairs, special
// floats, and range checks against the element type.
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "xlite/base/status.h"
#include "xlite/ir/float_format.h"
#include "xlite/text/parser_impl.h"

namespace xlite {
namespace {

// Zero-filled literals for `{...}` are allocated; beyond this they are refused.
constexpr int64_t kMaxElidedBytes = int64_t{1} << 30;

// Element count of an array shape, or -1 when it overflows int64.
int64_t CheckedElementCount(const Shape& shape) {
  int64_t count = 1;
  for (int64_t d : shape.dimensions()) {
    if (d < 0) return -1;
    if (d != 0 && count > INT64_MAX / d) return -1;
    count *= d;
  }
  return count;
}

std::string HexText(uint64_t v) { return absl::StrCat(absl::Hex(v)); }

}  // namespace

absl::Status HloTextParser::ParseLiteral(const Shape& shape, Literal* literal, bool* elided) {
  XLITE_RETURN_IF_ERROR(Enter());
  NestingScope nesting(&depth_);
  if (!shape.IsTuple()) return ParseDenseLiteral(shape, literal, elided);
  if (kind() == TokKind::kLbrace && lexer_.Peek().kind == TokKind::kEllipsis) {
    Advance();
    Advance();
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' after '...'"));
    *elided = true;
    *literal = Literal(shape);
    return absl::OkStatus();
  }
  std::vector<Literal> elements;
  size_t offset = tok().offset;
  XLITE_RETURN_IF_ERROR(
      ParseDelimited(TokKind::kLparen, TokKind::kRparen, "(", [&]() -> absl::Status {
        int64_t i = static_cast<int64_t>(elements.size());
        if (i >= shape.tuple_size()) {
          return Error(Cat("tuple literal has more than ", shape.tuple_size(), " elements"));
        }
        elements.emplace_back();
        return ParseLiteral(shape.tuple_shapes(i), &elements.back(), elided);
      }));
  if (static_cast<int64_t>(elements.size()) != shape.tuple_size()) {
    return ErrorAt(offset, Cat("tuple literal has ", elements.size(),
                               " elements but the shape has ", shape.tuple_size()));
  }
  *literal = Literal::Tuple(std::move(elements));
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseShapedLiteral(Literal* literal) {
  XLITE_RETURN_IF_ERROR(Enter());
  NestingScope nesting(&depth_);
  bool elided = false;
  if (kind() != TokKind::kLparen) {
    Shape shape;
    XLITE_RETURN_IF_ERROR(ParseShape(&shape));
    return ParseLiteral(shape, literal, &elided);
  }
  std::vector<Literal> elements;
  XLITE_RETURN_IF_ERROR(
      ParseDelimited(TokKind::kLparen, TokKind::kRparen, "(", [&]() -> absl::Status {
        elements.emplace_back();
        return ParseShapedLiteral(&elements.back());
      }));
  *literal = Literal::Tuple(std::move(elements));
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseDenseLiteral(const Shape& shape, Literal* literal, bool* elided) {
  if (!shape.IsArray()) {
    return Error(Cat("cannot write a literal of type ", PrimitiveTypeName(shape.element_type())));
  }
  int64_t count = CheckedElementCount(shape);
  if (shape.rank() == 0) {
    *literal = Literal(shape);
    return ParseLiteralElement(shape.element_type(), literal, 0);
  }
  if (kind() == TokKind::kLbrace && lexer_.Peek().kind == TokKind::kEllipsis) {
    size_t offset = tok().offset;
    Advance();
    Advance();
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' after '...'"));
    if (count < 0 || count > kMaxElidedBytes / StorageBytes(shape.element_type())) {
      return NotSupportedAt(offset, "elided constant larger than 1 GiB");
    }
    *elided = true;
    *literal = Literal(shape);
    return absl::OkStatus();
  }
  // A bare scalar for an array shape fills every element (XLA accepts it).
  if (kind() != TokKind::kLbrace) {
    if (count < 0 || count > kMaxElidedBytes / StorageBytes(shape.element_type())) {
      return NotSupportedAt(tok().offset, "scalar-filled constant larger than 1 GiB");
    }
    Literal scalar(Shape::Scalar(shape.element_type()));
    XLITE_RETURN_IF_ERROR(ParseLiteralElement(shape.element_type(), &scalar, 0));
    *literal = Literal(shape);
    const size_t width = static_cast<size_t>(StorageBytes(shape.element_type()));
    absl::Span<uint8_t> data = literal->mutable_raw_data();
    for (size_t i = 0; i + width <= data.size(); i += width) {
      std::memcpy(data.data() + i, scalar.raw_data().data(), width);
    }
    return absl::OkStatus();
  }
  // Every element takes at least one byte of text: a larger count cannot
  // match, and the check-only pass below reports where it goes wrong without
  // allocating the impossible literal.
  int64_t index = 0;
  if (count < 0 || count > static_cast<int64_t>(lexer_.text().size())) {
    return ParseLiteralLevel(shape, 0, nullptr, &index);
  }
  *literal = Literal(shape);
  return ParseLiteralLevel(shape, 0, literal, &index);
}

absl::Status HloTextParser::ParseLiteralLevel(const Shape& shape, int64_t d, Literal* literal,
                                              int64_t* index) {
  XLITE_RETURN_IF_ERROR(Enter());
  NestingScope nesting(&depth_);
  const int64_t size = shape.dimensions(d);
  const bool innermost = d + 1 == shape.rank();
  int64_t count = 0;
  size_t open_offset = tok().offset;
  XLITE_RETURN_IF_ERROR(
      ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
        if (count == size) {
          return Error(Cat("too many elements in literal dimension ", d, " (size ", size, ")"));
        }
        ++count;
        if (!innermost) return ParseLiteralLevel(shape, d + 1, literal, index);
        return ParseLiteralElement(shape.element_type(), literal, (*index)++);
      }));
  if (count != size) {
    return ErrorAt(open_offset,
                   Cat("literal dimension ", d, " has ", count, " elements, expected ", size));
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseFloatValue(PrimitiveType type, double* value,
                                            uint64_t* nan_payload) {
  if (kind() != TokKind::kInt && kind() != TokKind::kFloat) {
    return Expected(Cat("a ", PrimitiveTypeName(type), " value"));
  }
  double v = tok().float_value;
  *nan_payload = 0;
  // As XLA: the double's default payload (the quiet bit) stands for the
  // type's default one; any other must fit the type's mantissa, and types
  // with a single NaN encoding take none.
  if (tok().has_nan_payload && tok().nan_payload != DefaultNanPayload(PrimitiveType::F64) &&
      tok().nan_payload != DefaultNanPayload(type)) {
    const uint64_t payload = tok().nan_payload;
    const int bits = NanPayloadBits(type);
    if (bits == 0) {
      return Error(Cat("NaN payload 0x", HexText(payload), " is not supported by ",
                       PrimitiveTypeName(type), ", which has a single NaN"));
    }
    if ((payload >> bits) != 0) {
      return Error(Cat("NaN payload 0x", HexText(payload), " is out of range for ",
                       PrimitiveTypeName(type), " (at most 0x", HexText((uint64_t{1} << bits) - 1),
                       ")"));
    }
    *nan_payload = payload;
    v = DecodeFloat(NanBitsWithPayload(std::signbit(v), payload, type), type);
  }
  if (std::isfinite(v) && type != PrimitiveType::F64) {
    double back = DecodeFloat(EncodeFloat(v, type), type);
    if (!std::isfinite(back)) {
      return Error(Cat("value ", tok().text, " is out of range for ", PrimitiveTypeName(type)));
    }
  }
  *value = v;
  Advance();
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseLiteralElement(PrimitiveType type, Literal* literal,
                                                int64_t index) {
  switch (KindOf(type)) {
    case TypeKind::kPred: {
      int64_t v;
      if (AtIdent("true") || AtIdent("false")) {
        v = AtIdent("true") ? 1 : 0;
      } else if (kind() == TokKind::kInt) {
        v = tok().int_value != 0;  // as XLA: any integer, nonzero is true
      } else {
        return Expected("'true' or 'false'");
      }
      Advance();
      if (literal) literal->SetInt64(index, v);
      return absl::OkStatus();
    }
    case TypeKind::kSignedInt:
    case TypeKind::kUnsignedInt: {
      if (kind() != TokKind::kInt) {
        return Expected(Cat("an integer ", PrimitiveTypeName(type), " value"));
      }
      // XLA reads every integer as an int64 (text above INT64_MAX wraps to
      // negative) and then checks it as a signed value against a signed type
      // and as a uint64 against an unsigned one, so `u64[] constant(-1)` is
      // all ones while `u32[] constant(-1)` is out of range.
      const int bits = BitWidth(type);
      const int64_t v = tok().int_value;
      if (IsSignedInt(type)) {
        const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
        const int64_t min = -max - 1;
        if (v < min || v > max) {
          return Error(Cat("value ", tok().text, " is out of range for ", PrimitiveTypeName(type),
                           " [", min, ", ", max, "]"));
        }
      } else {
        const uint64_t max = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
        if (static_cast<uint64_t>(v) > max) {
          return Error(Cat("value ", tok().text, " is out of range for ", PrimitiveTypeName(type),
                           " [0, ", max, "]"));
        }
      }
      Advance();
      if (literal) literal->SetInt64(index, v);
      return absl::OkStatus();
    }
    case TypeKind::kFloat: {
      double v;
      uint64_t payload;
      XLITE_RETURN_IF_ERROR(ParseFloatValue(type, &v, &payload));
      if (literal == nullptr) return absl::OkStatus();
      // Stored as bits: a conversion through double would drop the payload.
      if (payload != 0) {
        literal->SetBits(index, NanBitsWithPayload(std::signbit(v), payload, type));
      } else {
        literal->SetDouble(index, v);
      }
      return absl::OkStatus();
    }
    case TypeKind::kComplex: {
      PrimitiveType component = ComplexComponentType(type);
      double re, im;
      uint64_t payload;
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' starting a complex value"));
      XLITE_RETURN_IF_ERROR(ParseFloatValue(component, &re, &payload));
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kComma, "','"));
      XLITE_RETURN_IF_ERROR(ParseFloatValue(component, &im, &payload));
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
      if (literal) literal->SetComplex(index, {re, im});
      return absl::OkStatus();
    }
    default:
      return Error(Cat("cannot write a literal of type ", PrimitiveTypeName(type)));
  }
}

}  // namespace xlite
