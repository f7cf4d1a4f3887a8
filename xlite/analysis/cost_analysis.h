// Cost analysis of HLO after XLA's HloCostAnalysis: flops, transcendentals
// and bytes accessed per instruction and per module, with while loops of known
// trip count multiplied out (see the conventions in ../shared/spec/HLO.md §4).
#ifndef XLITE_ANALYSIS_COST_ANALYSIS_H_
#define XLITE_ANALYSIS_COST_ANALYSIS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "xlite/ir/module.h"

namespace xlite {

// Flops computed in one element type (the roofline prices them per type).
struct TypedFlops {
  PrimitiveType type = PrimitiveType::F32;
  double flops = 0;
};

// The cost properties of an instruction or of a group of them. Counts are
// doubles: a module with long loops exceeds what float (XLA) keeps exactly,
// and a double is exact up to 2^53.
struct Cost {
  double flops = 0;
  double transcendentals = 0;
  double bytes_accessed = 0;
  // What collectives send over the interconnect, and how many they are (each
  // pays the interconnect latency once).
  double collective_bytes = 0;
  double collectives = 0;
  // `flops` split by the element type they are computed in.
  std::vector<TypedFlops> flops_by_type;

  void AddFlops(PrimitiveType type, double count);
  // *this += other * times.
  void Accumulate(const Cost& other, double times = 1);
  // Property-wise maximum (a conditional costs its most expensive branch).
  void MaxWith(const Cost& other);
};

struct CostOptions {
  // Multiply while bodies by their trip count when it is known (XLA counts
  // one iteration); false reproduces XLA's numbers.
  bool multiply_trip_counts = true;
  // Price every custom-call as XLA does: -1 flops and -1 bytes ("unknown",
  // summed into the totals as such). false: LAPACK targets get their
  // published flops, and every target the bytes of its operands and result.
  bool custom_calls_unknown = false;

  // XLA's HloCostAnalysis numbers (`xlite cost --xla-compat`).
  static CostOptions XlaCompat() {
    return {.multiply_trip_counts = false, .custom_calls_unknown = true};
  }
};

// One instruction of the flattened module: while and call instructions are
// replaced by their callees' instructions, counted as often as they run.
struct InstructionCost {
  const HloInstruction* instruction = nullptr;
  Cost cost;              // all executions together
  double executions = 1;  // runs per execution of the module
};

struct ModuleCost {
  Cost total;
  // Entry instructions and, through while/call, their callees' (first
  // reached first, each in text order). Fusion bodies, reducers and
  // conditional branches are priced inside the instruction that calls them.
  std::vector<InstructionCost> instructions;
  int64_t loops_with_unknown_trip_count = 0;
  // Custom-calls priced as unknown work: with custom_calls_unknown all of
  // them (-1 flops, -1 bytes each), else those of targets other than LAPACK's
  // (bytes counted, flops 0).
  int64_t custom_calls = 0;
};

// The trip count of a while loop: backend_config {"known_trip_count":{"n":N}}
// when present, else the canonical counted loop (an induction variable
// initialised by a constant, compared LT/LE/GT/GE/NE against a constant,
// stepped by adding a constant). nullopt when neither applies.
std::optional<int64_t> WhileTripCount(const HloInstruction& while_op);

// Bytes of a shape as XLA's default shape-size function counts them: dense
// array bytes (default layout when none; a dynamic array adds 4 bytes per
// dimension for its sizes), a tuple's pointer table (8 bytes per element), 0
// for tokens. This is what reading an operand costs; what an
// instruction writes is counted by its array leaves (a tuple's pointer table
// only by `tuple` itself), as XLA's default rule does.
int64_t ShapeBytes(const Shape& shape);

class CostAnalysis {
 public:
  explicit CostAnalysis(CostOptions options = {}) : options_(options) {}

  // The cost of one execution of `hlo`.
  absl::StatusOr<Cost> InstructionCostOf(const HloInstruction& hlo);
  // The cost of one execution of `computation` (memoised).
  absl::StatusOr<Cost> ComputationCostOf(const HloComputation& computation);

 private:
  absl::StatusOr<Cost> FusionCost(const HloInstruction& fusion);
  absl::StatusOr<Cost> WhileCost(const HloInstruction& while_op);
  // Flops and transcendentals of `callee` times `times` (reducers, map, sort).
  absl::StatusOr<Cost> AppliedCost(const HloComputation* callee, double times);

  CostOptions options_;
  absl::flat_hash_map<const HloComputation*, Cost> computation_costs_;
  absl::flat_hash_set<const HloComputation*> in_progress_;
};

// The module's total and its flattened instruction list.
absl::StatusOr<ModuleCost> AnalyzeModuleCost(const HloModule& module,
                                             const CostOptions& options = {});

}  // namespace xlite

#endif  // XLITE_ANALYSIS_COST_ANALYSIS_H_
