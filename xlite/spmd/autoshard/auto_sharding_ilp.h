// The auto-sharding problem solved exactly as an integer program with CBC:
// one-hot strategy variables per node, a pair variable per edge and pair of
// strategies tied to both ends' choices (the standard linearisation of the
// pair costs), and one memory row. Built only where CBC was found.
#ifndef XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_ILP_H_
#define XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_ILP_H_

#include "absl/status/statusor.h"
#include "xlite/spmd/autoshard/auto_sharding_problem.h"

namespace xlite::spmd {

// True when this build links CBC.
bool HaveIlpSolver();

// The ILP's best plan within `seconds`, started from `seed` (a plan that
// fits: the solver returns at least as good a one). Unimplemented without
// CBC; ResourceExhausted for a problem too large to hand to CBC;
// FailedPrecondition when it proves no plan fits; Internal when CBC fails.
absl::StatusOr<SolvedPlan> SolveIlp(const ShardingProblem& problem, const SolvedPlan& seed,
                                    double seconds);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_ILP_H_
