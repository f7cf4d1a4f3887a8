// Literal values of `constant(...)` and `literal=`: dense nested braces with
// exact per-dimension counts, `{...}` elision, tuples, complex pairs, special
// floats, and range checks against the element type.
#include <cmath>
#include <cstring>

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

double NanWithPayload(bool negative, uint64_t payload, PrimitiveType type) {
  uint64_t bits = 0x7ff0000000000000ull;
  // A double NaN keeps an f32 payload in its top mantissa bits through the
  // double->float conversion, so shift it there.
  if (type == PrimitiveType::F32) payload <<= 29;
  bits |= payload & 0x000fffffffffffffull;
  if ((bits & 0x000fffffffffffffull) == 0) bits |= 0x0008000000000000ull;
  if (negative) bits |= 0x8000000000000000ull;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

}  // namespace

absl::Status HloTextParser::ParseLiteral(const Shape& shape, Literal* literal,
                                         bool* elided) {
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
  XLITE_RETURN_IF_ERROR(ParseDelimited(TokKind::kLparen, TokKind::kRparen, "(",
                                       [&]() -> absl::Status {
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

absl::Status HloTextParser::ParseDenseLiteral(const Shape& shape, Literal* literal,
                                              bool* elided) {
  if (!shape.IsArray()) {
    return Error(Cat("cannot write a literal of type ",
                     PrimitiveTypeName(shape.element_type())));
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

absl::Status HloTextParser::ParseLiteralLevel(const Shape& shape, int64_t d,
                                              Literal* literal, int64_t* index) {
  XLITE_RETURN_IF_ERROR(Enter());
  NestingScope nesting(&depth_);
  const int64_t size = shape.dimensions(d);
  const bool innermost = d + 1 == shape.rank();
  int64_t count = 0;
  size_t open_offset = tok().offset;
  XLITE_RETURN_IF_ERROR(ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{",
                                       [&]() -> absl::Status {
    if (count == size) {
      return Error(Cat("too many elements in literal dimension ", d, " (size ", size,
                       ")"));
    }
    ++count;
    if (!innermost) return ParseLiteralLevel(shape, d + 1, literal, index);
    return ParseLiteralElement(shape.element_type(), literal, (*index)++);
  }));
  if (count != size) {
    return ErrorAt(open_offset, Cat("literal dimension ", d, " has ", count,
                                    " elements, expected ", size));
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseFloatValue(PrimitiveType type, double* value) {
  if (kind() != TokKind::kInt && kind() != TokKind::kFloat) {
    return Expected(Cat("a ", PrimitiveTypeName(type), " value"));
  }
  double v = tok().float_value;
  if (tok().has_nan_payload) {
    v = NanWithPayload(std::signbit(v), tok().nan_payload, type);
  }
  if (std::isfinite(v) && type != PrimitiveType::F64) {
    double back = DecodeFloat(EncodeFloat(v, type), type);
    if (!std::isfinite(back)) {
      return Error(Cat("value ", tok().text, " is out of range for ",
                       PrimitiveTypeName(type)));
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
      } else if (kind() == TokKind::kInt && (tok().int_value == 0 || tok().int_value == 1) &&
                 !tok().int_above_int64) {
        v = tok().int_value;
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
      const int bits = BitWidth(type);
      const int64_t v = tok().int_value;
      const bool above = tok().int_above_int64;
      bool in_range;
      if (IsSignedInt(type)) {
        in_range = !above && (bits == 64 || (v >= -(int64_t{1} << (bits - 1)) &&
                                             v < (int64_t{1} << (bits - 1))));
      } else {
        in_range = above ? bits == 64 : (v >= 0 && (bits == 64 || v < (int64_t{1} << bits)));
      }
      if (!in_range) {
        return Error(Cat("value ", tok().text, " is out of range for ",
                         PrimitiveTypeName(type)));
      }
      Advance();
      if (literal) literal->SetInt64(index, v);
      return absl::OkStatus();
    }
    case TypeKind::kFloat: {
      double v;
      XLITE_RETURN_IF_ERROR(ParseFloatValue(type, &v));
      if (literal) literal->SetDouble(index, v);
      return absl::OkStatus();
    }
    case TypeKind::kComplex: {
      PrimitiveType component = ComplexComponentType(type);
      double re, im;
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' starting a complex value"));
      XLITE_RETURN_IF_ERROR(ParseFloatValue(component, &re));
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kComma, "','"));
      XLITE_RETURN_IF_ERROR(ParseFloatValue(component, &im));
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
      if (literal) literal->SetComplex(index, {re, im});
      return absl::OkStatus();
    }
    default:
      return Error(Cat("cannot write a literal of type ", PrimitiveTypeName(type)));
  }
}

}  // namespace xlite
