// int64_t arithmetic that saturates at INT64_MAX instead of overflowing, for
// sizes and scores summed over arbitrary (user-supplied) graphs.
#ifndef XLITE_BASE_SATURATING_H_
#define XLITE_BASE_SATURATING_H_

#include <cstdint>
#include <limits>

namespace xlite {

inline constexpr int64_t kSaturatedInt64 = std::numeric_limits<int64_t>::max();

// a + b, or INT64_MAX when that overflows (either way, for non-negative a, b).
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? kSaturatedInt64 : sum;
}

// a * b, or INT64_MAX when that overflows (for non-negative a, b).
inline int64_t SaturatingMultiply(int64_t a, int64_t b) {
  int64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? kSaturatedInt64 : product;
}

// A wide running total (a sweep of +bytes and -bytes cannot overflow it)
// read back clamped to [INT64_MIN, INT64_MAX].
using WideSum = __int128;
inline int64_t ClampToInt64(WideSum v) {
  if (v > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (v < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

}  // namespace xlite

#endif  // XLITE_BASE_SATURATING_H_
