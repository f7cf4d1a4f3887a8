#include "xlite/base/byte_text.h"

#include <cmath>
#include <cstdio>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace xlite {

ByteUnit ByteUnitOf(double bytes) {
  static constexpr const char* kNames[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  ByteUnit unit;
  for (size_t i = 1; i < std::size(kNames) && std::fabs(bytes) / unit.divisor >= 1024; ++i) {
    unit = {unit.divisor * 1024, kNames[i]};
  }
  return unit;
}

std::string BytesText(int64_t bytes, bool with_exact) {
  if (bytes == INT64_MAX) return "more than 2^63 bytes";
  const ByteUnit unit = ByteUnitOf(static_cast<double>(bytes));
  if (unit.divisor == 1) return absl::StrCat(bytes, " bytes");
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", static_cast<double>(bytes) / unit.divisor,
                unit.name);
  return with_exact ? absl::StrCat(text, " (", bytes, " bytes)") : std::string(text);
}

std::string ApproxBytesText(double bytes, bool with_exact) {
  if (std::isfinite(bytes) && bytes == std::floor(bytes) && std::fabs(bytes) < 9e18) {
    return BytesText(static_cast<int64_t>(bytes), with_exact);
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g bytes", bytes);
  return text;
}

}  // namespace xlite
