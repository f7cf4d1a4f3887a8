#include "xlite/ir/literal.h"

#include <cmath>
#include <limits>
#include <new>
#include <stdexcept>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "xlite/base/status.h"
#include "xlite/ir/float_format.h"

namespace xlite {
namespace {

// Sign-extends the low `bits` bits of `v`.
int64_t SignExtend(uint64_t v, int bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t m = uint64_t{1} << (bits - 1);
  v &= (uint64_t{1} << bits) - 1;
  return static_cast<int64_t>((v ^ m) - m);
}

uint64_t LowBits(uint64_t v, int bits) { return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1); }

// An integer converted to double without a second rounding later: values
// beyond 2^53 are rounded to odd at 53 bits, which keeps the subsequent
// round-to-nearest-even to any narrower format correct.
double IntToDoubleForNarrowing(uint64_t magnitude, bool negative) {
  int shift = 0;
  while ((magnitude >> shift) >= (uint64_t{1} << 53)) ++shift;
  uint64_t kept = magnitude >> shift;
  if (shift > 0 && (magnitude & ((uint64_t{1} << shift) - 1)) != 0) kept |= 1;
  double d = std::ldexp(static_cast<double>(kept), shift);
  return negative ? -d : d;
}

// An integer value in full: signed types keep the sign, u64 uses magnitude.
struct IntValue {
  bool negative;
  uint64_t magnitude;
};

uint64_t EncodeFromInt(IntValue v, PrimitiveType to) {
  if (to == PrimitiveType::F64 || to == PrimitiveType::F32) {
    // The hardware conversions round once, to nearest even.
    if (to == PrimitiveType::F64) {
      double d = v.negative ? -static_cast<double>(v.magnitude) : static_cast<double>(v.magnitude);
      return EncodeFloat(d, to);
    }
    float f = v.negative ? -static_cast<float>(v.magnitude) : static_cast<float>(v.magnitude);
    return EncodeFloat(f, to);
  }
  return EncodeFloat(IntToDoubleForNarrowing(v.magnitude, v.negative), to);
}

// Float -> integer as XLA's convert: truncate toward zero, NaN -> 0,
// saturate to the target range.
uint64_t FloatToIntBits(double v, PrimitiveType to) {
  int bits = BitWidth(to);
  if (std::isnan(v)) return 0;
  v = std::trunc(v);
  if (IsSignedInt(to)) {
    double lo = -std::ldexp(1.0, bits - 1);
    double hi = std::ldexp(1.0, bits - 1);  // exclusive
    int64_t r;
    if (v <= lo) {
      r = bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
    } else if (v >= hi) {
      r = bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
    } else {
      r = static_cast<int64_t>(v);
    }
    return LowBits(static_cast<uint64_t>(r), bits);
  }
  double hi = std::ldexp(1.0, bits);  // exclusive
  if (v <= 0) return 0;
  if (v >= hi) return bits >= 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t{1} << bits) - 1;
  return static_cast<uint64_t>(v);
}

constexpr int64_t kMaxAllocationBytes = int64_t{1} << 47;

}  // namespace

Literal::Literal(const Shape& shape) : Literal(shape, /*zero_filled=*/true) {}

Literal::Literal(const Shape& shape, bool zero_filled) : shape_(shape) {
  if (shape.IsTuple()) {
    tuple_.reserve(shape.tuple_size());
    for (const Shape& s : shape.tuple_shapes()) tuple_.push_back(Literal(s, zero_filled));
    return;
  }
  if (shape.IsArray()) {
    // Unbounded dimensions hold no elements; anything else must fit.
    bool unbounded = absl::c_linear_search(shape.dimensions(), Shape::kUnboundedSize);
    int64_t bytes = unbounded ? 0 : CheckedStorageBytes(shape);
    if (bytes < 0) throw std::length_error("literal size overflows int64: " + shape.ToString());
    // Beyond a 47-bit address space no allocator can succeed: fail the same
    // way on every allocator (sanitizers abort on such requests).
    if (bytes > kMaxAllocationBytes) throw std::bad_alloc();
    if (zero_filled) {
      data_.assign(static_cast<size_t>(bytes), 0);
    } else {
      data_.resize(static_cast<size_t>(bytes));
    }
  }
}

absl::StatusOr<Literal> Literal::Create(const Shape& shape) {
  return CreateChecked(shape, /*zero_filled=*/true);
}

absl::StatusOr<Literal> Literal::CreateForOverwrite(const Shape& shape) {
  return CreateChecked(shape, /*zero_filled=*/false);
}

absl::StatusOr<Literal> Literal::CreateChecked(const Shape& shape, bool zero_filled) {
  XLITE_RETURN_IF_ERROR(ValidateShape(shape));
  try {
    return Literal(shape, zero_filled);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  return absl::ResourceExhaustedError(absl::StrCat("out of memory while allocating ",
                                                   shape.ToString(), " (",
                                                   CheckedStorageBytes(shape), " bytes)"));
}

Literal Literal::Tuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const Literal& l : elements) shapes.push_back(l.shape());
  Literal result;
  result.shape_ = Shape::Tuple(std::move(shapes));
  result.tuple_ = std::move(elements);
  return result;
}

int64_t Literal::element_count() const {
  int bytes = StorageBytes(shape_.element_type());
  return bytes == 0 ? 0 : static_cast<int64_t>(data_.size()) / bytes;
}

namespace {

uint64_t LoadBits(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);  // little-endian hosts only, as XLA's literals
  return v;
}

void StoreBits(uint8_t* p, int bytes, uint64_t v) { std::memcpy(p, &v, bytes); }

}  // namespace

double Literal::GetDouble(int64_t i) const {
  PrimitiveType t = shape_.element_type();
  if (IsComplex(t)) return GetComplex(i).real();
  if (IsFloat(t)) {
    int bytes = StorageBytes(t);
    return DecodeFloat(LoadBits(data_.data() + i * bytes, bytes), t);
  }
  if (IsUnsignedInt(t)) return static_cast<double>(static_cast<uint64_t>(GetInt64(i)));
  return static_cast<double>(GetInt64(i));
}

int64_t Literal::GetInt64(int64_t i) const {
  PrimitiveType t = shape_.element_type();
  if (IsFloat(t) || IsComplex(t)) {
    return static_cast<int64_t>(FloatToIntBits(GetDouble(i), PrimitiveType::S64));
  }
  int bytes = StorageBytes(t);
  uint64_t raw = LoadBits(data_.data() + i * bytes, bytes);
  if (IsPred(t)) return raw != 0;
  if (IsSignedInt(t)) return SignExtend(raw, BitWidth(t));
  return static_cast<int64_t>(LowBits(raw, BitWidth(t)));
}

std::complex<double> Literal::GetComplex(int64_t i) const {
  PrimitiveType t = shape_.element_type();
  if (t == PrimitiveType::C64) {
    float parts[2];
    std::memcpy(parts, data_.data() + i * 8, 8);
    return {parts[0], parts[1]};
  }
  if (t == PrimitiveType::C128) {
    double parts[2];
    std::memcpy(parts, data_.data() + i * 16, 16);
    return {parts[0], parts[1]};
  }
  return {GetDouble(i), 0.0};
}

uint64_t Literal::GetBits(int64_t i) const {
  const int bytes = StorageBytes(shape_.element_type());
  return LoadBits(data_.data() + i * bytes, bytes);
}

void Literal::SetBits(int64_t i, uint64_t bits) {
  const int bytes = StorageBytes(shape_.element_type());
  StoreBits(data_.data() + i * bytes, bytes, bits);
}

void Literal::SetDouble(int64_t i, double v) {
  PrimitiveType t = shape_.element_type();
  int bytes = StorageBytes(t);
  uint8_t* p = data_.data() + i * bytes;
  if (IsComplex(t)) {
    SetComplex(i, {v, 0.0});
  } else if (IsFloat(t)) {
    StoreBits(p, bytes, EncodeFloat(v, t));
  } else if (IsPred(t)) {
    p[0] = v != 0;
  } else {
    StoreBits(p, bytes, FloatToIntBits(v, t));
  }
}

void Literal::SetInt64(int64_t i, int64_t v) {
  PrimitiveType t = shape_.element_type();
  int bytes = StorageBytes(t);
  uint8_t* p = data_.data() + i * bytes;
  if (IsPred(t)) {
    p[0] = v != 0;
  } else if (IsInteger(t)) {
    StoreBits(p, bytes, LowBits(static_cast<uint64_t>(v), BitWidth(t)));
  } else {
    IntValue iv{v < 0, v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v)};
    if (IsComplex(t)) {
      SetComplex(i, {DecodeFloat(EncodeFromInt(iv, PrimitiveType::F64), PrimitiveType::F64), 0});
    } else {
      StoreBits(p, bytes, EncodeFromInt(iv, t));
    }
  }
}

void Literal::SetComplex(int64_t i, std::complex<double> v) {
  PrimitiveType t = shape_.element_type();
  if (t == PrimitiveType::C64) {
    float parts[2] = {static_cast<float>(v.real()), static_cast<float>(v.imag())};
    std::memcpy(data_.data() + i * 8, parts, 8);
  } else if (t == PrimitiveType::C128) {
    double parts[2] = {v.real(), v.imag()};
    std::memcpy(data_.data() + i * 16, parts, 16);
  } else {
    SetDouble(i, v.real());
  }
}

absl::StatusOr<Literal> Literal::Convert(PrimitiveType to) const {
  PrimitiveType from = shape_.element_type();
  if (!shape_.IsArray()) {
    return InvalidArgument("convert: literal of shape ", shape_.ToString(), " is not an array");
  }
  if (!IsArrayType(to)) {
    return InvalidArgument("convert: ", std::string(PrimitiveTypeName(to)),
                           " is not an array type");
  }
  if (IsComplex(from) && !IsComplex(to)) {
    return InvalidArgument("convert: complex ", std::string(PrimitiveTypeName(from)), " to real ",
                           std::string(PrimitiveTypeName(to)), " is not allowed");
  }
  Shape out_shape = shape_;
  out_shape.set_element_type(to);
  Literal out(out_shape);
  const int64_t n = element_count();
  for (int64_t i = 0; i < n; ++i) {
    if (IsComplex(from)) {
      out.SetComplex(i, GetComplex(i));
    } else if (IsFloat(from)) {
      out.SetDouble(i, GetDouble(i));
    } else if (IsUnsignedInt(from) && BitWidth(from) == 64 && !IsInteger(to) && !IsPred(to)) {
      // u64 values above 2^63 do not fit SetInt64's signed argument.
      uint64_t u = static_cast<uint64_t>(GetInt64(i));
      IntValue iv{false, u};
      if (IsComplex(to)) {
        out.SetComplex(i, {static_cast<double>(u), 0});
      } else {
        int bytes = StorageBytes(to);
        StoreBits(out.data_.data() + i * bytes, bytes, EncodeFromInt(iv, to));
      }
    } else {
      out.SetInt64(i, GetInt64(i));
    }
  }
  return out;
}

bool Literal::operator==(const Literal& other) const {
  if (!shape_.Compatible(other.shape_)) return false;
  return data_ == other.data_ && tuple_ == other.tuple_;
}

}  // namespace xlite
