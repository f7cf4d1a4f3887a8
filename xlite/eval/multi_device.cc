#include "xlite/eval/multi_device.h"

#include <thread>

#include "xlite/base/status.h"
#include "xlite/runtime/in_process_communicator.h"

namespace xlite {

absl::StatusOr<std::vector<Literal>> EvaluateOnAllDevices(
    const HloModule& module, absl::Span<const std::vector<Literal>> per_device_args,
    const EvalOptions& options) {
  int64_t replicas = module.config().replica_count;
  int64_t partitions = module.config().num_partitions;
  if (replicas < 1 || partitions < 1) {
    return InvalidArgument("module ", module.name(), " has ", replicas, " replicas and ",
                           partitions, " partitions");
  }
  int64_t devices = module.config().DeviceCount();
  if (devices > kMaxInProcessDevices) {
    return InvalidArgument("module ", module.name(), " needs ", devices,
                           " devices; one process runs at most ", kMaxInProcessDevices);
  }
  if (per_device_args.size() != 1 && static_cast<int64_t>(per_device_args.size()) != devices) {
    return InvalidArgument("expected 1 or ", devices, " argument lists, got ",
                           per_device_args.size());
  }
  InProcessCommunicator communicator(devices);
  std::vector<absl::StatusOr<Literal>> results(devices, absl::UnknownError("not run"));
  auto run_device = [&](int64_t d) {
    EvalOptions device_options = options;
    device_options.replica_id = d / partitions;
    device_options.partition_id = d % partitions;
    device_options.communicator = &communicator;
    Evaluator evaluator(device_options);
    results[d] = evaluator.Run(module, per_device_args[per_device_args.size() == 1 ? 0 : d]);
    communicator.DeviceFinished(d, results[d].status());
  };
  if (devices == 1) {
    run_device(0);
  } else {
    std::vector<std::thread> threads;
    threads.reserve(devices);
    for (int64_t d = 0; d < devices; ++d) threads.emplace_back(run_device, d);
    for (std::thread& t : threads) t.join();
  }
  return DeviceResultsOrRootCause(std::move(results));
}

absl::StatusOr<std::vector<Literal>> DeviceResultsOrRootCause(
    std::vector<absl::StatusOr<Literal>> results) {
  const absl::Status* first_error = nullptr;
  for (const auto& r : results) {
    if (r.ok()) continue;
    if (r.status().code() != absl::StatusCode::kAborted) return r.status();
    if (first_error == nullptr) first_error = &r.status();
  }
  if (first_error != nullptr) return *first_error;
  std::vector<Literal> out;
  out.reserve(results.size());
  for (auto& r : results) out.push_back(*std::move(r));
  return out;
}

}  // namespace xlite
