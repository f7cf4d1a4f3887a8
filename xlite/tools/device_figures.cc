#include "xlite/tools/device_figures.h"

#include "absl/strings/str_cat.h"
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

}  // namespace xlite::tools
