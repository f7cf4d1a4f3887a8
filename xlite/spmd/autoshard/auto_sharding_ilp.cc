#include "xlite/spmd/autoshard/auto_sharding_ilp.h"

#include <coin/Cbc_C_Interface.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace xlite::spmd {
namespace {

// Seconds are tiny numbers; the solver's tolerances are absolute, so the
// objective is stated in microseconds.
constexpr double kScale = 1e6;

// CBC checks its time limit between branch-and-bound nodes, not inside the
// root LP: past this many variables the root LP alone can take minutes on
// two cores (the deepseek dump on a 2x2 mesh: 146 s for a 10 s limit), so
// the heuristic's plan stands.
constexpr int64_t kMaxVariables = 300000;

struct ModelDeleter {
  void operator()(Cbc_Model* m) const { Cbc_deleteModel(m); }
};

// The constraint matrix column by column, as Cbc_loadProblem takes it.
struct Columns {
  std::vector<int> starts = {0};
  std::vector<int> rows;
  std::vector<double> values;
  std::vector<double> lower, upper, objective;
  std::vector<bool> integer;

  int Add(double cost, bool is_integer, std::vector<std::pair<int, double>> entries) {
    for (const auto& [r, v] : entries) {
      rows.push_back(r);
      values.push_back(v);
    }
    starts.push_back(static_cast<int>(rows.size()));
    lower.push_back(0);
    upper.push_back(1);
    objective.push_back(cost * kScale);
    integer.push_back(is_integer);
    return static_cast<int>(objective.size()) - 1;
  }
};

}  // namespace

bool HaveIlpSolver() { return true; }

absl::StatusOr<SolvedPlan> SolveIlp(const ShardingProblem& problem, const SolvedPlan& seed,
                                    double seconds) {
  const int64_t n = static_cast<int64_t>(problem.nodes.size());
  const int64_t variables = IlpVariables(problem);
  if (variables > kMaxVariables) {
    return absl::ResourceExhaustedError(
        absl::StrCat("ILP of ", variables, " variables too large, over ", kMaxVariables));
  }
  // Rows: one-hot per node, then per edge one row per strategy of each end,
  // then the memory rows.
  std::vector<double> row_lower, row_upper;
  auto add_row = [&](double lo, double hi) {
    row_lower.push_back(lo);
    row_upper.push_back(hi);
    return static_cast<int>(row_lower.size()) - 1;
  };
  std::vector<int> one_hot(n);
  for (int64_t v = 0; v < n; ++v) one_hot[v] = add_row(1, 1);
  // Per edge, the first row of its `from` strategies, then of its `to` ones:
  //   sum_t y[s,t] - x[from,s] = 0,   sum_s y[s,t] - x[to,t] = 0.
  std::vector<int> from_rows(problem.edges.size()), to_rows(problem.edges.size());
  for (size_t e = 0; e < problem.edges.size(); ++e) {
    const ShardingProblem::Edge& edge = problem.edges[e];
    from_rows[e] = static_cast<int>(row_lower.size());
    for (int64_t s = 0; s < problem.nodes[edge.from].size(); ++s) add_row(0, 0);
    to_rows[e] = static_cast<int>(row_lower.size());
    for (int64_t t = 0; t < problem.nodes[edge.to].size(); ++t) add_row(0, 0);
  }
  // Per node, the memory rows (constraint row numbers) it counts in.
  std::vector<std::vector<int>> memory_rows(n);
  if (problem.memory_limit < std::numeric_limits<double>::infinity()) {
    for (const ShardingProblem::MemoryRow& row : MemoryRowsOf(problem)) {
      const int r =
          add_row(-std::numeric_limits<double>::max(), problem.memory_limit - row.fixed_bytes);
      for (int64_t v : row.nodes) memory_rows[v].push_back(r);
    }
  }

  // Node variables carry -1 in the rows of their edges.
  std::vector<std::vector<std::pair<int, int64_t>>> edge_rows(n);  // (first row, is to?)
  for (size_t e = 0; e < problem.edges.size(); ++e) {
    edge_rows[problem.edges[e].from].push_back({from_rows[e], 0});
    edge_rows[problem.edges[e].to].push_back({to_rows[e], 1});
  }
  Columns cols;
  std::vector<int> first_x(n);
  for (int64_t v = 0; v < n; ++v) {
    const ShardingProblem::Node& node = problem.nodes[v];
    for (int64_t s = 0; s < node.size(); ++s) {
      std::vector<std::pair<int, double>> entries = {{one_hot[v], 1.0}};
      for (const auto& [row, unused] : edge_rows[v]) {
        entries.push_back({row + static_cast<int>(s), -1.0});
      }
      if (node.memory[s] != 0) {
        for (int r : memory_rows[v]) entries.push_back({r, node.memory[s]});
      }
      const int c = cols.Add(node.cost[s], /*is_integer=*/true, std::move(entries));
      if (s == 0) first_x[v] = c;
    }
  }
  // Pair variables need not be integer: with integral one-hot ends the
  // equalities leave exactly one of them at 1.
  for (size_t e = 0; e < problem.edges.size(); ++e) {
    const ShardingProblem::Edge& edge = problem.edges[e];
    const int64_t st = problem.nodes[edge.to].size();
    for (int64_t s = 0; s < problem.nodes[edge.from].size(); ++s) {
      for (int64_t t = 0; t < st; ++t) {
        cols.Add(
            edge.cost[s * st + t], /*is_integer=*/false,
            {{from_rows[e] + static_cast<int>(s), 1.0}, {to_rows[e] + static_cast<int>(t), 1.0}});
      }
    }
  }

  std::unique_ptr<Cbc_Model, ModelDeleter> model(Cbc_newModel());
  Cbc_Model* m = model.get();
  Cbc_loadProblem(m, static_cast<int>(cols.objective.size()), static_cast<int>(row_lower.size()),
                  cols.starts.data(), cols.rows.data(), cols.values.data(), cols.lower.data(),
                  cols.upper.data(), cols.objective.data(), row_lower.data(), row_upper.data());
  for (size_t c = 0; c < cols.integer.size(); ++c) {
    if (cols.integer[c]) Cbc_setInteger(m, static_cast<int>(c));
  }
  Cbc_setLogLevel(m, 0);
  Cbc_setMaximumSeconds(m, seconds);
  // One thread: results do not depend on timing between threads.
  Cbc_setParameter(m, "threads", "1");
  // The seed as a MIP start (node variables; pair variables follow).
  std::vector<int> start_cols;
  std::vector<double> start_values;
  for (int64_t v = 0; v < n; ++v) {
    for (int64_t s = 0; s < problem.nodes[v].size(); ++s) {
      start_cols.push_back(first_x[v] + static_cast<int>(s));
      start_values.push_back(s == seed.choice[v] ? 1.0 : 0.0);
    }
  }
  Cbc_setMIPStartI(m, static_cast<int>(start_cols.size()), start_cols.data(), start_values.data());
  const int status = Cbc_solve(m);
  const double* solution = Cbc_bestSolution(m);
  if (solution == nullptr) {
    if (Cbc_isProvenInfeasible(m)) {
      return absl::ResourceExhaustedError(
          "no sharding fits the memory limit (the ILP is infeasible)");
    }
    return absl::InternalError(absl::StrCat("CBC found no solution (status ", status, ")"));
  }
  SolvedPlan plan;
  plan.choice.assign(n, 0);
  for (int64_t v = 0; v < n; ++v) {
    double best = -1;
    for (int64_t s = 0; s < problem.nodes[v].size(); ++s) {
      const double x = solution[first_x[v] + s];
      if (x > best) best = x, plan.choice[v] = s;
    }
  }
  plan.objective = PlanObjective(problem, plan.choice);
  plan.memory = PlanMemory(problem, plan.choice);
  plan.optimal = Cbc_isProvenOptimal(m) != 0;
  plan.solver = plan.optimal ? "cbc (optimal)" : "cbc (time limit: best found)";
  if (plan.objective > seed.objective || plan.memory > problem.memory_limit) {
    // A time limit hit before CBC improved on (or even took) the start.
    SolvedPlan kept = seed;
    kept.solver = "cbc (time limit: heuristic seed kept)";
    return kept;
  }
  return plan;
}

}  // namespace xlite::spmd
