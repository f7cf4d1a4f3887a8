#include "xlite/analysis/memory_estimate.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "xlite/base/saturating.h"

namespace xlite {
namespace {

constexpr int64_t kSaturated = kSaturatedInt64;
constexpr size_t kLargestShown = 5;

int64_t ValueBytes(const Shape& shape) {
  int64_t bytes = CheckedStorageBytes(shape);
  return bytes < 0 ? kSaturated : bytes;
}

class PeakEstimator {
 public:
  // The most bytes `computation` holds at once besides its parameters (which
  // its caller owns).
  int64_t Peak(const HloComputation& computation) {
    auto [it, inserted] = peaks_.try_emplace(&computation, 0);
    if (!inserted) return it->second;  // known, or in progress on a call cycle
    int64_t peak = Simulate(computation);
    peaks_[&computation] = peak;
    return peak;
  }

 private:
  int64_t Simulate(const HloComputation& computation) {
    std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
    absl::flat_hash_map<const HloInstruction*, int64_t> remaining_reads;
    for (const HloInstruction* inst : order) {
      for (const HloInstruction* operand : inst->operands()) ++remaining_reads[operand];
    }
    const HloInstruction* root = computation.root_instruction();
    int64_t live = 0, peak = 0;
    for (const HloInstruction* inst : order) {
      if (inst->opcode() == HloOpcode::kParameter) continue;
      int64_t bytes = ValueBytes(inst->shape());
      // The computations one instruction calls never run at once (while
      // condition and body, conditional branches), so the largest counts:
      // a sum would grow exponentially with nested shared branches.
      int64_t callees = 0;
      for (const HloComputation* callee : inst->called_computations()) {
        if (callee != nullptr) callees = std::max(callees, Peak(*callee));
      }
      int64_t during = SaturatingAdd(SaturatingAdd(live, SaturatingMultiply(bytes, 2)), callees);
      peak = std::max(peak, during);
      live = SaturatingAdd(live, bytes);
      for (const HloInstruction* operand : inst->operands()) {
        if (--remaining_reads[operand] == 0 && operand != root &&
            operand->opcode() != HloOpcode::kParameter && live != kSaturated) {
          live -= ValueBytes(operand->shape());
        }
      }
    }
    return std::max(peak, live);
  }

  // Looked up only, never iterated.
  absl::flat_hash_map<const HloComputation*, int64_t> peaks_;
};

}  // namespace

RunMemoryEstimate EstimateRunMemory(const HloModule& module) {
  RunMemoryEstimate estimate;
  estimate.devices = module.config().DeviceCount();
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return estimate;
  for (const HloInstruction* param : entry->parameter_instructions()) {
    estimate.parameter_bytes = SaturatingAdd(estimate.parameter_bytes, ValueBytes(param->shape()));
  }
  if (entry->root_instruction() != nullptr) {
    estimate.output_bytes = ValueBytes(entry->root_instruction()->shape());
  }
  PeakEstimator estimator;
  estimate.per_device_bytes = SaturatingAdd(estimate.parameter_bytes, estimator.Peak(*entry));
  estimate.total_bytes = SaturatingMultiply(estimate.per_device_bytes, estimate.devices);
  // The largest values in module order; a stable sort keeps ties in order.
  std::vector<std::pair<int64_t, const HloInstruction*>> values;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      values.emplace_back(ValueBytes(inst->shape()), inst.get());
    }
  }
  std::stable_sort(values.begin(), values.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < values.size() && i < kLargestShown; ++i) {
    estimate.largest.push_back({"%" + values[i].second->name(),
                                values[i].second->shape().ToString(/*print_layout=*/false),
                                values[i].first});
  }
  return estimate;
}

}  // namespace xlite
