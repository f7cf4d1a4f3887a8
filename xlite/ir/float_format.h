// Bit-level encode/decode of every floating-point element type, rounding like
// XLA (ml_dtypes): round-to-nearest-even, NaN kept, overflow to inf or NaN for
// the finite-only types, fnuz types without -0, f8e8m0fnu exponent-only.
#ifndef XLITE_IR_FLOAT_FORMAT_H_
#define XLITE_IR_FLOAT_FORMAT_H_

#include <cstdint>

#include "xlite/ir/primitive_type.h"

namespace xlite {

// The raw bits (in the low BitWidth(type) bits) of `value` rounded to `type`.
// `type` must be a float type (f16 ... f4e2m1fn, f32, f64).
uint64_t EncodeFloat(double value, PrimitiveType type);
// The exact value of the bits of a float type.
double DecodeFloat(uint64_t bits, PrimitiveType type);

// NaN payloads as XLA's text writes them (`nan(0x..)`): the mantissa bits of
// a NaN. Only the IEEE-style types, which have signalling NaNs, carry one;
// the others have a single NaN encoding and NanPayloadBits is 0 for them.
int NanPayloadBits(PrimitiveType type);
// The payload of a NaN written without one: the quiet bit alone (0 when the
// type carries no payload).
uint64_t DefaultNanPayload(PrimitiveType type);
// Bits of the NaN of `type` with this sign and payload; `payload` must be in
// [1, 2^NanPayloadBits(type)).
uint64_t NanBitsWithPayload(bool negative, uint64_t payload, PrimitiveType type);
// The payload of the NaN `bits` of `type` when XLA prints it (not the
// default one), else 0.
uint64_t PrintedNanPayload(uint64_t bits, PrimitiveType type);

}  // namespace xlite

#endif  // XLITE_IR_FLOAT_FORMAT_H_
