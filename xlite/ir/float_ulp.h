// Distances between floats in units in the last place of their own type,
// for tests and checks that allow a documented error (approximating passes,
// golden values of transcendental ops).
#ifndef XLITE_IR_FLOAT_ULP_H_
#define XLITE_IR_FLOAT_ULP_H_

#include <cstdint>

#include "xlite/ir/primitive_type.h"

namespace xlite {

// The bits of a float of `type` as a position on the line of representable
// values (sign-magnitude to two's complement, so -0 and +0 meet); the
// unsigned f8e8m0fnu maps as is.
int64_t OrderedFloatBits(uint64_t bits, PrimitiveType type);

// How many representable values of `type` lie between two bit patterns.
int64_t UlpDistance(uint64_t a_bits, uint64_t b_bits, PrimitiveType type);

}  // namespace xlite

#endif  // XLITE_IR_FLOAT_ULP_H_
