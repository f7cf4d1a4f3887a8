// Conversions: convert (XLA rounding through Literal::Convert; complex to
// real keeps the real part), bitcast-convert (same or different widths,
// little-endian order of the pieces) and stochastic-convert (float to signed
// integer rounding up when the random bits fall below the fraction).
#include <cmath>
#include <cstring>

#include "xlite/eval/elementwise_internal.h"

namespace xlite::eval {
namespace {

using O = HloOpcode;

absl::StatusOr<Literal> ConvertHandler(const HloInstruction& inst, Operands ops, EvalContext&) {
  const Literal& in = *ops[0];
  PrimitiveType to = inst.shape().element_type();
  if (IsComplex(in.shape().element_type()) && !IsComplex(to)) {
    Literal out(WithElementType(in.shape(), to));
    for (int64_t i = 0; i < out.element_count(); ++i) out.SetDouble(i, in.GetComplex(i).real());
    return out;
  }
  return in.Convert(to);
}

// Bit `bit` (from the least significant) of element `element`, for storage
// of `bytes` bytes per element.
bool RawBit(const uint8_t* data, int bytes, int64_t element, int64_t bit) {
  return (data[element * bytes + bit / 8] >> (bit % 8)) & 1;
}

absl::StatusOr<Literal> BitcastConvertHandler(const HloInstruction& inst, Operands ops,
                                              EvalContext&) {
  const Literal& in = *ops[0];
  PrimitiveType from = in.shape().element_type();
  PrimitiveType to = inst.shape().element_type();
  Literal out(WithElementType(inst.shape(), to));
  const int in_bits = BitWidth(from), out_bits = BitWidth(to);
  const int in_bytes = StorageBytes(from), out_bytes = StorageBytes(to);
  if (in.element_count() * in_bits != out.element_count() * out_bits) {
    return InvalidArgument("bitcast-convert from ", in.shape().ToString(), " to ",
                           inst.shape().ToString(), " changes the number of bits");
  }
  if (in_bits == 8 * in_bytes && out_bits == 8 * out_bytes) {
    // Whole bytes on a little-endian host: the pieces of an element are its
    // bytes in memory order, which a flat copy keeps.
    if (!in.raw_data().empty()) {
      std::memcpy(out.mutable_raw_data().data(), in.raw_data().data(), in.raw_data().size());
    }
    return out;
  }
  // Sub-byte types: walk the bit stream, element i of the input holding
  // bits [i * in_bits, (i + 1) * in_bits).
  const uint8_t* src = in.raw_data().data();
  uint8_t* dst = out.mutable_raw_data().data();
  for (int64_t j = 0; j < out.element_count(); ++j) {
    for (int64_t k = 0; k < out_bits; ++k) {
      int64_t pos = j * out_bits + k;
      if (RawBit(src, in_bytes, pos / in_bits, pos % in_bits)) {
        dst[j * out_bytes + k / 8] |= static_cast<uint8_t>(1u << (k % 8));
      }
    }
  }
  return out;
}

// XLA's rule: |x| splits into integer and fraction; the fraction scaled by
// 2^(random bits) and truncated is compared with the random value, rounding
// the magnitude up when the random value is smaller; out-of-range and
// infinite values saturate, NaN gives 0.
absl::StatusOr<Literal> StochasticConvertHandler(const HloInstruction& inst, Operands ops,
                                                 EvalContext&) {
  const Literal& x = *ops[0];
  const Literal& random = *ops[1];
  PrimitiveType to = inst.shape().element_type();
  if (!IsFloat(x.shape().element_type()) || !IsUnsignedInt(random.shape().element_type())) {
    return InvalidArgument("stochastic-convert needs a float operand and unsigned random bits");
  }
  if (!IsSignedInt(to)) {
    return Unimplemented("stochastic-convert to ", AsAbsl(PrimitiveTypeName(to)),
                         " (XLA defines it for signed integer results only)");
  }
  const int to_bits = BitWidth(to);
  const int random_bits = BitWidth(random.shape().element_type());
  const double min = -std::ldexp(1.0, to_bits - 1);
  const double max = std::ldexp(1.0, to_bits - 1) - 1;
  Literal out(WithElementType(inst.shape(), to));
  for (int64_t i = 0; i < out.element_count(); ++i) {
    double v = x.GetDouble(i);
    int64_t result;
    if (v <= min) {
      result = static_cast<int64_t>(min);
    } else if (v >= max) {
      result = static_cast<int64_t>(max);
    } else if (std::isnan(v)) {
      result = 0;
    } else {
      double magnitude = std::fabs(v);
      double whole = std::floor(magnitude);
      auto fixed = static_cast<uint64_t>(std::ldexp(magnitude - whole, random_bits));
      auto r = static_cast<uint64_t>(random.GetInt64(i));
      result = static_cast<int64_t>(whole) + (r < fixed ? 1 : 0);
      if (v < 0) result = -result;
    }
    out.SetInt64(i, result);
  }
  return out;
}

}  // namespace

void RegisterConvertOps(OpHandlerTable& table) {
  table.Register(O::kConvert, ConvertHandler);
  table.Register(O::kBitcastConvert, BitcastConvertHandler);
  table.Register(O::kStochasticConvert, StochasticConvertHandler);
}

}  // namespace xlite::eval
