// (being written) single-device path only until the in-process runtime lands.
#include "xlite/eval/multi_device.h"

#include "xlite/base/status.h"

namespace xlite {

absl::StatusOr<std::vector<Literal>> EvaluateOnAllDevices(
    const HloModule& module, absl::Span<const std::vector<Literal>> per_device_args,
    const EvalOptions& options) {
  int64_t devices = module.config().replica_count * module.config().num_partitions;
  if (devices != 1) return Unimplemented("running ", devices, " devices");
  if (per_device_args.size() != 1) {
    return InvalidArgument("expected 1 argument list, got ", per_device_args.size());
  }
  Evaluator evaluator(options);
  XLITE_ASSIGN_OR_RETURN(Literal result, evaluator.Run(module, per_device_args[0]));
  std::vector<Literal> results;
  results.push_back(std::move(result));
  return results;
}

}  // namespace xlite
