#include "xlite/spmd/autoshard/auto_sharding_pass.h"

#include <cmath>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "xlite/base/status.h"
#include "xlite/passes/pass_registry.h"

namespace xlite::spmd {
namespace {

absl::StatusOr<std::unique_ptr<HloPass>> MakeAutoShardingPass(PassArgs& args) {
  const std::string mesh_text = args.Take("mesh", "");
  if (mesh_text.empty()) {
    return InvalidArgument("auto-sharding needs mesh=SIZES, e.g. auto-sharding{mesh=2x4}");
  }
  AutoShardOptions options;
  absl::StatusOr<DeviceMesh> mesh = ParseMesh(mesh_text);
  if (!mesh.ok()) return InvalidArgument("auto-sharding mesh: ", mesh.status().message());
  options.mesh = *std::move(mesh);
  XLITE_ASSIGN_OR_RETURN(DeviceSpec device, LoadDeviceSpec(args.Take("device", "h100")));
  XLITE_ASSIGN_OR_RETURN(int64_t limit, args.TakeInt("memory_limit", 0, 0));
  if (limit > 0) options.memory_limit = static_cast<double>(limit);
  XLITE_ASSIGN_OR_RETURN(options.keep_annotations, args.TakeBool("keep_annotations", false));
  const std::string seconds = args.Take("time_limit", "10");
  if (!absl::SimpleAtod(seconds, &options.solver_seconds) ||
      !std::isfinite(options.solver_seconds) || options.solver_seconds <= 0) {
    return InvalidArgument("auto-sharding time_limit must be a positive number of seconds, got '",
                           seconds, "'");
  }
  return std::unique_ptr<HloPass>(
      std::make_unique<AutoShardingPass>(std::move(device), std::move(options)));
}

}  // namespace

absl::StatusOr<bool> AutoShardingPass::Run(HloModule& module) {
  XLITE_RETURN_IF_ERROR(AutoShard(module, device_, options_).status());
  return true;
}

void RegisterAutoShardingPass() {
  static const bool registered = [] {
    RegisterPass(PassInfo{
        "auto-sharding",
        "finds a sharding for every array instruction of the entry on a device mesh and sets "
        "num_partitions, as `xlite autoshard` (mesh=2x4 required; device=h100, "
        "memory_limit=BYTES (default: the device's memory), keep_annotations=false, "
        "time_limit=10 seconds for the ILP)",
        MakeAutoShardingPass});
    return true;
  }();
  (void)registered;
}

}  // namespace xlite::spmd
