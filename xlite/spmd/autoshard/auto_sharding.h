// Auto-sharding: finds a sharding for every array instruction of the entry
// on a device mesh, writes them as annotations (propagation completes tuples
// and called computations), and says why (each choice of the instructions
// that matter, its cost next to the best rejected one; the plan next to
// fully replicated, data-parallel and the module's own annotations).
#ifndef XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_H_
#define XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/ir/module.h"
#include "xlite/spmd/autoshard/auto_sharding_mesh.h"

namespace xlite::spmd {

struct AutoShardOptions {
  DeviceMesh mesh;
  // Per-device bytes live at the peak; nullopt: the device's memory.
  std::optional<double> memory_limit;
  // Keep the module's shardings as constraints (else they are dropped).
  bool keep_annotations = false;
  double solver_seconds = 10;  // the ILP's time limit
};

// A plan's predicted cost, summed over its instructions (no overlap).
struct PlanTotals {
  double compute_seconds = 0;
  double communication_seconds = 0;
  double seconds = 0;
  // Bytes per device live at the plan's peak (the module's current order,
  // every buffer: parameters, optimizer state, activations) and where.
  double memory_bytes = 0;
  std::string peak_at;
  bool fits = true;  // memory_bytes within the limit
};

struct ShardingChoice {
  struct Option {
    std::string sharding;     // as HLO text
    std::string description;  // partition specs
    double compute_seconds = 0;
    double communication_seconds = 0;  // partial sums and resharding its operands
    double memory_bytes = 0;
    double seconds = 0;              // its share of the plan's total, neighbours fixed
    bool over_memory_limit = false;  // taking it would break the limit
  };
  std::string instruction;
  std::string opcode;
  Option chosen;
  std::optional<Option> rejected;  // the best other strategy
};

struct AutoShardResult {
  std::string solver;  // "cbc (optimal)", "heuristic (CBC not built in)", ...
  double search_seconds = 0;
  int64_t nodes = 0, strategies = 0, edges = 0;
  double memory_limit = 0;
  PlanTotals plan, replicated;
  std::optional<PlanTotals> data_parallel;
  // How the data-parallel baseline split the batch (or why there is none).
  std::string data_parallel_note;
  // The module's own shardings, priced in the same model: the annotated
  // array instructions pinned to them, the others chosen freely; nullopt
  // when the module has none. The note says how many were pinned and which
  // annotations the mesh cannot express (those were left free).
  std::optional<PlanTotals> user_plan;
  std::string user_plan_note;
  int64_t annotated = 0;  // array instructions given a sharding
  // The choices of parameters, dots, convolutions, reductions, gathers and
  // scatters, in order (the other annotations follow from them).
  std::vector<ShardingChoice> choices;
};

// Searches, then annotates `module`: its shardings (dropped first unless
// keep_annotations), num_partitions = the mesh's devices. Errors: a mesh
// the module's partition count contradicts, a memory limit no plan fits.
absl::StatusOr<AutoShardResult> AutoShard(HloModule& module, const DeviceSpec& device,
                                          const AutoShardOptions& options);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_H_
