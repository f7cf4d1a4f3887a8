#include "xlite/spmd/autoshard/auto_sharding_problem.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_format.h"

namespace xlite::spmd {
namespace {

// Incident edges per node: (edge index, true when the node is `from`).
std::vector<std::vector<std::pair<int64_t, bool>>> Incidence(const ShardingProblem& p) {
  std::vector<std::vector<std::pair<int64_t, bool>>> inc(p.nodes.size());
  for (size_t e = 0; e < p.edges.size(); ++e) {
    inc[p.edges[e].from].push_back({static_cast<int64_t>(e), true});
    inc[p.edges[e].to].push_back({static_cast<int64_t>(e), false});
  }
  return inc;
}

double EdgeCost(const ShardingProblem& p, const ShardingProblem::Edge& e, int64_t s, int64_t t) {
  return e.cost[s * p.nodes[e.to].size() + t];
}

// Cost of node v taking s with its neighbours as `choice` says; neighbours
// with choice -1 (not chosen yet) count nothing.
double LocalCost(const ShardingProblem& p,
                 const std::vector<std::vector<std::pair<int64_t, bool>>>& inc,
                 const std::vector<int64_t>& choice, int64_t v, int64_t s) {
  double c = p.nodes[v].cost[s];
  for (const auto& [e, is_from] : inc[v]) {
    const ShardingProblem::Edge& edge = p.edges[e];
    const int64_t other = choice[is_from ? edge.to : edge.from];
    if (other < 0) continue;
    c += is_from ? EdgeCost(p, edge, s, other) : EdgeCost(p, edge, other, s);
  }
  return c;
}

}  // namespace

double PlanObjective(const ShardingProblem& problem, const std::vector<int64_t>& choice) {
  double total = 0;
  for (size_t v = 0; v < problem.nodes.size(); ++v) total += problem.nodes[v].cost[choice[v]];
  for (const ShardingProblem::Edge& e : problem.edges) {
    total += EdgeCost(problem, e, choice[e.from], choice[e.to]);
  }
  return total;
}

double PlanMemory(const ShardingProblem& problem, const std::vector<int64_t>& choice) {
  double total = 0;
  for (size_t v = 0; v < problem.nodes.size(); ++v) total += problem.nodes[v].memory[choice[v]];
  return total;
}

double MinimumMemory(const ShardingProblem& problem) {
  double total = 0;
  for (const ShardingProblem::Node& n : problem.nodes) {
    total += *std::min_element(n.memory.begin(), n.memory.end());
  }
  return total;
}

namespace {

using Incidences = std::vector<std::vector<std::pair<int64_t, bool>>>;

// Each node in order takes its cheapest strategy given its chosen producers.
std::vector<int64_t> GreedyStart(const ShardingProblem& problem, const Incidences& inc) {
  const int64_t n = static_cast<int64_t>(problem.nodes.size());
  std::vector<int64_t> choice(n, -1);
  for (int64_t v = 0; v < n; ++v) {
    int64_t best = 0;
    double best_cost = LocalCost(problem, inc, choice, v, 0);
    for (int64_t s = 1; s < problem.nodes[v].size(); ++s) {
      const double c = LocalCost(problem, inc, choice, v, s);
      if (c < best_cost) best = s, best_cost = c;
    }
    choice[v] = best;
  }
  return choice;
}

// Memory repair (the move with the most bytes saved per second added) until
// `choice` fits, then local improvement until no single node's change helps.
void RepairAndImprove(const ShardingProblem& problem, const Incidences& inc,
                      std::vector<int64_t>& choice) {
  const int64_t n = static_cast<int64_t>(problem.nodes.size());
  const double limit = problem.memory_limit;
  double memory = PlanMemory(problem, choice);
  while (memory > limit) {
    int64_t best_v = -1, best_s = -1;
    double best_ratio = -1;
    for (int64_t v = 0; v < n; ++v) {
      const ShardingProblem::Node& node = problem.nodes[v];
      const double now = LocalCost(problem, inc, choice, v, choice[v]);
      for (int64_t s = 0; s < node.size(); ++s) {
        const double saved = node.memory[choice[v]] - node.memory[s];
        if (saved <= 0) continue;
        const double added = std::max(0.0, LocalCost(problem, inc, choice, v, s) - now);
        const double ratio = saved / (added + 1e-12);
        if (ratio > best_ratio) best_v = v, best_s = s, best_ratio = ratio;
      }
    }
    if (best_v < 0) break;  // unreachable: MinimumMemory fits
    memory -= problem.nodes[best_v].memory[choice[best_v]] - problem.nodes[best_v].memory[best_s];
    choice[best_v] = best_s;
  }
  for (int round = 0; round < 20; ++round) {
    bool changed = false;
    for (int64_t v = 0; v < n; ++v) {
      const ShardingProblem::Node& node = problem.nodes[v];
      double best_cost = LocalCost(problem, inc, choice, v, choice[v]);
      int64_t best = choice[v];
      for (int64_t s = 0; s < node.size(); ++s) {
        if (memory - node.memory[choice[v]] + node.memory[s] > limit) continue;
        const double c = LocalCost(problem, inc, choice, v, s);
        if (c < best_cost - 1e-15) best = s, best_cost = c;
      }
      if (best != choice[v]) {
        memory += node.memory[best] - node.memory[choice[v]];
        choice[v] = best;
        changed = true;
      }
    }
    if (!changed) break;
  }
}

}  // namespace

absl::StatusOr<SolvedPlan> SolveHeuristic(const ShardingProblem& problem) {
  const double limit = problem.memory_limit;
  if (MinimumMemory(problem) > limit) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "no sharding fits the memory limit: the parameters need at least %.0f bytes per device, "
        "the limit is %.0f",
        MinimumMemory(problem), limit));
  }
  const Incidences inc = Incidence(problem);
  // Two starts: greedy, and strategy 0 everywhere (replicated, so the plan
  // is never worse than replicating when that fits); the better one wins.
  SolvedPlan plan;
  for (std::vector<int64_t> choice :
       {GreedyStart(problem, inc), std::vector<int64_t>(problem.nodes.size(), 0)}) {
    RepairAndImprove(problem, inc, choice);
    const double objective = PlanObjective(problem, choice);
    if (plan.choice.empty() || objective < plan.objective) {
      plan.choice = std::move(choice);
      plan.objective = objective;
    }
  }
  plan.memory = PlanMemory(problem, plan.choice);
  plan.solver = "heuristic";
  return plan;
}

ShardingProblem Simplified(const ShardingProblem& problem) {
  ShardingProblem out;
  out.nodes = problem.nodes;
  out.memory_limit = problem.memory_limit;
  std::map<std::pair<int64_t, int64_t>, size_t> merged;
  for (const ShardingProblem::Edge& e : problem.edges) {
    const int64_t sf = problem.nodes[e.from].size(), st = problem.nodes[e.to].size();
    if (e.from == e.to) {
      for (int64_t s = 0; s < sf; ++s) out.nodes[e.from].cost[s] += e.cost[s * st + s];
      continue;
    }
    if (sf == 1 || st == 1) {
      // One end has no choice: the cost belongs to the other end.
      const bool fold_to = sf == 1;
      const int64_t v = fold_to ? e.to : e.from;
      for (int64_t s = 0; s < (fold_to ? st : sf); ++s) {
        out.nodes[v].cost[s] += fold_to ? e.cost[s] : e.cost[s * st];
      }
      continue;
    }
    auto [it, inserted] = merged.try_emplace({e.from, e.to}, out.edges.size());
    if (inserted) {
      out.edges.push_back(e);
    } else {
      std::vector<double>& cost = out.edges[it->second].cost;
      for (size_t i = 0; i < cost.size(); ++i) cost[i] += e.cost[i];
    }
  }
  return out;
}

ShardingProblem Restricted(const ShardingProblem& problem,
                           const std::vector<std::vector<int64_t>>& allowed) {
  ShardingProblem out;
  out.memory_limit = problem.memory_limit;
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    ShardingProblem::Node node;
    for (int64_t s : allowed[v]) {
      node.cost.push_back(problem.nodes[v].cost[s]);
      node.memory.push_back(problem.nodes[v].memory[s]);
    }
    out.nodes.push_back(std::move(node));
  }
  for (const ShardingProblem::Edge& e : problem.edges) {
    ShardingProblem::Edge edge{e.from, e.to, {}};
    const int64_t st = problem.nodes[e.to].size();
    for (int64_t s : allowed[e.from]) {
      for (int64_t t : allowed[e.to]) edge.cost.push_back(e.cost[s * st + t]);
    }
    out.edges.push_back(std::move(edge));
  }
  return out;
}

}  // namespace xlite::spmd
