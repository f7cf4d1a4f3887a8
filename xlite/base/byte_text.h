// Byte counts as people read them, the one formatter every report uses:
// `4 bytes`, `37.3 GiB (40000000000 bytes)`, and for a saturated count
// (INT64_MAX, a total that overflowed) `more than 2^63 bytes`.
#ifndef XLITE_BASE_BYTE_TEXT_H_
#define XLITE_BASE_BYTE_TEXT_H_

#include <cstdint>
#include <string>

namespace xlite {

// The binary unit a byte count reads in: the largest of bytes, KiB, ... EiB
// that leaves a magnitude below 1024.
struct ByteUnit {
  double divisor = 1;  // bytes per unit
  const char* name = "bytes";
};
ByteUnit ByteUnitOf(double bytes);

// `with_exact` appends the exact count in parentheses once a unit is used.
std::string BytesText(int64_t bytes, bool with_exact = true);
// The same for a count kept as a double (cost figures: loops multiply them,
// XLA-compatible counts may be -1): whole values in range as BytesText,
// anything else as a plain number.
std::string ApproxBytesText(double bytes, bool with_exact = true);

}  // namespace xlite

#endif  // XLITE_BASE_BYTE_TEXT_H_
