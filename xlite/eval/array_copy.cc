#include "xlite/eval/array_copy.h"

#include <cstring>
#include <limits>

#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/eval/index_util.h"

namespace xlite::eval {
namespace {

// One element of `bytes` bytes; fixed-size memcpy for the common widths
// lets the compiler emit a plain load/store.
inline void CopyElement(uint8_t* dst, const uint8_t* src, int64_t bytes) {
  switch (bytes) {
    case 1:
      *dst = *src;
      return;
    case 2:
      std::memcpy(dst, src, 2);
      return;
    case 4:
      std::memcpy(dst, src, 4);
      return;
    case 8:
      std::memcpy(dst, src, 8);
      return;
    case 16:
      std::memcpy(dst, src, 16);
      return;
    default:
      std::memcpy(dst, src, static_cast<size_t>(bytes));
  }
}

}  // namespace

StridedBox::StridedBox(absl::Span<const int64_t> sizes, int64_t a_offset,
                       absl::Span<const int64_t> a_strides, int64_t b_offset,
                       absl::Span<const int64_t> b_strides)
    : sizes(sizes.begin(), sizes.end()),
      a_strides(a_strides.begin(), a_strides.end()),
      b_strides(b_strides.begin(), b_strides.end()),
      a_offset(a_offset),
      b_offset(b_offset) {
  XLITE_CHECK(this->a_strides.size() == this->sizes.size() &&
              this->b_strides.size() == this->sizes.size());
}

bool StridedBox::empty() const {
  for (int64_t s : sizes) {
    if (s <= 0) return true;
  }
  return false;
}

void CopyBox(Literal& dst, const Literal& src, const StridedBox& box) {
  int64_t bytes = StorageBytes(dst.shape().element_type());
  XLITE_CHECK(bytes == StorageBytes(src.shape().element_type()));
  uint8_t* out = dst.mutable_raw_data().data();
  const uint8_t* in = src.raw_data().data();
  ForEachRun(box, [&](int64_t a, int64_t b, int64_t n) {
    if (n == 1) {
      CopyElement(out + a * bytes, in + b * bytes, bytes);
    } else {
      std::memcpy(out + a * bytes, in + b * bytes, static_cast<size_t>(n * bytes));
    }
  });
}

void CopyElementAt(Literal& dst, int64_t i, const Literal& src, int64_t j) {
  int64_t bytes = StorageBytes(dst.shape().element_type());
  XLITE_CHECK(bytes == StorageBytes(src.shape().element_type()));
  CopyElement(dst.mutable_raw_data().data() + i * bytes, src.raw_data().data() + j * bytes, bytes);
}

void FillWith(Literal& dst, const Literal& value) {
  int64_t bytes = StorageBytes(dst.shape().element_type());
  XLITE_CHECK(static_cast<int64_t>(value.raw_data().size()) == bytes);
  uint8_t* out = dst.mutable_raw_data().data();
  int64_t n = static_cast<int64_t>(dst.raw_data().size()) / bytes;
  for (int64_t i = 0; i < n; ++i) CopyElement(out + i * bytes, value.raw_data().data(), bytes);
}

absl::StatusOr<Literal> WithShape(const Literal& src, const Shape& shape) {
  Literal out(shape);
  if (out.raw_data().size() != src.raw_data().size() ||
      StorageBytes(shape.element_type()) != StorageBytes(src.shape().element_type())) {
    return InvalidArgument("cannot view ", src.shape().ToString(), " as ", shape.ToString(),
                           ": the element counts or widths differ");
  }
  if (!src.raw_data().empty()) {
    std::memcpy(out.mutable_raw_data().data(), src.raw_data().data(), src.raw_data().size());
  }
  return out;
}

std::vector<int64_t> StridesOf(const Shape& shape) { return RowMajorStrides(shape.dimensions()); }

absl::StatusOr<std::vector<int64_t>> IndexValues(const Literal& indices) {
  PrimitiveType t = indices.shape().element_type();
  if (!IsInteger(t)) {
    return InvalidArgument("indices must be integers, got ", indices.shape().ToString());
  }
  int64_t n = indices.element_count();
  std::vector<int64_t> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = indices.GetInt64(i);
    // GetInt64 gives u64's bit pattern: a value past INT64_MAX reads negative.
    if (t == PrimitiveType::U64 && v < 0) v = std::numeric_limits<int64_t>::max();
    values[i] = v;
  }
  return values;
}

}  // namespace xlite::eval
