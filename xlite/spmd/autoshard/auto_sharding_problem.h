// The auto-sharding search as numbers alone: nodes with a cost and a
// per-device memory per candidate strategy, edges with a cost per pair of
// their ends' strategies, and memory rows (program points) each held to a
// memory limit; a plan picks one strategy per node. The fast heuristic that always answers lives
// here; the exact ILP in auto_sharding_ilp.h.
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
  // The bytes live at one program point: the nodes whose memory counts
  // there and the bytes no choice changes.
  struct MemoryRow {
    std::vector<int64_t> nodes;
    double fixed_bytes = 0;
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  // Each row's bytes must fit memory_limit; none: one row of every node.
  std::vector<MemoryRow> memory_rows;
  double memory_limit = std::numeric_limits<double>::infinity();
};

struct SolvedPlan {
  std::vector<int64_t> choice;  // strategy per node
  double objective = 0;         // seconds
  double memory = 0;            // bytes per device, the largest row
  std::string solver;           // how it was found, for --explain
  bool optimal = false;         // proven optimal by the ILP
};

double PlanObjective(const ShardingProblem& problem, const std::vector<int64_t>& choice);
// The largest memory row under `choice`.
double PlanMemory(const ShardingProblem& problem, const std::vector<int64_t>& choice);
// The largest row with every node at its smallest memory: no plan needs
// less, and that plan fits whenever any does.
double MinimumMemory(const ShardingProblem& problem);
// The ILP's variables: one per node strategy and per edge strategy pair.
int64_t IlpVariables(const ShardingProblem& problem);
// The problem's rows, with the implicit one (every node) made explicit.
std::vector<ShardingProblem::MemoryRow> MemoryRowsOf(const ShardingProblem& problem);

// Greedy in node order (each node's cheapest strategy given its chosen
// producers), then memory repair (the moves that save most bytes per second
// lost) and local improvement until no single node's change helps; the same
// from everything replicated and from each of `starts` (plans of `problem`,
// e.g. baselines), the best kept. Fails only when no plan fits the memory
// limit.
absl::StatusOr<SolvedPlan> SolveHeuristic(const ShardingProblem& problem,
                                          const std::vector<std::vector<int64_t>>& starts = {});

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
