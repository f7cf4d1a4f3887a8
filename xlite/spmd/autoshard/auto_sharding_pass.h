// The `auto-sharding` pass: AutoShard as a step of a pass pipeline
// (`auto-sharding{mesh=2x4,device=h100},spmd-partitioner`), with the
// options of `xlite autoshard`.
#ifndef XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_PASS_H_
#define XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_PASS_H_

#include <string_view>

#include "xlite/analysis/device_spec.h"
#include "xlite/passes/pass.h"
#include "xlite/spmd/autoshard/auto_sharding.h"

namespace xlite::spmd {

class AutoShardingPass : public HloPass {
 public:
  AutoShardingPass(DeviceSpec device, AutoShardOptions options)
      : device_(std::move(device)), options_(std::move(options)) {}
  std::string_view name() const override { return "auto-sharding"; }
  // Annotates the module and sets num_partitions; AutoShard's errors (a
  // mesh num_partitions contradicts, no plan within the memory limit) are
  // the pass's.
  absl::StatusOr<bool> Run(HloModule& module) override;

 private:
  DeviceSpec device_;
  AutoShardOptions options_;
};

// Adds auto-sharding to the pass registry (idempotent).
void RegisterAutoShardingPass();

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_PASS_H_
