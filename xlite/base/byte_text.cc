#include "xlite/base/byte_text.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace xlite {

std::string BytesText(int64_t bytes, bool with_exact) {
  if (bytes == INT64_MAX) return "more than 2^63 bytes";
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while ((value >= 1024 || value <= -1024) && unit < 6) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(bytes, " bytes");
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", value, units[unit]);
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
