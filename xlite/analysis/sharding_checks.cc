// Sharding validity. Device count: in a partitioned module (num_partitions >
// 1) tile assignments must cover exactly num_partitions devices and maximal
// devices lie below it. An unpartitioned module does not say how many devices
// its shardings address (pre-partitioning dumps, host/device placement, XLA's
// pass tests with device subsets such as {devices=[2]1,2}), so there only the
// structure is checked: distinct non-negative device ids.
#include "xlite/analysis/verifier_internal.h"
#include "xlite/base/status.h"

namespace xlite::verifier {

void CheckSharding(const HloInstruction& inst, const ModuleConfig& config, ErrorSink& errors) {
  absl::Status status = inst.sharding().Validate(
      inst.ShardedShape(),
      config.num_partitions > 1 ? config.num_partitions : HloSharding::kAnyDeviceCount);
  if (!status.ok()) {
    errors.Add(inst, absl::StrCat("invalid sharding: ", status.message()));
  }
}

}  // namespace xlite::verifier
