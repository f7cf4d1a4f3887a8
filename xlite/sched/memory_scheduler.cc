#include "xlite/sched/memory_scheduler.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "xlite/base/saturating.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/sched/local_memory.h"

namespace xlite {

std::string_view MemorySchedulerName(MemoryScheduler scheduler) {
  switch (scheduler) {
    case MemoryScheduler::kPostOrder:
      return "postorder";
    case MemoryScheduler::kDfs:
      return "dfs";
    case MemoryScheduler::kList:
      return "list";
    case MemoryScheduler::kBest:
      return "best";
  }
  return "best";
}

std::optional<MemoryScheduler> MemorySchedulerFromName(std::string_view name) {
  for (MemoryScheduler s : {MemoryScheduler::kPostOrder, MemoryScheduler::kDfs,
                            MemoryScheduler::kList, MemoryScheduler::kBest}) {
    if (MemorySchedulerName(s) == name) return s;
  }
  return std::nullopt;
}

namespace {

HloSchedule::Sequence PostOrderSchedule(const HloComputation& c) {
  return c.MakeInstructionPostOrder();
}

// XLA's DFS scheduler: depth first from the root, visiting first the
// operands whose subgraphs have the most extra users, then the most bytes,
// then by name, so that big subgraphs finish (and free) before others start.
HloSchedule::Sequence DfsSchedule(const LocalMemory& m, const HloComputation& c) {
  const size_t n = m.instructions.size();
  std::vector<int64_t> extra_users(n, 0), total_bytes(n, 0);
  for (const HloInstruction* inst : c.MakeInstructionPostOrder()) {
    const int32_t i = m.index.at(inst);
    extra_users[i] = inst->user_count() > 1 ? inst->user_count() - 1 : 0;
    total_bytes[i] = m.defined_bytes[i];
    for (int32_t p : m.Predecessors(i)) {
      // Sums over a DAG grow exponentially with its depth: saturate.
      extra_users[i] = SaturatingAdd(extra_users[i], extra_users[p]);
      total_bytes[i] = SaturatingAdd(total_bytes[i], total_bytes[p]);
    }
  }
  std::vector<std::vector<int32_t>> edges(n);
  for (size_t i = 0; i < n; ++i) {
    edges[i] = m.Predecessors(static_cast<int32_t>(i));
    std::sort(edges[i].begin(), edges[i].end(), [&](int32_t a, int32_t b) {
      if (extra_users[a] != extra_users[b]) return extra_users[a] > extra_users[b];
      if (total_bytes[a] != total_bytes[b]) return total_bytes[a] > total_bytes[b];
      return m.instructions[a]->name() < m.instructions[b]->name();
    });
  }
  HloSchedule::Sequence order;
  order.reserve(n);
  std::vector<uint8_t> state(n, 0);  // 0 new, 1 on the stack, 2 done
  std::vector<std::pair<int32_t, size_t>> stack;
  auto visit = [&](int32_t start) {
    if (state[start] != 0) return;
    stack.push_back({start, 0});
    state[start] = 1;
    while (!stack.empty()) {
      auto& [i, next] = stack.back();
      if (next == edges[i].size()) {
        state[i] = 2;
        order.push_back(m.instructions[i]);
        stack.pop_back();
        continue;
      }
      const int32_t p = edges[i][next++];
      if (state[p] == 0) {
        state[p] = 1;
        stack.push_back({p, 0});
      }
    }
  };
  visit(m.index.at(c.root_instruction()));
  for (size_t i = 0; i < n; ++i) visit(static_cast<int32_t>(i));
  return order;
}

// XLA's list scheduler: of the ready instructions, the one that frees the
// most bytes net of what it allocates (scalars first, as they are cheap to
// keep in registers), ties to the one with more users, then text order.
HloSchedule::Sequence ListSchedule(const LocalMemory& m) {
  const int32_t n = static_cast<int32_t>(m.instructions.size());
  std::vector<int32_t> pending(n, 0);
  std::vector<std::vector<int32_t>> successors(n);
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t p : m.Predecessors(i)) {
      ++pending[i];
      successors[p].push_back(i);
    }
  }
  absl::flat_hash_map<int32_t, int32_t> unscheduled_readers;
  for (const auto& [b, readers] : m.readers) {
    unscheduled_readers[b] = static_cast<int32_t>(readers.size());
  }
  std::vector<bool> scheduled(n, false);
  using Key = std::tuple<int64_t, int64_t, int32_t>;  // -priority, -users, index
  auto key_of = [&](int32_t i) -> Key {
    const HloInstruction* inst = m.instructions[i];
    const bool scalar = inst->shape().IsArray() && inst->shape().ElementCount() <= 1;
    int64_t freed = 0;
    for (int32_t b : m.reads[i]) {
      if (unscheduled_readers.at(b) == 1) freed = SaturatingAdd(freed, m.BytesOf(b));
    }
    const int64_t priority = scalar ? INT64_MAX / 2 : freed - m.defined_bytes[i];
    return {-priority, -inst->user_count(), i};
  };
  std::set<Key> ready;
  std::vector<Key> key(n);
  auto make_ready = [&](int32_t i) {
    key[i] = key_of(i);
    ready.insert(key[i]);
  };
  for (int32_t i = 0; i < n; ++i) {
    if (pending[i] == 0) make_ready(i);
  }
  HloSchedule::Sequence order;
  order.reserve(n);
  while (!ready.empty()) {
    const int32_t i = std::get<2>(*ready.begin());
    ready.erase(ready.begin());
    scheduled[i] = true;
    order.push_back(m.instructions[i]);
    for (int32_t b : m.reads[i]) {
      if (--unscheduled_readers.at(b) != 1) continue;
      // The last reader now frees the buffer: its priority went up.
      for (int32_t r : m.readers.at(b)) {
        if (scheduled[r] || pending[r] != 0) continue;
        ready.erase(key[r]);
        make_ready(r);
      }
    }
    for (int32_t s : successors[i]) {
      if (--pending[s] == 0) make_ready(s);
    }
  }
  return order;
}

}  // namespace

HloSchedule::Sequence ScheduleComputation(const AliasAnalysis& aliases,
                                          const HloComputation& computation,
                                          MemoryScheduler scheduler) {
  if (scheduler == MemoryScheduler::kPostOrder) return PostOrderSchedule(computation);
  LocalMemory memory(aliases, computation);
  if (scheduler == MemoryScheduler::kDfs) return DfsSchedule(memory, computation);
  return ListSchedule(memory);
}

absl::StatusOr<MemorySchedule> ScheduleForMemory(const AliasAnalysis& aliases,
                                                 MemoryScheduler scheduler) {
  const HloModule& module = aliases.dataflow().module();
  auto run = [&](MemoryScheduler base) -> absl::StatusOr<MemorySchedule> {
    MemorySchedule schedule;
    schedule.scheduler = base;
    // Computations the dataflow does not sequence (reducers) keep their
    // order.
    schedule.schedule = CurrentSchedule(module);
    for (const HloComputation* c : aliases.dataflow().sequential_computations()) {
      schedule.schedule.set_sequence(*c, ScheduleComputation(aliases, *c, base));
    }
    XLITE_ASSIGN_OR_RETURN(std::unique_ptr<Liveness> liveness,
                           Liveness::Run(aliases, schedule.schedule));
    schedule.peak_bytes = liveness->peak_bytes();
    return schedule;
  };
  if (scheduler != MemoryScheduler::kBest) return run(scheduler);
  std::optional<MemorySchedule> best;
  for (MemoryScheduler base : kBaseMemorySchedulers) {
    XLITE_ASSIGN_OR_RETURN(MemorySchedule schedule, run(base));
    if (!best.has_value() || schedule.peak_bytes < best->peak_bytes) best = std::move(schedule);
  }
  return std::move(*best);
}

}  // namespace xlite
