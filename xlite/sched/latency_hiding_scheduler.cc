#include "xlite/sched/latency_hiding_scheduler.h"

#include <algorithm>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "xlite/analysis/call_graph.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/sched/local_memory.h"
#include "xlite/sched/schedule_constraints.h"
#include "xlite/sched/schedule_module.h"
#include "xlite/sched/step_estimate.h"

namespace xlite {

namespace {
// Rounds of barriers before a computation falls back to its base order.
constexpr int kMaxBarrierRounds = 16;

// The highest step of every run of steps over `limit`.
std::vector<int64_t> PeaksOverLimit(const Liveness& liveness, int64_t limit) {
  const std::vector<int64_t>& bytes = liveness.bytes_at_step();
  std::vector<int64_t> peaks;
  for (size_t step = 0; step < bytes.size(); ++step) {
    if (bytes[step] <= limit) continue;
    if (step == 0 || bytes[step - 1] <= limit) {
      peaks.push_back(static_cast<int64_t>(step));
    } else if (bytes[step] > bytes[peaks.back()]) {
      peaks.back() = static_cast<int64_t>(step);
    }
  }
  return peaks;
}
}  // namespace

HloSchedule::Sequence LatencyHidingOrder(const LocalMemory& memory,
                                         absl::Span<HloInstruction* const> base,
                                         LatencyModel& model, const LatencyHidingOptions& options,
                                         const MemoryBudget& budget,
                                         const ScheduleConstraints& constraints) {
  const int32_t n = static_cast<int32_t>(base.size());
  absl::flat_hash_map<const HloInstruction*, int32_t> index;  // looked up only
  for (int32_t i = 0; i < n; ++i) index[base[i]] = i;
  std::vector<int32_t> pending_successors(n, 0);
  std::vector<std::vector<int32_t>> predecessors(n);
  auto add_edge = [&](const HloInstruction* pred, int32_t i) {
    auto it = index.find(pred);
    if (it == index.end()) return;
    std::vector<int32_t>& preds = predecessors[i];
    if (std::find(preds.begin(), preds.end(), it->second) != preds.end()) return;
    preds.push_back(it->second);
    ++pending_successors[it->second];
  };
  for (int32_t i = 0; i < n; ++i) {
    for (const HloInstruction* operand : base[i]->operands()) add_edge(operand, i);
    for (const HloInstruction* pred : base[i]->control_predecessors()) add_edge(pred, i);
  }
  for (const OrderEdge& edge : constraints.edges) add_edge(edge.first, index.at(edge.second));
  enum class Role : uint8_t { kCompute, kStart, kDone };
  std::vector<Role> role(n, Role::kCompute);
  std::vector<int> kind(n, 0);
  std::vector<double> cost(n, 0), latency(n, 0), ready_at(n, 0);
  std::vector<int32_t> start_of(n, -1);
  for (int32_t i = 0; i < n; ++i) {
    const HloInstruction& inst = *base[i];
    if (IsAsyncCollectiveStart(inst)) {
      role[i] = Role::kStart;
      kind[i] = static_cast<int>(*CollectiveKindOf(inst));
      latency[i] = model.Collective(inst).seconds;
    } else if (const HloInstruction* start = StartOfDone(inst);
               start != nullptr && index.contains(start)) {
      role[i] = Role::kDone;
      start_of[i] = index.at(start);
      kind[i] = static_cast<int>(*CollectiveKindOf(*start));
    } else {
      // Only the relative cost of compute matters here; an instruction the
      // cost analysis refuses counts as free.
      cost[i] = model.ComputeSeconds(inst).value_or(0);
    }
  }

  // Async depth, as XLA's: the most collective latency on a path from the
  // top down to an instruction. Placing the deepest compute first reaches
  // the dones above it sooner, so that the rest lands under a collective.
  std::vector<double> async_depth(n, 0);
  const bool deepest_first = options.async_depth_first.value_or(true);
  for (int32_t i = 0; i < n; ++i) {  // the base order is topological
    for (int32_t p : predecessors[i]) async_depth[i] = std::max(async_depth[i], async_depth[p]);
    if (role[i] == Role::kDone) async_depth[i] += latency[start_of[i]];
  }

  std::vector<int> in_flight(kNumCollectiveKinds, 0);
  // A call site may not run while collectives of a kind it holds are in
  // flight beyond the room left (XLA's overlap limit over callees).
  std::vector<const KindCounts*> callee_dones(n, nullptr);
  for (const auto& [site, counts] : constraints.callee_dones)
    callee_dones[index.at(site)] = &counts;
  auto blocked = [&](int32_t i) {
    if (callee_dones[i] == nullptr) return false;
    for (int k = 0; k < kNumCollectiveKinds; ++k) {
      if (in_flight[k] > 0 &&
          options.max_in_flight_per_kind - in_flight[k] < (*callee_dones[i])[k]) {
        return true;
      }
    }
    return false;
  };
  // Compute reading a done unlocks it (XLA's kUnlockDone).
  std::vector<bool> reads_done(n, false);
  for (int32_t i = 0; i < n; ++i) {
    for (const HloInstruction* operand : base[i]->operands()) {
      auto it = index.find(operand);
      if (it != index.end() && role[it->second] == Role::kDone) reads_done[i] = true;
    }
  }
  BottomUpMemory tracker(memory);
  std::vector<int32_t> local(n);
  for (int32_t i = 0; i < n; ++i) local[i] = memory.index.at(base[i]);
  // The bytes while each candidate would run, computed once per step.
  int64_t step = 0;
  std::vector<int64_t> running(n, 0), running_step(n, -1);
  auto running_bytes = [&](int32_t i) {
    if (running_step[i] != step) {
      running[i] = tracker.BytesWhileRunning(local[i]);
      running_step[i] = step;
    }
    return running[i];
  };
  auto fits = [&](int32_t i) { return budget.Fits(running_bytes(i), local[i]); };
  // Barriers cut the base order into segments placed one after the other,
  // each from its barrier (its last instruction) up, so that the set of
  // instructions before a barrier, and the bytes live at it, stay as in
  // the base order.
  const std::vector<int32_t>& barriers = budget.barriers;
  std::vector<int32_t> segment(n), unplaced(barriers.size() + 1, 0);
  for (int32_t i = 0; i < n; ++i) {
    segment[i] = static_cast<int32_t>(std::lower_bound(barriers.begin(), barriers.end(), i) -
                                      barriers.begin());
    ++unplaced[segment[i]];
  }
  // The segment being placed: the last one with instructions left.
  int32_t current = static_cast<int32_t>(barriers.size());
  auto settle = [&] {
    while (current > 0 && unplaced[current] == 0) --current;
  };
  settle();
  std::vector<bool> placed(n, false);
  auto eligible = [&](int32_t i) {
    if (segment[i] != current) return false;
    if (current == static_cast<int32_t>(barriers.size())) return true;
    return placed[barriers[current]] || i == barriers[current];
  };

  // Ready compute in preference order (the deepest first when asked, then
  // the latest in the base order: bottom-up keeps the base order
  // otherwise); ready starts and dones, few, in a list.
  using ComputeKey = std::pair<double, int32_t>;
  auto key_of = [&](int32_t i) -> ComputeKey {
    return {deepest_first ? -async_depth[i] : 0.0, -i};
  };
  std::set<ComputeKey> ready_compute;
  std::vector<int32_t> ready_async;
  auto make_ready = [&](int32_t i) {
    if (role[i] == Role::kCompute) {
      ready_compute.insert(key_of(i));
    } else {
      ready_async.push_back(i);
    }
  };
  for (int32_t i = 0; i < n; ++i) {
    if (pending_successors[i] == 0) make_ready(i);
  }
  // Among eligible ready entries passing `accept`, the one with the least
  // `rank`, ties to the latest in the base order; -1 when none.
  auto pick_ranked = [&](auto accept, auto rank, bool with_compute) -> int32_t {
    int32_t best = -1;
    double best_rank = 0;
    auto consider = [&](int32_t i) {
      if (!eligible(i) || !accept(i)) return;
      const double k = rank(i);
      if (best < 0 || k < best_rank || (k == best_rank && i > best)) {
        best = i;
        best_rank = k;
      }
    };
    for (int32_t i : ready_async) consider(i);
    if (with_compute) {
      for (const ComputeKey& key : ready_compute) consider(-key.second);
    }
    return best;
  };
  auto no_rank = [](int32_t) { return 0.0; };
  // A start whose latency is covered against ready compute, as XLA ranks
  // them: a start with no collective above it goes as early as it can
  // (kStartAtZeroDepth); else, with async depth, the deeper first
  // (kAsyncDepth); then the one that reads a done (kUnlockDone); then the
  // later in the base order (kOriginalOrder). A chained start thus closes
  // once its latency is covered, leaving the compute above it to the
  // collectives it waits on.
  auto start_first = [&](int32_t start, int32_t compute) {
    if (async_depth[start] == 0) return false;
    if (deepest_first && async_depth[start] != async_depth[compute]) {
      return async_depth[start] > async_depth[compute];
    }
    if (reads_done[start] != reads_done[compute]) return static_cast<bool>(reads_done[start]);
    return start > compute;
  };
  auto free_done = [&](int32_t i) {
    return role[i] == Role::kDone && in_flight[kind[i]] < options.max_in_flight_per_kind;
  };
  HloSchedule::Sequence reversed;
  reversed.reserve(n);
  double now = 0;
  while (!ready_compute.empty() || !ready_async.empty()) {
    ++step;
    std::vector<bool> waiting_kind(kNumCollectiveKinds, false);
    for (int32_t i : ready_async) {
      if (role[i] == Role::kDone && !free_done(i)) waiting_kind[kind[i]] = true;
    }
    int32_t chosen = pick_ranked([&](int32_t i) { return free_done(i) && fits(i); }, no_rank,
                                 /*with_compute=*/false);
    if (chosen < 0) {
      chosen = pick_ranked(
          [&](int32_t i) {
            return role[i] == Role::kStart && ready_at[i] <= now && waiting_kind[kind[i]];
          },
          no_rank, false);
    }
    if (chosen < 0 && budget.Exceeded(tracker)) {
      // Over the limit: whatever frees the most.
      chosen = pick_ranked([&](int32_t i) { return !blocked(i); },
                           [&](int32_t i) { return static_cast<double>(tracker.Change(local[i])); },
                           true);
    }
    if (chosen < 0) {
      // Compute that fits, in preference order, or a start whose latency is
      // covered where XLA's cascade ranks it first.
      int32_t compute = -1;
      for (const ComputeKey& key : ready_compute) {
        const int32_t i = -key.second;
        if (eligible(i) && fits(i) && !blocked(i)) {
          compute = i;
          break;
        }
      }
      const int32_t start = pick_ranked(
          [&](int32_t i) { return role[i] == Role::kStart && ready_at[i] <= now; }, no_rank, false);
      chosen = start >= 0 && (compute < 0 || start_first(start, compute)) ? start : compute;
    }
    if (chosen < 0) {
      // Every start still has latency to cover: the one ready soonest stalls least.
      chosen = pick_ranked([&](int32_t i) { return role[i] == Role::kStart; },
                           [&](int32_t i) { return ready_at[i]; }, false);
    }
    if (chosen < 0) {
      // Nothing fits: the least memory, a done over the resource limit
      // last (only to break a cycle of waits).
      chosen = pick_ranked(
          [&](int32_t i) { return (role[i] != Role::kDone || free_done(i)) && !blocked(i); },
          [&](int32_t i) { return static_cast<double>(running_bytes(i)); }, true);
    }
    if (chosen < 0) chosen = pick_ranked([](int32_t) { return true; }, no_rank, true);
    const int32_t i = chosen;
    if (role[i] == Role::kCompute) {
      ready_compute.erase(key_of(i));
    } else {
      ready_async.erase(std::find(ready_async.begin(), ready_async.end(), i));
    }
    placed[i] = true;
    --unplaced[segment[i]];
    settle();
    if (role[i] == Role::kStart) {
      now = std::max(now, ready_at[i]);
      --in_flight[kind[i]];
    } else if (role[i] == Role::kDone) {
      ++in_flight[kind[i]];
      const int32_t s = start_of[i];
      ready_at[s] = std::max(ready_at[s], now + latency[s]);
    }
    now += cost[i];
    tracker.Place(local[i]);
    reversed.push_back(base[i]);
    for (int32_t p : predecessors[i]) {
      if (--pending_successors[p] == 0) make_ready(p);
    }
  }
  return {reversed.rbegin(), reversed.rend()};
}

namespace {

// Every computation ordered from `base` within the limit, the barrier
// rounds included, then the fallback to base orders.
absl::StatusOr<LatencyHidingResult> ScheduleOnce(
    const AliasAnalysis& aliases, const HloSchedule& base, const std::vector<LocalMemory>& memories,
    std::vector<MemoryBudget> budgets, const std::vector<ScheduleConstraints>& constraints,
    LatencyModel& model, const LatencyHidingOptions& options, LatencyHidingResult result) {
  const std::vector<const HloComputation*>& computations =
      aliases.dataflow().sequential_computations();
  result.schedule = base;
  // The budget looks at one instruction at a time, so an order can still
  // end over the limit where compute pulled under a collective keeps
  // buffers live across the peak. Then the instruction at the peak, and its
  // call sites up to the entry, become barriers nothing moves across (the
  // bytes live at a barrier are the base order's), and the computations
  // that got one are scheduled again.
  absl::flat_hash_map<const HloComputation*, size_t> computation_index;
  absl::flat_hash_map<const HloInstruction*, int32_t> base_position;
  for (size_t k = 0; k < computations.size(); ++k) {
    computation_index[computations[k]] = k;
    absl::Span<HloInstruction* const> order = base.sequence(*computations[k]);
    for (size_t p = 0; p < order.size(); ++p) base_position[order[p]] = static_cast<int32_t>(p);
  }
  const CallGraph call_graph(aliases.dataflow().module());
  std::vector<bool> dirty(computations.size(), true);
  std::unique_ptr<Liveness> liveness;
  for (int attempt = 0; attempt < kMaxBarrierRounds; ++attempt) {
    for (size_t k = 0; k < computations.size(); ++k) {
      if (!dirty[k]) continue;
      dirty[k] = false;
      result.schedule.set_sequence(
          *computations[k], LatencyHidingOrder(memories[k], base.sequence(*computations[k]), model,
                                               options, budgets[k], constraints[k]));
    }
    XLITE_ASSIGN_OR_RETURN(liveness, Liveness::Run(aliases, result.schedule));
    result.peak_bytes = liveness->peak_bytes();
    if (result.peak_bytes <= result.memory_limit_bytes) break;
    bool added = false;
    for (int64_t step : PeaksOverLimit(*liveness, result.memory_limit_bytes)) {
      for (const HloInstruction* at = liveness->timeline()[step]; at != nullptr;) {
        const size_t k = computation_index.at(at->parent());
        std::vector<int32_t>& barriers = budgets[k].barriers;
        const int32_t position = base_position.at(at);
        auto it = std::lower_bound(barriers.begin(), barriers.end(), position);
        if (it == barriers.end() || *it != position) {
          barriers.insert(it, position);
          dirty[k] = added = true;
          ++result.barriers;
        }
        absl::Span<const CallSite> sites = call_graph.CallSitesOf(*at->parent());
        at = sites.empty() ? nullptr : sites.front().instruction;
      }
    }
    if (!added) break;
  }
  // Over the limit: give computations back their base order, callers first
  // (the entry holds the longest live ranges), until the peak fits.
  for (auto it = computations.rbegin();
       it != computations.rend() && result.peak_bytes > result.memory_limit_bytes; ++it) {
    absl::Span<HloInstruction* const> order = base.sequence(**it);
    result.schedule.set_sequence(**it, {order.begin(), order.end()});
    result.kept_base_order.push_back((*it)->name());
    XLITE_ASSIGN_OR_RETURN(liveness, Liveness::Run(aliases, result.schedule));
    result.peak_bytes = liveness->peak_bytes();
  }
  std::reverse(result.kept_base_order.begin(), result.kept_base_order.end());
  return result;
}

}  // namespace

absl::StatusOr<LatencyHidingResult> ScheduleLatencyHiding(const AliasAnalysis& aliases,
                                                          const HloSchedule& given,
                                                          LatencyModel& model,
                                                          const LatencyHidingOptions& options) {
  // The base order with every use of a buffer an async done writes before
  // the start (a valid schedule, but one XLA's would not produce).
  HloSchedule base = given;
  std::vector<ScheduleConstraints> constraints;
  ScheduleConstraintBuilder builder(aliases);
  for (const HloComputation* c : aliases.dataflow().sequential_computations()) {
    constraints.push_back(builder.For(given.sequence(*c)));
    if (!constraints.back().reordered.empty()) {
      base.set_sequence(*c, std::move(constraints.back().reordered));
    }
  }
  LatencyHidingResult result;
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<Liveness> base_liveness, Liveness::Run(aliases, base));
  result.base_peak_bytes = base_liveness->peak_bytes();
  result.memory_limit_bytes = options.memory_limit_bytes.value_or(result.base_peak_bytes);
  if (result.base_peak_bytes > result.memory_limit_bytes) {
    return InvalidArgument("the base schedule's peak (", result.base_peak_bytes,
                           " bytes) is over the memory limit (", result.memory_limit_bytes,
                           " bytes)");
  }
  std::vector<LocalMemory> memories;
  std::vector<MemoryBudget> budgets;
  memories.reserve(aliases.dataflow().sequential_computations().size());
  for (const HloComputation* c : aliases.dataflow().sequential_computations()) {
    memories.emplace_back(aliases, *c);
    budgets.push_back(
        BudgetOf(memories.back(), base.sequence(*c), *base_liveness, result.memory_limit_bytes));
  }
  std::vector<bool> variants = {true, false};
  if (options.async_depth_first.has_value()) variants = {*options.async_depth_first};
  std::optional<LatencyHidingResult> best;
  double best_seconds = 0;
  for (bool deepest_first : variants) {
    LatencyHidingOptions variant = options;
    variant.async_depth_first = deepest_first;
    XLITE_ASSIGN_OR_RETURN(
        LatencyHidingResult scheduled,
        ScheduleOnce(aliases, base, memories, budgets, constraints, model, variant, result));
    XLITE_ASSIGN_OR_RETURN(StepEstimate step,
                           EstimateStep(aliases.dataflow().module(), scheduled.schedule, model));
    if (!best.has_value() || step.step_seconds < best_seconds) {
      best = std::move(scheduled);
      best_seconds = step.step_seconds;
    }
  }
  return std::move(*best);
}

absl::StatusOr<bool> LatencyHidingSchedulerPass::Run(HloModule& module) {
  if (module.entry_computation() == nullptr) return false;
  // The pass schedules only: collectives stay as written, the module's own
  // order (when it has one) is the base, and an explicit limit the base is
  // over is an error rather than a reason to recompute.
  ScheduleModuleOptions options;
  options.max_in_flight_per_kind = options_.max_in_flight_per_kind;
  options.memory_limit_bytes = options_.memory_limit_bytes;
  options.rematerialize = false;
  options.create_async_collectives = false;
  options.keep_module_order = true;
  options.estimate_steps = false;
  LatencyModel model(device_);
  XLITE_ASSIGN_OR_RETURN(ScheduleModuleResult result, ScheduleModule(module, model, options));
  return result.changed;
}

}  // namespace xlite
