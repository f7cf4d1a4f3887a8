// The auto-sharding search as numbers alone: nodes with a cost and a
// per-device memory per candidate strategy, edges with a cost per pair of
// their ends' strategies, and a memory limit; a plan picks one strategy per
// node. The fast heuristic that always answers lives here; the exact ILP in
// auto_sharding_ilp.h.
#ifndef XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_PROBLEM_H_
#define XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_PROBLEM_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace xlite::spmd {

struct ShardingProblem {
  struct Node {
    std::vector<double> cost;    // seconds, per strategy
    std::vector<double> memory;  // bytes per device, per strategy
    int64_t size() const { return static_cast<int64_t>(cost.size()); }
  };
  struct Edge {
    int64_t from = 0, to = 0;
    // cost[s * nodes[to].size() + t]: seconds when `from` takes s and `to` t.
    std::vector<double> cost;
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  double memory_limit = std::numeric_limits<double>::infinity();
};

struct SolvedPlan {
  std::vector<int64_t> choice;  // strategy per node
  double objective = 0;         // seconds
  double memory = 0;            // bytes per device
  std::string solver;           // how it was found, for --explain
  bool optimal = false;         // proven optimal by the ILP
};

double PlanObjective(const ShardingProblem& problem, const std::vector<int64_t>& choice);
double PlanMemory(const ShardingProblem& problem, const std::vector<int64_t>& choice);
// Sum over nodes of their smallest memory: no plan needs less.
double MinimumMemory(const ShardingProblem& problem);

// Greedy in node order (each node's cheapest strategy given its chosen
// producers), then memory repair (the moves that save most bytes per second
// lost) and local improvement until no single node's change helps. Fails
// only when no plan fits the memory limit.
absl::StatusOr<SolvedPlan> SolveHeuristic(const ShardingProblem& problem);

// Edges between the same two nodes summed into one, and edges with a
// one-strategy end folded into the other end's node cost; `problem` keeps
// its nodes (and their indices).
ShardingProblem Simplified(const ShardingProblem& problem);

// The problem where node v may take only the strategies allowed[v] (in that
// order, none empty); a plan of it maps back through allowed[v][choice].
ShardingProblem Restricted(const ShardingProblem& problem,
                           const std::vector<std::vector<int64_t>>& allowed);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_AUTOSHARD_AUTO_SHARDING_PROBLEM_H_
