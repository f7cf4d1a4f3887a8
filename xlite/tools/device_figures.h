// Whether a report's figures are per device or for the whole program (a
// module with num_partitions > 1 that is not partitioned yet), and whether a
// peak fits a device's memory: the notes `cost`, `mem` and `sched` print.
#ifndef XLITE_TOOLS_DEVICE_FIGURES_H_
#define XLITE_TOOLS_DEVICE_FIGURES_H_

#include <cstdint>
#include <string>

#include "xlite/analysis/device_spec.h"
#include "xlite/ir/module.h"

namespace xlite::tools {

inline constexpr char kGlobalFiguresNote[] =
    "figures are for the whole unpartitioned program; partition first (xlite opt "
    "--pipeline=spmd) for per-device figures";

// False for a module that num_partitions > 1 says is split over devices but
// that still has the global shapes: a sharding-annotation custom-call, a
// split sharding on an instruction other than a parameter, or split
// parameters with no collective or partition-id to show partitioning
// happened. True otherwise (num_partitions == 1, or partitioned).
bool FiguresArePerDevice(const HloModule& module);

// The text line saying a peak does not fit `device` (empty when it fits or
// the device's memory is unknown).
std::string DoesNotFitWarning(int64_t peak_bytes, const DeviceSpec& device);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_DEVICE_FIGURES_H_
