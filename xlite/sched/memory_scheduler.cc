#include "xlite/sched/memory_scheduler.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "xlite/base/saturating.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"

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

// What the heuristics see of one computation: per instruction (text order)
// the bytes it allocates and the local buffers it reads. A buffer is local
// when it is a temporary that neither enters through a parameter nor leaves
// through the root: only those are allocated and freed inside.
struct LocalMemory {
  std::vector<HloInstruction*> instructions;
  absl::flat_hash_map<const HloInstruction*, int32_t> index;  // looked up only
  std::vector<int64_t> defined_bytes;
  std::vector<std::vector<int32_t>> reads;                     // local buffer ids
  absl::flat_hash_map<int32_t, int64_t> bytes;                 // local buffer -> size
  absl::flat_hash_map<int32_t, std::vector<int32_t>> readers;  // local buffer -> instructions

  LocalMemory(const AliasAnalysis& aliases, const HloComputation& c) {
    for (const auto& inst : c.instructions()) {
      index[inst.get()] = static_cast<int32_t>(instructions.size());
      instructions.push_back(inst.get());
    }
    absl::flat_hash_set<int32_t> external;
    for (const HloInstruction* p : c.parameter_instructions()) {
      if (p == nullptr) continue;
      for (int32_t b : aliases.BuffersAt(*p)) external.insert(b);
    }
    for (int32_t b : aliases.BuffersAt(*c.root_instruction())) external.insert(b);
    auto local = [&](int32_t b) {
      return aliases.buffer(b).kind == BufferKind::kTemporary && !external.contains(b);
    };
    const DataflowAnalysis& df = aliases.dataflow();
    defined_bytes.assign(instructions.size(), 0);
    reads.assign(instructions.size(), {});
    for (size_t i = 0; i < instructions.size(); ++i) {
      const HloInstruction* inst = instructions[i];
      absl::flat_hash_set<int32_t> read;
      for (const HloInstruction* operand : inst->operands()) {
        for (int32_t b : aliases.BuffersAt(*operand)) {
          if (local(b) && read.insert(b).second) {
            reads[i].push_back(b);
            readers[b].push_back(static_cast<int32_t>(i));
          }
        }
      }
      std::sort(reads[i].begin(), reads[i].end());
      absl::flat_hash_set<int32_t> defined;
      for (int32_t v : df.AllValuesAt(*inst)) {
        const int32_t b = aliases.BufferOfValue(v);
        if (df.value(v).instruction != inst || read.contains(b) || !defined.insert(b).second) {
          continue;
        }
        if (aliases.buffer(b).kind != BufferKind::kEntryParameter) {
          defined_bytes[i] = SaturatingAdd(defined_bytes[i], aliases.buffer(b).bytes);
        }
        if (local(b)) bytes[b] = aliases.buffer(b).bytes;
      }
    }
  }

  // Operands and control predecessors, each once, in order.
  std::vector<int32_t> Predecessors(int32_t i) const {
    std::vector<int32_t> preds;
    auto add = [&](const HloInstruction* p) {
      auto it = index.find(p);
      if (it != index.end() && std::find(preds.begin(), preds.end(), it->second) == preds.end()) {
        preds.push_back(it->second);
      }
    };
    for (const HloInstruction* operand : instructions[i]->operands()) add(operand);
    for (const HloInstruction* pred : instructions[i]->control_predecessors()) add(pred);
    return preds;
  }
};

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
      if (unscheduled_readers.at(b) == 1)
        freed = SaturatingAdd(freed, m.bytes.contains(b) ? m.bytes.at(b) : 0);
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
