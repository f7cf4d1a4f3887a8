// SolveIlp where CBC was not found: the heuristic alone answers.
#include "xlite/spmd/autoshard/auto_sharding_ilp.h"

namespace xlite::spmd {

bool HaveIlpSolver() { return false; }

absl::StatusOr<SolvedPlan> SolveIlp(const ShardingProblem&, const SolvedPlan&, double) {
  return absl::UnimplementedError("CBC not built in");
}

}  // namespace xlite::spmd
