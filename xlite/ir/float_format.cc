#include "xlite/ir/float_format.h"

#include <cmath>
#include <cstring>

#include "xlite/base/check.h"

namespace xlite {
namespace {

// How a format spells its special values; the names follow the ml_dtypes
// type suffixes (fn: finite + NaN, fnuz: + unsigned zero, fnu: unsigned).
enum class Specials : uint8_t {
  kIeee,  // inf = max exponent, NaN = max exponent with a mantissa
  kFn,    // no inf; NaN = all magnitude bits set; inf and overflow -> NaN
  kFnuz,  // no inf, no -0; NaN = 0x80; inf and overflow -> NaN
  kE8M0,  // unsigned, no zero, no inf; NaN = 0xFF
  kNone,  // f4e2m1fn: neither inf nor NaN; inf and overflow saturate
};

struct Format {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Specials specials;

  bool is_signed() const { return specials != Specials::kE8M0; }
  int sign_shift() const { return exponent_bits + mantissa_bits; }
  uint64_t sign_bit() const { return is_signed() ? uint64_t{1} << sign_shift() : 0; }
  uint64_t all_magnitude() const { return (uint64_t{1} << sign_shift()) - 1; }
  int max_biased_exponent() const {  // of finite values
    int all_ones = (1 << exponent_bits) - 1;
    return specials == Specials::kIeee ? all_ones - 1 : all_ones;
  }
  uint64_t max_finite() const {
    switch (specials) {
      case Specials::kIeee:
        return (uint64_t{static_cast<unsigned>(max_biased_exponent())} << mantissa_bits) |
               ((uint64_t{1} << mantissa_bits) - 1);
      case Specials::kFn:
      case Specials::kE8M0:
        return all_magnitude() - 1;
      case Specials::kFnuz:
      case Specials::kNone:
        return all_magnitude();
    }
    return 0;
  }
  // The encodings ml_dtypes produces for NaN and +-inf inputs.
  uint64_t NaN(bool negative) const {
    switch (specials) {
      case Specials::kIeee:
        return (negative ? sign_bit() : 0) |
               (((uint64_t{1} << exponent_bits) - 1) << mantissa_bits) |
               (uint64_t{1} << (mantissa_bits - 1));
      case Specials::kFn:
        return (negative ? sign_bit() : 0) | all_magnitude();
      case Specials::kFnuz:
        return sign_bit();
      case Specials::kE8M0:
        return 0xFF;
      case Specials::kNone:
        // ml_dtypes' quiet_NaN() for f4e2m1fn is the -0 pattern; negating it
        // (for a negative NaN) gives +0.
        return negative ? 0 : sign_bit();
    }
    return 0;
  }
  uint64_t Inf(bool negative) const {
    switch (specials) {
      case Specials::kIeee:
        return (negative ? sign_bit() : 0) |
               (((uint64_t{1} << exponent_bits) - 1) << mantissa_bits);
      case Specials::kNone:
        return (negative ? sign_bit() : 0) | max_finite();
      default:
        return NaN(negative);
    }
  }
};

Format FormatOf(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F16:
      return {5, 10, 15, Specials::kIeee};
    case PrimitiveType::BF16:
      return {8, 7, 127, Specials::kIeee};
    case PrimitiveType::F8E5M2:
      return {5, 2, 15, Specials::kIeee};
    case PrimitiveType::F8E4M3:
      return {4, 3, 7, Specials::kIeee};
    case PrimitiveType::F8E4M3FN:
      return {4, 3, 7, Specials::kFn};
    case PrimitiveType::F8E4M3B11FNUZ:
      return {4, 3, 11, Specials::kFnuz};
    case PrimitiveType::F8E3M4:
      return {3, 4, 3, Specials::kIeee};
    case PrimitiveType::F8E5M2FNUZ:
      return {5, 2, 16, Specials::kFnuz};
    case PrimitiveType::F8E4M3FNUZ:
      return {4, 3, 8, Specials::kFnuz};
    case PrimitiveType::F8E8M0FNU:
      return {8, 0, 127, Specials::kE8M0};
    case PrimitiveType::F4E2M1FN:
      return {2, 1, 1, Specials::kNone};
    default:
      break;
  }
  XLITE_CHECK(false && "not a narrow float type");
}

uint64_t EncodeNarrow(double value, const Format& f) {
  bool negative = std::signbit(value) && f.is_signed();
  if (std::isnan(value)) return f.NaN(negative);
  if (f.specials == Specials::kE8M0 && (std::signbit(value) || value == 0)) {
    return f.NaN(false);  // no sign and no zero
  }
  if (std::isinf(value)) return f.Inf(negative);
  double a = std::fabs(value);
  uint64_t sign = negative ? f.sign_bit() : 0;
  if (a == 0) {
    return f.specials == Specials::kFnuz ? 0 : sign;
  }
  int exp2;
  std::frexp(a, &exp2);  // a = m * 2^exp2, m in [0.5, 1)
  int biased = exp2 - 1 + f.bias;
  // Formats with a zero have subnormals at biased exponent 0; e8m0 does not,
  // and values below its smallest (2^-127) round up to it, as in ml_dtypes.
  int min_normal = f.specials == Specials::kE8M0 ? 0 : 1;
  uint64_t magnitude;
  if (biased >= min_normal) {
    // Scale the significand to an integer in [2^M, 2^(M+1)) and round; a carry
    // to 2^(M+1) moves into the exponent through the addition below.
    double scaled = std::ldexp(a, f.mantissa_bits - (exp2 - 1));
    uint64_t q = static_cast<uint64_t>(std::nearbyint(scaled));
    if (biased > f.max_biased_exponent() + 1) return f.Inf(negative);
    magnitude =
        (static_cast<uint64_t>(biased) << f.mantissa_bits) + q - (uint64_t{1} << f.mantissa_bits);
  } else if (f.specials == Specials::kE8M0) {
    magnitude = 0;
  } else {
    double scaled = std::ldexp(a, f.mantissa_bits - (min_normal - f.bias));
    magnitude = static_cast<uint64_t>(std::nearbyint(scaled));
  }
  if (magnitude > f.max_finite()) return f.Inf(negative);
  if (magnitude == 0 && f.specials == Specials::kFnuz) return 0;
  return sign | magnitude;
}

double DecodeNarrow(uint64_t bits, const Format& f) {
  bits &= f.sign_bit() | f.all_magnitude();
  uint64_t magnitude = bits & f.all_magnitude();
  bool negative = (bits & f.sign_bit()) != 0;
  int biased = static_cast<int>(magnitude >> f.mantissa_bits);
  uint64_t mantissa = magnitude & ((uint64_t{1} << f.mantissa_bits) - 1);
  int all_ones = (1 << f.exponent_bits) - 1;
  switch (f.specials) {
    case Specials::kIeee:
      if (biased == all_ones) {
        if (mantissa != 0) return negative ? -NAN : NAN;
        return negative ? -INFINITY : INFINITY;
      }
      break;
    case Specials::kFn:
      if (magnitude == f.all_magnitude()) return negative ? -NAN : NAN;
      break;
    case Specials::kFnuz:
      // The NaN pattern is the -0 one, and ml_dtypes keeps its sign bit when
      // widening it, so XLA prints these NaNs as `-nan`.
      if (bits == f.sign_bit()) return -NAN;
      break;
    case Specials::kE8M0:
      if (bits == 0xFF) return NAN;
      return std::ldexp(1.0, biased - f.bias);
    case Specials::kNone:
      break;
  }
  double v;
  if (biased == 0) {
    v = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits);
  } else {
    v = std::ldexp(static_cast<double>(mantissa | (uint64_t{1} << f.mantissa_bits)),
                   biased - f.bias - f.mantissa_bits);
  }
  return negative ? -v : v;
}

}  // namespace

uint64_t EncodeFloat(double value, PrimitiveType type) {
  if (type == PrimitiveType::F64) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
  }
  if (type == PrimitiveType::F32) {
    float f = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    return bits;
  }
  return EncodeNarrow(value, FormatOf(type));
}

double DecodeFloat(uint64_t bits, PrimitiveType type) {
  if (type == PrimitiveType::F64) {
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    return d;
  }
  if (type == PrimitiveType::F32) {
    uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, sizeof(f));
    return f;
  }
  return DecodeNarrow(bits, FormatOf(type));
}

int NanPayloadBits(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F64:
      return 52;
    case PrimitiveType::F32:
      return 23;
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
    case PrimitiveType::F8E5M2:
    case PrimitiveType::F8E4M3:
    case PrimitiveType::F8E3M4:
      return FormatOf(type).mantissa_bits;
    default:
      return 0;
  }
}

uint64_t DefaultNanPayload(PrimitiveType type) {
  const int bits = NanPayloadBits(type);
  return bits == 0 ? 0 : uint64_t{1} << (bits - 1);
}

uint64_t NanBitsWithPayload(bool negative, uint64_t payload, PrimitiveType type) {
  const int mantissa_bits = NanPayloadBits(type);
  XLITE_CHECK(mantissa_bits > 0 && payload != 0 && (payload >> mantissa_bits) == 0);
  const int width = BitWidth(type);
  const uint64_t sign = negative ? uint64_t{1} << (width - 1) : 0;
  const uint64_t exponent = ((uint64_t{1} << (width - 1 - mantissa_bits)) - 1) << mantissa_bits;
  return sign | exponent | payload;
}

uint64_t PrintedNanPayload(uint64_t bits, PrimitiveType type) {
  const int mantissa_bits = NanPayloadBits(type);
  if (mantissa_bits == 0) return 0;
  const uint64_t payload = bits & ((uint64_t{1} << mantissa_bits) - 1);
  return payload == DefaultNanPayload(type) ? 0 : payload;
}

}  // namespace xlite
