#include "xlite/ir/float_ulp.h"

namespace xlite {

int64_t OrderedFloatBits(uint64_t bits, PrimitiveType type) {
  const int width = BitWidth(type);
  if (type == PrimitiveType::F8E8M0FNU) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (width - 1);
  const int64_t magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) ? -magnitude : magnitude;
}

int64_t UlpDistance(uint64_t a_bits, uint64_t b_bits, PrimitiveType type) {
  int64_t d = OrderedFloatBits(a_bits, type) - OrderedFloatBits(b_bits, type);
  return d < 0 ? -d : d;
}

}  // namespace xlite
