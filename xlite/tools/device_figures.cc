#include "xlite/tools/device_figures.h"

#include "absl/strings/str_cat.h"
#include "xlite/base/byte_text.h"
#include "xlite/ir/computation.h"

namespace xlite::tools {
namespace {

bool Splits(const HloSharding& sharding) {
  if (sharding.IsTuple()) {
    for (const HloSharding& element : sharding.tuple_elements()) {
      if (Splits(element)) return true;
    }
    return false;
  }
  return sharding.IsTiled() && !sharding.IsReplicated();
}

bool IsShardingAnnotation(const HloInstruction& inst) {
  if (inst.opcode() != HloOpcode::kCustomCall || !inst.has_attrs()) return false;
  const std::string& target = inst.attrs<CustomCallAttrs>().target;
  return target == "Sharding" || target == "SPMDFullToShardShape" ||
         target == "SPMDShardToFullShape";
}

}  // namespace

bool FiguresArePerDevice(const HloModule& module) {
  if (module.config().num_partitions <= 1) return true;
  bool split_parameters = false, partitioned_ops = false;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (IsShardingAnnotation(*inst)) return false;
      const bool split = inst->has_sharding() && Splits(inst->sharding());
      if (inst->opcode() == HloOpcode::kParameter) {
        split_parameters |= split;
      } else if (split) {
        return false;
      }
      partitioned_ops |= IsCollectiveOpcode(inst->opcode()) ||
                         inst->opcode() == HloOpcode::kPartitionId;
    }
  }
  return !split_parameters || partitioned_ops;
}

std::string DoesNotFitWarning(int64_t peak_bytes, const DeviceSpec& device) {
  if (device.memory_bytes <= 0 || static_cast<double>(peak_bytes) <= device.memory_bytes) {
    return "";
  }
  return absl::StrCat("warning: the peak (", BytesText(peak_bytes, false),
                      ") does not fit the memory of ", device.name, " (",
                      BytesText(static_cast<int64_t>(device.memory_bytes), false), ")\n");
}

}  // namespace xlite::tools
