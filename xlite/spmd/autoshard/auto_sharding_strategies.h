// Auto-sharding's candidates: per instruction the strategies its factor rule
// allows on the mesh (each mesh axis on one factor or on none), priced by the
// cost model on the device, and the reshard cost between a producer's result
// and a consumer's operand from the reshard planner and the alpha-beta
// collective model (auto_sharding_graph.h puts them together).
#ifndef XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_STRATEGIES_H_
#define XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_STRATEGIES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/ir/module.h"
#include "xlite/spmd/autoshard/auto_sharding_mesh.h"
#include "xlite/spmd/autoshard/auto_sharding_problem.h"

namespace xlite::spmd {

struct ShardingStrategy {
  // Per mesh axis, the rule factor it splits (-1: none).
  std::vector<int64_t> axis_factor;
  HloSharding result;
  // Per operand, the sharding this strategy needs it in; nullopt: any.
  std::vector<std::optional<HloSharding>> operands;
  double compute_seconds = 0;
  // The all-reduce of partial sums when a reduction factor is split.
  double communication_seconds = 0;
  // Per device: the result's buffer where the instruction owns one (set by
  // BuildStrategyGraph from the alias analysis; 0 in StrategiesOf).
  double memory_bytes = 0;
  // "[data,_] x [_,model] -> [data,model]": operands and result as
  // partition specs, "+sum(model)" for partial sums.
  std::string description;
};

// Reshard seconds between shardings, memoised.
class ReshardPricer {
 public:
  ReshardPricer(const DeviceSpec& device, int64_t num_devices)
      : device_(device), num_devices_(num_devices) {}
  double Seconds(const HloSharding& from, const HloSharding& to, const Shape& shape);

 private:
  const DeviceSpec& device_;
  int64_t num_devices_;
  // Keyed by the printed shardings and shape: only looked up, never walked.
  absl::flat_hash_map<std::string, double> cache_;
};

// The strategies of `inst` on `mesh`: from its factor rule when it has one
// array result, else strategy 0 alone (replicated, operands replicated).
std::vector<ShardingStrategy> StrategiesOf(const HloInstruction& inst, const DeviceMesh& mesh,
                                           const DeviceSpec& device, CostAnalysis& costs);

// The entry's outputs that the module does not let propagation shard
// (allow_spmd_sharding_propagation_to_output false) leave replicated: a
// root tuple needs those operands replicated, an array root pays the
// gather of its result.
void RequireReplicatedOutputs(const HloModule& module, ReshardPricer& pricer,
                              const HloInstruction& root,
                              std::vector<ShardingStrategy>& strategies);

// The strategies of a loop's state element of `shape`: each dim split over
// any mesh axes (no operands, no compute of its own).
std::vector<ShardingStrategy> StateStrategies(const Shape& shape, const DeviceMesh& mesh);

// The bytes one device holds of a `shape` value under `sharding`.
double BytesPerDevice(const Shape& shape, const HloSharding& sharding);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_STRATEGIES_H_
