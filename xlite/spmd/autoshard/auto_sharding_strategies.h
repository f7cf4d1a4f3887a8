// Auto-sharding's candidates: per entry instruction the strategies its
// factor rule allows on the mesh (each mesh axis on one factor or on none),
// priced by the cost model on the device, and the reshard cost between a
// producer's result and a consumer's operand from the reshard planner and
// the alpha-beta collective model; together the ShardingProblem to solve.
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
#include "xlite/analysis/liveness.h"
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

struct ShardingNode {
  const HloInstruction* instruction = nullptr;
  std::vector<ShardingStrategy> strategies;  // strategy 0 replicates everything
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

struct StrategyGraph {
  std::vector<ShardingNode> nodes;  // entry instructions in post order
  absl::flat_hash_map<const HloInstruction*, int64_t> index;
  ShardingProblem problem;  // nodes[i] is problem.nodes[i]
  // Per problem edge: the consumer's operand number it prices.
  std::vector<int64_t> edge_operand;
  // Memory on the module's timeline (its current order, the call graph
  // flattened, callees inlined at their call sites as the liveness analysis
  // does): per node the steps its result's buffer is live
  // (nullopt: it owns none), per step the bytes no choice changes (tuple
  // tables, the values of called computations).
  std::vector<std::optional<LiveRange>> live;
  std::vector<double> fixed_bytes_at_step;
  // Per step its instruction's name, and the computation outside the entry.
  std::vector<std::string> step_names;
};

// Bytes per device live at the step where `choice` peaks.
struct MemoryPeak {
  double bytes = 0;
  int64_t step = 0;
};
MemoryPeak PeakMemory(const StrategyGraph& graph, const std::vector<int64_t>& choice);
// The memory row of `step`: the nodes live there and the fixed bytes.
ShardingProblem::MemoryRow MemoryRowAt(const StrategyGraph& graph, int64_t step);

// The graph of the entry computation, with one memory row: the step where
// the replicated plan peaks. Instructions with a sharding keep it as their
// only choice when `keep_annotations` (an error when the mesh cannot
// express it), else their shardings are ignored.
absl::StatusOr<StrategyGraph> BuildStrategyGraph(const HloModule& module, const DeviceMesh& mesh,
                                                 const DeviceSpec& device, double memory_limit,
                                                 bool keep_annotations);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_STRATEGIES_H_
