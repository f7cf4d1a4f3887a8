#include "xlite/tools/device_figures.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xlite/base/byte_text.h"

namespace xlite::tools {
std::string DoesNotFitWarning(int64_t peak_bytes, const DeviceSpec& device) {
  if (device.memory_bytes <= 0 || static_cast<double>(peak_bytes) <= device.memory_bytes) {
    return "";
  }
  return absl::StrCat("warning: the peak (", BytesText(peak_bytes, false),
                      ") does not fit the memory of ", device.name, " (",
                      BytesText(static_cast<int64_t>(device.memory_bytes), false), ")\n");
}

std::string SecondsText(double s) {
  if (s == 0) return "0 s";
  if (s < 1e-3) return absl::StrFormat("%.4g us", s * 1e6);
  if (s < 1) return absl::StrFormat("%.4g ms", s * 1e3);
  return absl::StrFormat("%.4g s", s);
}

}  // namespace xlite::tools
