// The notes `cost`, `mem` and `sched` print (and their time format): that a report's figures are
// for the whole program (a module with num_partitions > 1 not partitioned yet,
// analysis/partition_state.h), and that a peak does not fit a device.
#ifndef XLITE_TOOLS_DEVICE_FIGURES_H_
#define XLITE_TOOLS_DEVICE_FIGURES_H_

#include <cstdint>
#include <string>

#include "xlite/analysis/device_spec.h"
#include "xlite/analysis/partition_state.h"
#include "xlite/ir/module.h"

namespace xlite::tools {

inline constexpr char kGlobalFiguresNote[] =
    "figures are for the whole unpartitioned program; partition first (xlite opt "
    "--pipeline=spmd) for per-device figures";

// The text line saying a peak does not fit `device` (empty when it fits or
// the device's memory is unknown).
std::string DoesNotFitWarning(int64_t peak_bytes, const DeviceSpec& device);

// A time as `sched` and `autoshard` print it: "0 s", "12.34 us", "1.5 ms".
std::string SecondsText(double seconds);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_DEVICE_FIGURES_H_
