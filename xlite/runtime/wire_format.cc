#include "xlite/runtime/wire_format.h"

#include <cstring>
#include <utility>
#include <vector>

#include "xlite/base/status.h"

namespace xlite::runtime {
namespace {

// Deeper tuples than this are corrupt input, not a real value.
constexpr int kMaxTupleDepth = 64;

}  // namespace

void WireWriter::PutU64(uint64_t v) {
  char raw[sizeof(v)];
  std::memcpy(raw, &v, sizeof(v));
  bytes_.append(raw, sizeof(v));
}

void WireWriter::PutString(std::string_view s) {
  PutU64(s.size());
  bytes_.append(s);
}

void WireWriter::PutShape(const Shape& shape) {
  PutU64(static_cast<uint64_t>(shape.element_type()));
  if (shape.IsTuple()) {
    PutU64(shape.tuple_size());
    for (const Shape& element : shape.tuple_shapes()) PutShape(element);
    return;
  }
  PutU64(shape.rank());
  for (int64_t i = 0; i < shape.rank(); ++i) {
    PutU64(static_cast<uint64_t>(shape.dimensions(i)));
    PutU64(shape.is_dynamic_dimension(i) ? 1 : 0);
  }
  PutU64(shape.is_buffer() ? 1 : 0);
  PutU64(shape.has_layout() ? 1 : 0);
  if (shape.has_layout()) {
    PutU64(shape.layout().minor_to_major.size());
    for (int64_t d : shape.layout().minor_to_major) PutU64(static_cast<uint64_t>(d));
  }
}

void WireWriter::PutLiteral(const Literal& literal) {
  PutShape(literal.shape());
  PutData(literal);
}

void WireWriter::PutData(const Literal& literal) {
  if (literal.shape().IsTuple()) {
    for (const Literal& element : literal.tuple_elements()) PutData(element);
    return;
  }
  absl::Span<const uint8_t> raw = literal.raw_data();
  PutString(std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size()));
}

absl::StatusOr<std::string_view> WireReader::GetBytes(size_t n) {
  if (n > bytes_.size() - offset_) {
    return InvalidArgument("truncated message: ", n, " bytes wanted at offset ", offset_, " of ",
                           bytes_.size());
  }
  std::string_view out = bytes_.substr(offset_, n);
  offset_ += n;
  return out;
}

absl::StatusOr<uint64_t> WireReader::GetU64() {
  XLITE_ASSIGN_OR_RETURN(std::string_view raw, GetBytes(sizeof(uint64_t)));
  uint64_t v = 0;
  std::memcpy(&v, raw.data(), sizeof(v));
  return v;
}

absl::StatusOr<std::string> WireReader::GetString() {
  XLITE_ASSIGN_OR_RETURN(uint64_t size, GetU64());
  XLITE_ASSIGN_OR_RETURN(std::string_view raw, GetBytes(size));
  return std::string(raw);
}

absl::StatusOr<Shape> WireReader::GetShape(int depth) {
  if (depth > kMaxTupleDepth) return InvalidArgument("corrupt message: tuples nest too deep");
  XLITE_ASSIGN_OR_RETURN(uint64_t type, GetU64());
  // PRIMITIVE_TYPE_INVALID (== kNumPrimitiveTypes) is the empty Literal()
  // that a member contributes when it has nothing to give.
  if (type > static_cast<uint64_t>(kNumPrimitiveTypes)) {
    return InvalidArgument("corrupt message: element type ", type);
  }
  auto element_type = static_cast<PrimitiveType>(type);
  XLITE_ASSIGN_OR_RETURN(uint64_t count, GetU64());
  if (count > bytes_.size()) return InvalidArgument("corrupt message: ", count, " elements");
  if (element_type == PrimitiveType::TUPLE) {
    std::vector<Shape> elements;
    for (uint64_t i = 0; i < count; ++i) {
      XLITE_ASSIGN_OR_RETURN(Shape element, GetShape(depth + 1));
      elements.push_back(std::move(element));
    }
    return Shape::Tuple(std::move(elements));
  }
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  uint64_t elements = 1;
  for (uint64_t i = 0; i < count; ++i) {
    XLITE_ASSIGN_OR_RETURN(uint64_t dim, GetU64());
    XLITE_ASSIGN_OR_RETURN(uint64_t is_dynamic, GetU64());
    // Elements no message could hold are corruption (and must not be
    // allocated).
    if (dim > bytes_.size() || (dim != 0 && elements > bytes_.size() / dim)) {
      return InvalidArgument("corrupt message: dimension ", dim);
    }
    elements *= dim;
    dims.push_back(static_cast<int64_t>(dim));
    dynamic.push_back(is_dynamic != 0);
  }
  Shape shape(element_type, dims);
  for (size_t i = 0; i < dynamic.size(); ++i) {
    if (dynamic[i]) shape.set_dynamic_dimension(static_cast<int64_t>(i), true);
  }
  XLITE_ASSIGN_OR_RETURN(uint64_t buffer, GetU64());
  shape.set_buffer(buffer != 0);
  XLITE_ASSIGN_OR_RETURN(uint64_t has_layout, GetU64());
  if (has_layout != 0) {
    XLITE_ASSIGN_OR_RETURN(uint64_t n, GetU64());
    if (n != count) return InvalidArgument("corrupt message: layout of ", n, " dimensions");
    std::vector<int64_t> minor_to_major;
    for (uint64_t i = 0; i < n; ++i) {
      XLITE_ASSIGN_OR_RETURN(uint64_t d, GetU64());
      minor_to_major.push_back(static_cast<int64_t>(d));
    }
    shape.set_layout(Layout(minor_to_major));
  }
  return shape;
}

absl::StatusOr<Literal> WireReader::GetLiteralOf(const Shape& shape) {
  Literal literal(shape);
  if (shape.IsTuple()) {
    for (Literal& element : literal.mutable_tuple_elements()) {
      XLITE_ASSIGN_OR_RETURN(element, GetLiteralOf(element.shape()));
    }
    return literal;
  }
  XLITE_ASSIGN_OR_RETURN(uint64_t size, GetU64());
  absl::Span<uint8_t> data = literal.mutable_raw_data();
  if (size != data.size()) {
    return InvalidArgument("corrupt message: ", size, " data bytes for ", shape.ToString(), " (",
                           data.size(), " expected)");
  }
  XLITE_ASSIGN_OR_RETURN(std::string_view raw, GetBytes(size));
  if (size > 0) std::memcpy(data.data(), raw.data(), size);
  return literal;
}

absl::StatusOr<Literal> WireReader::GetLiteral() {
  XLITE_ASSIGN_OR_RETURN(Shape shape, GetShape(0));
  return GetLiteralOf(shape);
}

}  // namespace xlite::runtime
