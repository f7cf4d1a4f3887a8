// The auto-sharding problem of a module: one node per instruction of the
// entry and of the bodies of its while loops (run once per iteration), one
// per loop state element (the get-tuple-elements of the loop, its body and
// condition share it), edges pricing the resharding between producers and
// consumers, and the memory of every buffer on the module's timeline.
#ifndef XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_GRAPH_H_
#define XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_GRAPH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/analysis/liveness.h"
#include "xlite/ir/module.h"
#include "xlite/spmd/autoshard/auto_sharding_mesh.h"
#include "xlite/spmd/autoshard/auto_sharding_problem.h"
#include "xlite/spmd/autoshard/auto_sharding_strategies.h"

namespace xlite::spmd {

struct ShardingNode {
  // The instruction whose strategies these are; for a loop state element
  // the first get-tuple-element of it.
  const HloInstruction* instruction = nullptr;
  // Every instruction that takes the chosen result sharding (the
  // instruction, or a state element's get-tuple-elements).
  std::vector<const HloInstruction*> members;
  // The module's sharding of it (a state element's: its element of the
  // loop's), whether kept or not.
  std::optional<HloSharding> annotation;
  std::vector<ShardingStrategy> strategies;  // strategy 0 replicates everything
};

// A while loop modelled inside: its state elements are nodes, its body's
// instructions too.
struct ModelledLoop {
  const HloInstruction* loop = nullptr;
  std::vector<int64_t> state;  // node per tuple element
};

struct StrategyGraph {
  std::vector<ShardingNode> nodes;  // in post order, a loop's body before the loop
  absl::flat_hash_map<const HloInstruction*, int64_t> index;
  ShardingProblem problem;  // nodes[i] is problem.nodes[i]
  std::vector<ModelledLoop> loops;
  // Memory on the module's timeline (its current order, the call graph
  // flattened, callees run at their call sites as the liveness analysis
  // does): per node the steps its result's buffer is live (nullopt: it owns
  // none), per step the bytes no choice changes (tuple tables, the values of
  // computations not modelled).
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

// The graph of the module, with one memory row: the step where the
// replicated plan peaks. A while loop is modelled inside when its state is
// a flat tuple of arrays built by a tuple, and its body and condition are
// only its own and take their state apart with get-tuple-elements; other
// loops, calls and conditionals are single replicated nodes. Instructions
// with a sharding keep it as their only choice when `keep_annotations` (an
// error when the mesh cannot express it), else their shardings are ignored.
absl::StatusOr<StrategyGraph> BuildStrategyGraph(const HloModule& module, const DeviceMesh& mesh,
                                                 const DeviceSpec& device, double memory_limit,
                                                 bool keep_annotations);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_GRAPH_H_
