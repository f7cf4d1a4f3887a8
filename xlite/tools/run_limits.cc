#include "xlite/tools/run_limits.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "xlite/analysis/memory_estimate.h"
#include "xlite/base/byte_text.h"
#include "xlite/base/status.h"
#include "xlite/eval/multi_device.h"

namespace xlite::tools {
namespace {

// Time past the deadline the evaluator gets to stop on its own (it checks
// between instructions) before the watchdog ends the process.
constexpr std::chrono::seconds kWatchdogGrace(2);

}  // namespace

absl::StatusOr<int64_t> MemoryBudget(std::optional<int64_t> flag) {
  if (flag) return *flag;
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "MemAvailable:")) continue;
    rest = absl::StripAsciiWhitespace(rest);
    absl::ConsumeSuffix(&rest, "kB");
    int64_t kib = 0;
    if (absl::SimpleAtoi(absl::StripAsciiWhitespace(rest), &kib) && kib >= 0) return kib * 1024;
  }
  return InvalidArgument("cannot read MemAvailable from /proc/meminfo: give --memory-budget BYTES");
}

absl::Status CheckRunResources(const HloModule& module, int64_t budget_bytes,
                               bool one_device_per_process) {
  const ModuleConfig& config = module.config();
  int64_t devices = one_device_per_process ? 1 : config.DeviceCount();
  if (devices > kMaxInProcessDevices) {
    return InvalidArgument(
        "the module needs ", devices == INT64_MAX ? "more than 2^63" : absl::StrCat(devices),
        " devices (replica_count=", config.replica_count,
        " × num_partitions=", config.num_partitions, "); one process runs at most ",
        kMaxInProcessDevices, ": run it on several processes with --communicator mpi");
  }
  RunMemoryEstimate estimate = EstimateRunMemory(module);
  int64_t needed = one_device_per_process ? estimate.per_device_bytes : estimate.total_bytes;
  if (needed <= budget_bytes) return absl::OkStatus();
  std::string message = absl::StrCat(
      "the run needs an estimated ", BytesText(needed), " (parameters ",
      BytesText(estimate.parameter_bytes), ", output ", BytesText(estimate.output_bytes),
      devices > 1 ? absl::StrCat(", on each of ", devices, " devices") : "",
      ") but the memory budget is ", BytesText(budget_bytes),
      " (--memory-budget BYTES; the default is the available memory). Largest buffers:");
  for (const EstimatedBuffer& buffer : estimate.largest) {
    absl::StrAppend(&message, "\n  ", buffer.name, " ", buffer.shape, ": ",
                    BytesText(buffer.bytes));
  }
  return absl::ResourceExhaustedError(message);
}

std::chrono::steady_clock::time_point StartDeadline(std::optional<double> timeout_seconds) {
  using Clock = std::chrono::steady_clock;
  if (!timeout_seconds) return Clock::time_point::max();
  auto limit =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*timeout_seconds));
  Clock::time_point deadline = Clock::now() + limit;
  double seconds = *timeout_seconds;
  std::thread([deadline, seconds] {
    std::this_thread::sleep_until(deadline + kWatchdogGrace);
    std::cerr << "xlite run: error: the evaluation did not finish within --timeout " << seconds
              << " s (one instruction ran past it)" << std::endl;
    std::_Exit(1);
  }).detach();
  return deadline;
}

}  // namespace xlite::tools
