#include "xlite/sched/latency_hiding_scheduler.h"

#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/passes/flatten_call_graph.h"
#include "xlite/sched/hlo_memory_scheduler.h"
#include "xlite/sched/memory_scheduler.h"

namespace xlite {

HloSchedule::Sequence LatencyHidingOrder(absl::Span<HloInstruction* const> base,
                                         LatencyModel& model, const LatencyHidingOptions& options) {
  const int32_t n = static_cast<int32_t>(base.size());
  absl::flat_hash_map<const HloInstruction*, int32_t> index;  // looked up only
  for (int32_t i = 0; i < n; ++i) index[base[i]] = i;
  std::vector<int32_t> pending_successors(n, 0);
  std::vector<std::vector<int32_t>> predecessors(n);
  for (int32_t i = 0; i < n; ++i) {
    auto add = [&](const HloInstruction* pred) {
      auto it = index.find(pred);
      if (it == index.end()) return;
      std::vector<int32_t>& preds = predecessors[i];
      if (std::find(preds.begin(), preds.end(), it->second) != preds.end()) return;
      preds.push_back(it->second);
      ++pending_successors[it->second];
    };
    for (const HloInstruction* operand : base[i]->operands()) add(operand);
    for (const HloInstruction* pred : base[i]->control_predecessors()) add(pred);
  }
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

  std::vector<int32_t> ready;
  for (int32_t i = 0; i < n; ++i) {
    if (pending_successors[i] == 0) ready.push_back(i);
  }
  std::vector<int> in_flight(kNumCollectiveKinds, 0);
  HloSchedule::Sequence reversed;
  reversed.reserve(n);
  double now = 0;
  // Best candidate by a rule: among `ready` entries passing `accept`, the
  // latest in the base order (bottom-up keeps the base order otherwise).
  auto pick = [&](auto accept) -> int64_t {
    int64_t best = -1;
    for (size_t r = 0; r < ready.size(); ++r) {
      if (accept(ready[r]) && (best < 0 || ready[r] > ready[best])) best = static_cast<int64_t>(r);
    }
    return best;
  };
  while (!ready.empty()) {
    std::vector<bool> waiting_kind(kNumCollectiveKinds, false);
    for (int32_t i : ready) {
      if (role[i] == Role::kDone && in_flight[kind[i]] >= options.max_in_flight_per_kind) {
        waiting_kind[kind[i]] = true;
      }
    }
    int64_t chosen = pick([&](int32_t i) {
      return role[i] == Role::kDone && in_flight[kind[i]] < options.max_in_flight_per_kind;
    });
    if (chosen < 0) {
      chosen = pick([&](int32_t i) {
        return role[i] == Role::kStart && ready_at[i] <= now && waiting_kind[kind[i]];
      });
    }
    if (chosen < 0) chosen = pick([&](int32_t i) { return role[i] == Role::kCompute; });
    if (chosen < 0) {
      chosen = pick([&](int32_t i) { return role[i] == Role::kStart && ready_at[i] <= now; });
    }
    if (chosen < 0) {
      // Every start still has latency to cover: the one ready soonest stalls least.
      for (size_t r = 0; r < ready.size(); ++r) {
        const int32_t i = ready[r];
        if (role[i] != Role::kStart) continue;
        if (chosen < 0 || ready_at[i] < ready_at[ready[chosen]]) chosen = static_cast<int64_t>(r);
      }
    }
    if (chosen < 0) chosen = pick([](int32_t) { return true; });  // a done over the limit
    const int32_t i = ready[chosen];
    ready.erase(ready.begin() + chosen);
    if (role[i] == Role::kStart) {
      now = std::max(now, ready_at[i]);
      --in_flight[kind[i]];
    } else if (role[i] == Role::kDone) {
      ++in_flight[kind[i]];
      const int32_t s = start_of[i];
      ready_at[s] = std::max(ready_at[s], now + latency[s]);
    }
    now += cost[i];
    reversed.push_back(base[i]);
    for (int32_t p : predecessors[i]) {
      if (--pending_successors[p] == 0) ready.push_back(p);
    }
  }
  return {reversed.rbegin(), reversed.rend()};
}

absl::StatusOr<LatencyHidingResult> ScheduleLatencyHiding(const AliasAnalysis& aliases,
                                                          const HloSchedule& base,
                                                          LatencyModel& model,
                                                          const LatencyHidingOptions& options) {
  LatencyHidingResult result;
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<Liveness> base_liveness, Liveness::Run(aliases, base));
  result.base_peak_bytes = base_liveness->peak_bytes();
  result.memory_limit_bytes = options.memory_limit_bytes.value_or(result.base_peak_bytes);
  if (result.base_peak_bytes > result.memory_limit_bytes) {
    return InvalidArgument("the base schedule's peak (", result.base_peak_bytes,
                           " bytes) is over the memory limit (", result.memory_limit_bytes,
                           " bytes)");
  }
  result.schedule = base;
  const std::vector<const HloComputation*>& computations =
      aliases.dataflow().sequential_computations();
  for (const HloComputation* c : computations) {
    result.schedule.set_sequence(*c, LatencyHidingOrder(base.sequence(*c), model, options));
  }
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<Liveness> liveness,
                         Liveness::Run(aliases, result.schedule));
  result.peak_bytes = liveness->peak_bytes();
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

absl::StatusOr<bool> LatencyHidingSchedulerPass::Run(HloModule& module) {
  if (module.entry_computation() == nullptr) return false;
  FlattenCallGraphPass flatten;
  XLITE_RETURN_IF_ERROR(flatten.Run(module).status());
  module.UpdateSchedule();  // flattening may have added computations
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<AliasAnalysis> aliases, AliasAnalysis::Run(module));
  HloSchedule base = CurrentSchedule(module);
  if (!module.is_scheduled()) {
    XLITE_ASSIGN_OR_RETURN(MemorySchedule memory,
                           ScheduleForMemory(*aliases, MemoryScheduler::kBest));
    base = std::move(memory.schedule);
  }
  LatencyModel model(device_);
  XLITE_ASSIGN_OR_RETURN(LatencyHidingResult result,
                         ScheduleLatencyHiding(*aliases, base, model, options_));
  return SetModuleSchedule(std::move(result.schedule), module);
}

}  // namespace xlite
