// Runs every device of a module (replica_count x num_partitions) on the
// in-process runtime, one thread per device, and returns each device's
// result. Device d is replica d / num_partitions, partition
// d % num_partitions (XLA's default device assignment).
#ifndef XLITE_EVAL_MULTI_DEVICE_H_
#define XLITE_EVAL_MULTI_DEVICE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/eval/evaluator.h"

namespace xlite {

// The most devices one process runs (a thread each); beyond that a module
// needs several processes (the MPI communicator).
inline constexpr int64_t kMaxInProcessDevices = 1024;

// `per_device_args` holds one argument list per device, or a single list
// that every device receives. `options` supplies the rng seed and the
// custom-call registry; the device ids and communicator are set per device.
absl::StatusOr<std::vector<Literal>> EvaluateOnAllDevices(
    const HloModule& module, absl::Span<const std::vector<Literal>> per_device_args,
    const EvalOptions& options = {});

// Every device's result, or the error that says what went wrong: the first
// that is not a peer's cascade (an Aborted "device N failed"). Shared by the
// in-process run and the MPI one, which gathers the results to rank 0.
absl::StatusOr<std::vector<Literal>> DeviceResultsOrRootCause(
    std::vector<absl::StatusOr<Literal>> results);

}  // namespace xlite

#endif  // XLITE_EVAL_MULTI_DEVICE_H_
