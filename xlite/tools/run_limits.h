// The resource limits of `xlite run`: the memory budget a run must fit
// (--memory-budget, by default the machine's available memory), the device
// count one process can run, and the wall-clock limit (--timeout) with a
// watchdog for a single instruction that runs past it.
#ifndef XLITE_TOOLS_RUN_LIMITS_H_
#define XLITE_TOOLS_RUN_LIMITS_H_

#include <chrono>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xlite/ir/module.h"

namespace xlite::tools {

// `flag` when given, else MemAvailable of /proc/meminfo.
absl::StatusOr<int64_t> MemoryBudget(std::optional<int64_t> flag);

// Refuses, before anything is allocated, a module that needs more devices
// than one process runs or more memory than `budget_bytes` (the error names
// the largest buffers). With `one_device_per_process` (--communicator mpi)
// this process holds one device's buffers and the device count is mpirun's.
absl::Status CheckRunResources(const HloModule& module, int64_t budget_bytes,
                               bool one_device_per_process);

// The evaluator's deadline for `--timeout SECONDS` (none without it). With a
// timeout, a watchdog also ends the process with a clear error (exit 1) when
// one instruction keeps running past the deadline, where the evaluator's own
// checks between instructions cannot stop it.
std::chrono::steady_clock::time_point StartDeadline(std::optional<double> timeout_seconds);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_RUN_LIMITS_H_
