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

int64_t IlpVariables(const ShardingProblem& problem) {
  int64_t variables = 0;
  for (const ShardingProblem::Node& node : problem.nodes) variables += node.size();
  for (const ShardingProblem::Edge& edge : problem.edges) {
    variables += static_cast<int64_t>(edge.cost.size());
  }
  return variables;
}

std::vector<ShardingProblem::MemoryRow> MemoryRowsOf(const ShardingProblem& problem) {
  if (!problem.memory_rows.empty()) return problem.memory_rows;
  ShardingProblem::MemoryRow all;
  for (size_t v = 0; v < problem.nodes.size(); ++v) all.nodes.push_back(static_cast<int64_t>(v));
  return {all};
}

double PlanMemory(const ShardingProblem& problem, const std::vector<int64_t>& choice) {
  double peak = 0;
  for (const ShardingProblem::MemoryRow& row : MemoryRowsOf(problem)) {
    double bytes = row.fixed_bytes;
    for (int64_t v : row.nodes) bytes += problem.nodes[v].memory[choice[v]];
    peak = std::max(peak, bytes);
  }
  return peak;
}

double MinimumMemory(const ShardingProblem& problem) {
  std::vector<int64_t> smallest(problem.nodes.size());
  for (size_t v = 0; v < problem.nodes.size(); ++v) {
    const std::vector<double>& m = problem.nodes[v].memory;
    smallest[v] = std::min_element(m.begin(), m.end()) - m.begin();
  }
  return PlanMemory(problem, smallest);
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

// The bytes of every memory row under a plan, kept as its nodes move.
class RowBytes {
 public:
  RowBytes(const ShardingProblem& problem, const std::vector<int64_t>& choice)
      : problem_(problem), rows_of_node_(problem.nodes.size()) {
    const std::vector<ShardingProblem::MemoryRow> rows = MemoryRowsOf(problem);
    for (size_t r = 0; r < rows.size(); ++r) {
      double b = rows[r].fixed_bytes;
      for (int64_t v : rows[r].nodes) {
        b += problem.nodes[v].memory[choice[v]];
        rows_of_node_[v].push_back(static_cast<int64_t>(r));
      }
      bytes_.push_back(b);
    }
  }
  double Peak() const { return *std::max_element(bytes_.begin(), bytes_.end()); }
  // Whether node v moving from strategy a to b keeps each of its rows
  // within `limit`.
  bool FitsAfter(int64_t v, int64_t a, int64_t b, double limit) const {
    const double delta = Delta(v, a, b);
    if (delta <= 0) return true;
    for (int64_t r : rows_of_node_[v]) {
      if (bytes_[r] + delta > limit) return false;
    }
    return true;
  }
  // The bytes that move saves, summed over v's rows now over `limit`.
  double SavedOverLimit(int64_t v, int64_t a, int64_t b, double limit) const {
    double saved = 0;
    for (int64_t r : rows_of_node_[v]) {
      if (bytes_[r] > limit) saved -= Delta(v, a, b);
    }
    return saved;
  }
  void Move(int64_t v, int64_t a, int64_t b) {
    const double delta = Delta(v, a, b);
    for (int64_t r : rows_of_node_[v]) bytes_[r] += delta;
  }

 private:
  double Delta(int64_t v, int64_t a, int64_t b) const {
    return problem_.nodes[v].memory[b] - problem_.nodes[v].memory[a];
  }
  const ShardingProblem& problem_;
  std::vector<std::vector<int64_t>> rows_of_node_;
  std::vector<double> bytes_;
};

// Memory repair (the move with the most bytes saved in rows over the limit
// per second added) until `choice` fits, then local improvement until no
// single node's change helps.
void RepairAndImprove(const ShardingProblem& problem, const Incidences& inc,
                      std::vector<int64_t>& choice) {
  const int64_t n = static_cast<int64_t>(problem.nodes.size());
  const double limit = problem.memory_limit;
  RowBytes memory(problem, choice);
  while (memory.Peak() > limit) {
    int64_t best_v = -1, best_s = -1;
    double best_ratio = -1;
    for (int64_t v = 0; v < n; ++v) {
      const ShardingProblem::Node& node = problem.nodes[v];
      const double now = LocalCost(problem, inc, choice, v, choice[v]);
      for (int64_t s = 0; s < node.size(); ++s) {
        const double saved = memory.SavedOverLimit(v, choice[v], s, limit);
        if (saved <= 0) continue;
        const double added = std::max(0.0, LocalCost(problem, inc, choice, v, s) - now);
        const double ratio = saved / (added + 1e-12);
        if (ratio > best_ratio) best_v = v, best_s = s, best_ratio = ratio;
      }
    }
    if (best_v < 0) break;  // unreachable: MinimumMemory fits
    memory.Move(best_v, choice[best_v], best_s);
    choice[best_v] = best_s;
  }
  for (int round = 0; round < 20; ++round) {
    bool changed = false;
    for (int64_t v = 0; v < n; ++v) {
      const ShardingProblem::Node& node = problem.nodes[v];
      double best_cost = LocalCost(problem, inc, choice, v, choice[v]);
      int64_t best = choice[v];
      for (int64_t s = 0; s < node.size(); ++s) {
        if (!memory.FitsAfter(v, choice[v], s, limit)) continue;
        const double c = LocalCost(problem, inc, choice, v, s);
        if (c < best_cost - 1e-15) best = s, best_cost = c;
      }
      if (best != choice[v]) {
        memory.Move(v, choice[v], best);
        choice[v] = best;
        changed = true;
      }
    }
    if (!changed) break;
  }
}

}  // namespace

absl::StatusOr<SolvedPlan> SolveHeuristic(const ShardingProblem& problem,
                                          const std::vector<std::vector<int64_t>>& starts) {
  const double limit = problem.memory_limit;
  if (MinimumMemory(problem) > limit) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "no sharding fits the memory limit: at least %.0f bytes per device are live at once, "
        "the limit is %.0f",
        MinimumMemory(problem), limit));
  }
  const Incidences inc = Incidence(problem);
  // Starts: greedy, strategy 0 everywhere (replicated, so the plan is never
  // worse than replicating when that fits), and the caller's; the best wins.
  std::vector<std::vector<int64_t>> all = {GreedyStart(problem, inc),
                                           std::vector<int64_t>(problem.nodes.size(), 0)};
  all.insert(all.end(), starts.begin(), starts.end());
  SolvedPlan plan;
  for (std::vector<int64_t>& choice : all) {
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
  out.memory_rows = problem.memory_rows;
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
  out.memory_rows = problem.memory_rows;
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
