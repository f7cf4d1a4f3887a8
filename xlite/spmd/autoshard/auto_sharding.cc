#include "xlite/spmd/autoshard/auto_sharding.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/passes/call_inliner.h"
#include "xlite/passes/flatten_call_graph.h"
#include "xlite/spmd/autoshard/auto_sharding_graph.h"
#include "xlite/spmd/autoshard/auto_sharding_ilp.h"
#include "xlite/spmd/autoshard/auto_sharding_problem.h"
#include "xlite/spmd/factor_rule.h"
#include "xlite/spmd/partition_util.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

// The instructions whose choice --explain details (every array instruction
// of the entry is annotated: the partitioned module is the one the model
// priced, not one that propagation fills in differently).
bool IsExplained(const HloInstruction& inst) {
  if (!inst.shape().IsArray()) return false;
  switch (inst.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kDot:
    case HloOpcode::kConvolution:
    case HloOpcode::kReduce:
    case HloOpcode::kGather:
    case HloOpcode::kScatter:
      return true;
    default:
      return false;
  }
}

// The most mesh axes of size above 1 a search takes.
constexpr int64_t kMaxSplitAxes = 4;

// The heuristic's plan (also from `starts`), improved by the ILP where CBC
// is built in.
absl::StatusOr<SolvedPlan> Solve(const ShardingProblem& problem, double seconds,
                                 const std::vector<std::vector<int64_t>>& starts = {}) {
  const ShardingProblem simple = Simplified(problem);
  absl::StatusOr<SolvedPlan> seed = SolveHeuristic(simple, starts);
  if (!seed.ok()) return seed.status();
  if (!HaveIlpSolver()) {
    seed->solver = "heuristic (CBC not built in)";
    return seed;
  }
  absl::StatusOr<SolvedPlan> exact = SolveIlp(simple, *seed, seconds);
  if (!exact.ok()) {
    if (absl::IsFailedPrecondition(exact.status())) {
      return absl::ResourceExhaustedError(exact.status().message());
    }
    seed->solver = absl::StrCat("heuristic (", exact.status().message(), ")");
    return seed;
  }
  return exact;
}

// Solve, then while the plan peaks at a step over the limit that is no
// memory row yet, that step becomes one and the problem is solved again.
constexpr int kMaxMemoryRounds = 8;

absl::StatusOr<SolvedPlan> SolveWithMemoryRows(StrategyGraph& graph, double seconds,
                                               const std::vector<std::vector<int64_t>>& starts) {
  for (int round = 1;; ++round) {
    absl::StatusOr<SolvedPlan> plan = Solve(graph.problem, seconds, starts);
    if (!plan.ok()) return plan.status();
    const MemoryPeak peak = PeakMemory(graph, plan->choice);
    if (peak.bytes <= graph.problem.memory_limit) return plan;
    if (round == kMaxMemoryRounds) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "no plan found that fits the memory limit of %.0f bytes per device: after %d memory "
          "rows the best plan still holds %.0f bytes at %%%s",
          graph.problem.memory_limit, round, peak.bytes, graph.step_names[peak.step]));
    }
    graph.problem.memory_rows.push_back(MemoryRowAt(graph, peak.step));
  }
}

PlanTotals Totals(const StrategyGraph& graph, const std::vector<int64_t>& choice) {
  PlanTotals t;
  for (size_t v = 0; v < graph.nodes.size(); ++v) {
    const ShardingStrategy& s = graph.nodes[v].strategies[choice[v]];
    t.compute_seconds += s.compute_seconds;
    t.communication_seconds += s.communication_seconds;
  }
  for (const ShardingProblem::Edge& e : graph.problem.edges) {
    t.communication_seconds +=
        e.cost[choice[e.from] * graph.problem.nodes[e.to].size() + choice[e.to]];
  }
  t.seconds = t.compute_seconds + t.communication_seconds;
  if (!graph.step_names.empty()) {
    const MemoryPeak peak = PeakMemory(graph, choice);
    t.memory_bytes = peak.bytes;
    t.peak_at = graph.step_names[peak.step];
  }
  t.fits = t.memory_bytes <= graph.problem.memory_limit;
  return t;
}

// Node v's option s with its neighbours as `choice` has them.
ShardingChoice::Option OptionOf(const StrategyGraph& graph,
                                const std::vector<std::vector<int64_t>>& in_edges,
                                const std::vector<std::vector<int64_t>>& out_edges,
                                const std::vector<int64_t>& choice, int64_t v, int64_t s) {
  const ShardingStrategy& st = graph.nodes[v].strategies[s];
  ShardingChoice::Option o;
  o.sharding = PrintSharding(st.result);
  o.description = st.description;
  o.compute_seconds = st.compute_seconds;
  o.communication_seconds = st.communication_seconds;
  o.memory_bytes = st.memory_bytes;
  const int64_t sv = graph.problem.nodes[v].size();
  double users = 0;
  for (int64_t e : in_edges[v]) {
    const ShardingProblem::Edge& edge = graph.problem.edges[e];
    o.communication_seconds += edge.cost[choice[edge.from] * sv + s];
  }
  for (int64_t e : out_edges[v]) {
    const ShardingProblem::Edge& edge = graph.problem.edges[e];
    users += edge.cost[s * graph.problem.nodes[edge.to].size() + choice[edge.to]];
  }
  o.seconds = o.compute_seconds + o.communication_seconds + users;
  return o;
}

// Whether the first dot, convolution or gather (in instruction order: in a
// training step, the forward pass's) that `param` reaches keeps its leading
// dim: a dot or convolution keeps it unless it contracts it, a gather keeps
// its indices' and indexes its table's. `param` reaches an op directly or
// through elementwise ops and reshapes that keep the leading dim (token ids
// are wrapped with compare/add/select and given an index dim before an
// embedding gather). nullopt when none is reached.
std::optional<bool> LeadingDimKeptByContraction(const HloInstruction& param) {
  absl::flat_hash_set<const HloInstruction*> carries = {&param};
  for (const auto& inst : param.parent()->instructions()) {
    std::optional<bool> kept;
    for (size_t i = 0; i < inst->operands().size() && !kept.has_value(); ++i) {
      if (!carries.contains(inst->operand(i))) continue;
      if (inst->opcode() == HloOpcode::kGather) {
        kept = i == 1;
      } else if (inst->opcode() == HloOpcode::kDot || inst->opcode() == HloOpcode::kConvolution) {
        std::optional<FactorRule> rule = FactorRuleOf(*inst);
        if (!rule.has_value() || !rule->operands[i].has_value()) continue;
        kept = true;
        for (int64_t f : (*rule->operands[i])[0]) {
          if (rule->kinds[f] == FactorKind::kReduction) kept = false;
        }
      } else if ((IsElementwiseOpcode(inst->opcode()) &&
                  inst->shape().Compatible(inst->operand(i)->shape())) ||
                 (inst->opcode() == HloOpcode::kReshape && inst->shape().rank() > 0 &&
                  inst->shape().dimensions(0) == inst->operand(i)->shape().dimensions(0))) {
        carries.insert(inst.get());
      }
    }
    if (kept.has_value()) return kept;
  }
  return std::nullopt;
}

// Past this many ILP variables a baseline is the heuristic's plan: CBC's
// root LP alone takes seconds there (the deepseek dump's data-parallel
// baseline: 4 s), and the search starts from the baselines, so its own
// plan is no worse for it.
constexpr int64_t kMaxBaselineIlpVariables = 50000;

// The best plan where node v takes one of allowed[v] (as indices of its
// strategies), without the memory limit: a baseline's totals say whether
// it fits.
absl::StatusOr<std::vector<int64_t>> SolveAllowed(const StrategyGraph& graph,
                                                  const std::vector<std::vector<int64_t>>& allowed,
                                                  double seconds) {
  ShardingProblem restricted = Restricted(graph.problem, allowed);
  restricted.memory_limit = std::numeric_limits<double>::infinity();
  absl::StatusOr<SolvedPlan> plan = IlpVariables(Simplified(restricted)) <= kMaxBaselineIlpVariables
                                        ? Solve(restricted, seconds)
                                        : SolveHeuristic(Simplified(restricted));
  if (!plan.ok()) return plan.status();
  std::vector<int64_t> choice(graph.nodes.size());
  for (size_t v = 0; v < choice.size(); ++v) choice[v] = allowed[v][plan->choice[v]];
  return choice;
}

// Data-parallel: the parameters whose leading dim is the batch size split
// on it over every device (those the first dot or convolution taking them
// contracts there are weights: replicated), the others replicated; every other instruction
// splits at most one factor, over all devices at once. The batch size is
// the parameters' leading dim that gives the fastest such plan.
// A plan the search is compared with (and starts from).
struct Baseline {
  PlanTotals totals;
  std::string note;
  std::vector<int64_t> choice;
};

absl::StatusOr<std::optional<Baseline>> DataParallel(const StrategyGraph& graph,
                                                     const DeviceMesh& mesh, double seconds) {
  std::vector<int64_t> axes;
  for (int64_t a = 0; a < mesh.num_axes(); ++a) {
    if (mesh.sizes[a] > 1) axes.push_back(a);
  }
  const int64_t n = mesh.num_devices();
  // The batch sizes: leading dims of parameters that a dot or convolution
  // keeps (a leading dim it contracts is a weight's, not a batch).
  std::set<int64_t> batches;
  for (const ShardingNode& node : graph.nodes) {
    const HloInstruction& inst = *node.instruction;
    if (inst.opcode() == HloOpcode::kParameter && inst.shape().IsArray() &&
        inst.shape().rank() > 0 && inst.shape().dimensions(0) % n == 0 &&
        LeadingDimKeptByContraction(inst).value_or(false)) {
      batches.insert(inst.shape().dimensions(0));
    }
  }
  auto one_factor = [&](const ShardingStrategy& s, std::optional<int64_t> factor) {
    std::set<int64_t> used(s.axis_factor.begin(), s.axis_factor.end());
    for (int64_t a : axes) {
      if (s.axis_factor[a] < 0) return false;
    }
    return used.size() == 1 && (!factor.has_value() || *used.begin() == *factor);
  };
  std::optional<Baseline> best;
  for (int64_t batch : batches) {
    std::vector<std::vector<int64_t>> allowed(graph.nodes.size());
    for (size_t v = 0; v < graph.nodes.size(); ++v) {
      const ShardingNode& node = graph.nodes[v];
      const HloInstruction& inst = *node.instruction;
      const bool is_batch = inst.opcode() == HloOpcode::kParameter && inst.shape().IsArray() &&
                            inst.shape().rank() > 0 && inst.shape().dimensions(0) == batch &&
                            LeadingDimKeptByContraction(inst).value_or(true);
      for (size_t s = 0; s < node.strategies.size(); ++s) {
        const ShardingStrategy& st = node.strategies[s];
        bool ok = false;
        if (inst.opcode() == HloOpcode::kParameter) {
          ok = is_batch ? one_factor(st, /*factor=*/0) : s == 0;
        } else {
          ok = s == 0 || one_factor(st, std::nullopt);
        }
        if (ok) allowed[v].push_back(static_cast<int64_t>(s));
      }
      if (allowed[v].empty()) allowed[v].push_back(0);
    }
    absl::StatusOr<std::vector<int64_t>> choice = SolveAllowed(graph, allowed, seconds);
    if (!choice.ok()) return choice.status();
    PlanTotals totals = Totals(graph, *choice);
    if (!best.has_value() || totals.seconds < best->totals.seconds) {
      best = Baseline{totals,
                      absl::StrCat("parameters with leading dim ", batch, " split on it over all ",
                                   n, " devices, the others replicated"),
                      *std::move(choice)};
    }
  }
  return best;
}

// The module's own plan: every node with an array annotation (an
// instruction's or a loop state element's) takes the strategies whose
// result is its sharding (left free where none is), the others chosen as
// the search would. nullopt when nothing is annotated.
absl::StatusOr<std::optional<Baseline>> UserPlan(const StrategyGraph& graph, double seconds) {
  std::vector<std::vector<int64_t>> allowed(graph.nodes.size());
  int64_t pinned = 0;
  std::vector<std::string> free;
  for (size_t v = 0; v < graph.nodes.size(); ++v) {
    const ShardingNode& node = graph.nodes[v];
    std::optional<HloSharding> wanted;
    // A tuple's elements are its producers' (and a state element's).
    if (node.annotation.has_value() && !node.annotation->IsTuple()) {
      wanted = ForPartitioning(*node.annotation);
    }
    for (size_t s = 0; s < node.strategies.size(); ++s) {
      if (!wanted.has_value() || ForPartitioning(node.strategies[s].result) == *wanted) {
        allowed[v].push_back(static_cast<int64_t>(s));
      }
    }
    if (!wanted.has_value()) continue;
    if (!allowed[v].empty()) {
      ++pinned;
      continue;
    }
    free.push_back(absl::StrCat("%", node.instruction->name()));
    for (size_t s = 0; s < node.strategies.size(); ++s) {
      allowed[v].push_back(static_cast<int64_t>(s));
    }
  }
  if (pinned == 0 && free.empty()) return std::nullopt;
  absl::StatusOr<std::vector<int64_t>> choice = SolveAllowed(graph, allowed, seconds);
  if (!choice.ok()) return choice.status();
  std::string note = absl::StrCat(pinned,
                                  " annotated instructions kept their sharding, the "
                                  "others chosen by the search");
  if (!free.empty()) {
    absl::StrAppend(&note, "; left free (the mesh cannot express their annotation): ",
                    absl::StrJoin(free, ", "));
  }
  return Baseline{Totals(graph, *choice), std::move(note), *std::move(choice)};
}

// On a mesh of several axes, the plan of the same module on the mesh
// flattened to one axis (a far smaller problem, solved exactly where the
// full one is not), lifted: each instruction splits the flat plan's factor
// over every axis at once. nullopt on one axis, or when the flat problem
// cannot be built or solved.
std::optional<std::vector<int64_t>> FlatMeshStart(const HloModule& module,
                                                  const StrategyGraph& graph,
                                                  const DeviceSpec& device,
                                                  const AutoShardOptions& options) {
  const DeviceMesh& mesh = options.mesh;
  int64_t split_axes = 0;
  for (int64_t size : mesh.sizes) split_axes += size > 1 ? 1 : 0;
  if (split_axes < 2) return std::nullopt;
  const DeviceMesh flat{{mesh.num_devices()}, {"flat"}};
  absl::StatusOr<StrategyGraph> flat_graph = BuildStrategyGraph(
      module, flat, device, graph.problem.memory_limit, options.keep_annotations);
  if (!flat_graph.ok()) return std::nullopt;
  absl::StatusOr<SolvedPlan> plan = Solve(flat_graph->problem, options.solver_seconds);
  if (!plan.ok()) return std::nullopt;
  std::vector<int64_t> choice(graph.nodes.size(), 0);
  for (size_t v = 0; v < graph.nodes.size(); ++v) {
    const int64_t factor = flat_graph->nodes[v].strategies[plan->choice[v]].axis_factor[0];
    const std::vector<ShardingStrategy>& strategies = graph.nodes[v].strategies;
    for (size_t s = 0; s < strategies.size(); ++s) {
      bool lifted = true;
      for (int64_t a = 0; a < mesh.num_axes(); ++a) {
        lifted = lifted && strategies[s].axis_factor[a] == (mesh.sizes[a] > 1 ? factor : -1);
      }
      if (lifted) choice[v] = static_cast<int64_t>(s);
    }
  }
  return choice;
}

}  // namespace

absl::StatusOr<AutoShardResult> AutoShard(HloModule& module, const DeviceSpec& device,
                                          const AutoShardOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const DeviceMesh& mesh = options.mesh;
  const int64_t n = mesh.num_devices();
  const ModuleConfig& config = module.config();
  if (config.replica_count != 1) {
    return absl::UnimplementedError(absl::StrCat(
        "not supported yet: auto-sharding a module with replica_count=", config.replica_count));
  }
  // Each instruction's strategies grow as (factors + 1)^axes: on explain.hlo
  // 4 axes take 4 s, 5 take 29 s, 6 over 2 minutes.
  const int64_t split_axes =
      std::count_if(mesh.sizes.begin(), mesh.sizes.end(), [](int64_t size) { return size > 1; });
  if (split_axes > kMaxSplitAxes) {
    return absl::UnimplementedError(
        absl::StrCat("not supported yet: a mesh of ", split_axes, " axes larger than 1 (",
                     mesh.ToString(), "); auto-sharding searches at most ", kMaxSplitAxes,
                     " (merge axes, e.g. 2x2x2x2x2 as 4x8)"));
  }
  if (config.num_partitions > 1 && config.num_partitions != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("the mesh ", mesh.ToString(), " has ", n,
                     " devices but the module has num_partitions=", config.num_partitions));
  }
  // As XLA's pipelines before partitioning: calls inlined (what they do gets
  // strategies of its own, in the caller), each loop body called once.
  XLITE_RETURN_IF_ERROR(InlineCallsAndDropCallees(module).status());
  FlattenCallGraphPass flatten;
  XLITE_RETURN_IF_ERROR(flatten.Run(module).status());
  module.UpdateSchedule();
  AutoShardResult result;
  result.memory_limit = options.memory_limit.value_or(
      device.memory_bytes > 0 ? device.memory_bytes : std::numeric_limits<double>::infinity());
  absl::StatusOr<StrategyGraph> graph_or =
      BuildStrategyGraph(module, mesh, device, result.memory_limit, options.keep_annotations);
  if (!graph_or.ok()) return graph_or.status();
  StrategyGraph& graph = *graph_or;
  result.nodes = static_cast<int64_t>(graph.nodes.size());
  result.edges = static_cast<int64_t>(graph.problem.edges.size());
  for (const ShardingNode& node : graph.nodes) {
    result.strategies += static_cast<int64_t>(node.strategies.size());
  }
  if (MinimumMemory(graph.problem) > result.memory_limit) {
    const MemoryPeak peak = PeakMemory(graph, std::vector<int64_t>(graph.nodes.size(), 0));
    return absl::ResourceExhaustedError(absl::StrFormat(
        "no sharding on %s fits the memory limit: however it is split, at least %.0f bytes per "
        "device are live at %%%s, the limit is %.0f",
        mesh.ToString(), MinimumMemory(graph.problem), graph.step_names[peak.step],
        result.memory_limit));
  }
  // The baselines first: the search starts from them too, so its plan is
  // never worse than one of them that fits.
  absl::StatusOr<std::optional<Baseline>> dp = DataParallel(graph, mesh, options.solver_seconds);
  if (!dp.ok()) return dp.status();
  std::vector<std::vector<int64_t>> starts;
  if (dp->has_value()) starts.push_back((*dp)->choice);
  absl::StatusOr<std::optional<Baseline>> user = UserPlan(graph, options.solver_seconds);
  if (!user.ok()) return user.status();
  if (user->has_value()) starts.push_back((*user)->choice);
  if (std::optional<std::vector<int64_t>> flat = FlatMeshStart(module, graph, device, options)) {
    starts.push_back(std::move(*flat));
  }
  absl::StatusOr<SolvedPlan> plan = SolveWithMemoryRows(graph, options.solver_seconds, starts);
  if (!plan.ok()) return plan.status();
  result.solver = plan->solver;
  result.plan = Totals(graph, plan->choice);
  result.replicated = Totals(graph, std::vector<int64_t>(graph.nodes.size(), 0));
  if (dp->has_value()) {
    result.data_parallel = (*dp)->totals;
    result.data_parallel_note = (*dp)->note;
  } else {
    result.data_parallel_note =
        absl::StrCat("no batch: no parameter whose leading dim divides over ", n,
                     " devices is kept (not contracted or indexed) by the first dot, convolution "
                     "or gather it reaches");
  }

  if (user->has_value()) {
    result.user_plan = (*user)->totals;
    result.user_plan_note = (*user)->note;
  }

  std::vector<std::vector<int64_t>> in_edges(graph.nodes.size()), out_edges(graph.nodes.size());
  for (size_t e = 0; e < graph.problem.edges.size(); ++e) {
    in_edges[graph.problem.edges[e].to].push_back(static_cast<int64_t>(e));
    out_edges[graph.problem.edges[e].from].push_back(static_cast<int64_t>(e));
  }
  if (!options.keep_annotations) {
    for (const auto& computation : module.computations()) {
      for (const auto& inst : computation->instructions()) inst->clear_sharding();
    }
  }
  // The instructions to write to.
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> writable;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) writable[inst.get()] = inst.get();
  }
  for (size_t v = 0; v < graph.nodes.size(); ++v) {
    const ShardingNode& node = graph.nodes[v];
    const int64_t s = plan->choice[v];
    for (const HloInstruction* member : node.members) {
      if (!member->shape().IsArray()) continue;
      writable.at(member)->set_sharding(node.strategies[s].result);
      ++result.annotated;
    }
    if (!IsExplained(*node.instruction)) continue;
    ShardingChoice choice;
    choice.instruction = node.instruction->name();
    choice.opcode = std::string(OpcodeName(node.instruction->opcode()));
    choice.chosen = OptionOf(graph, in_edges, out_edges, plan->choice, static_cast<int64_t>(v), s);
    std::vector<int64_t> swapped = plan->choice;
    for (size_t t = 0; t < node.strategies.size(); ++t) {
      if (static_cast<int64_t>(t) == s) continue;
      ShardingChoice::Option o = OptionOf(graph, in_edges, out_edges, plan->choice,
                                          static_cast<int64_t>(v), static_cast<int64_t>(t));
      swapped[v] = static_cast<int64_t>(t);
      o.over_memory_limit = PeakMemory(graph, swapped).bytes > result.memory_limit;
      if (!choice.rejected.has_value() || o.seconds < choice.rejected->seconds) choice.rejected = o;
    }
    result.choices.push_back(std::move(choice));
  }
  // A modelled loop, its initial tuple, its body's parameter and result and
  // its condition's parameter hold the state as chosen.
  for (const ModelledLoop& loop : graph.loops) {
    std::vector<HloSharding> elements;
    for (int64_t v : loop.state)
      elements.push_back(graph.nodes[v].strategies[plan->choice[v]].result);
    const HloSharding state = HloSharding::Tuple(std::move(elements));
    const HloComputation& condition = *loop.loop->called_computations()[0];
    const HloComputation& body = *loop.loop->called_computations()[1];
    for (const HloInstruction* inst : std::initializer_list<const HloInstruction*>{
             loop.loop, loop.loop->operand(0), body.parameter_instruction(0),
             body.root_instruction(), condition.parameter_instruction(0)}) {
      writable.at(inst)->set_sharding(state);
    }
  }
  module.config().num_partitions = n;
  result.search_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace xlite::spmd
