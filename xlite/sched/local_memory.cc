#include "xlite/sched/local_memory.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "xlite/base/saturating.h"
#include "xlite/ir/computation.h"

namespace xlite {

LocalMemory::LocalMemory(const AliasAnalysis& aliases, const HloComputation& c) {
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
  std::vector<std::vector<int32_t>> defines(instructions.size());  // local buffer ids
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
      if (local(b)) {
        bytes[b] = aliases.buffer(b).bytes;
        defines[i].push_back(b);
      }
    }
  }
  absl::flat_hash_map<int32_t, int32_t> slot_of;
  auto slots = [&](const std::vector<int32_t>& buffers) {
    std::vector<int32_t> out;
    out.reserve(buffers.size());
    for (int32_t b : buffers) {
      auto [it, inserted] = slot_of.try_emplace(b, static_cast<int32_t>(slot_bytes.size()));
      if (inserted) slot_bytes.push_back(BytesOf(b));
      out.push_back(it->second);
    }
    return out;
  };
  read_slots.reserve(instructions.size());
  define_slots.reserve(instructions.size());
  for (size_t i = 0; i < instructions.size(); ++i) {
    read_slots.push_back(slots(reads[i]));
    define_slots.push_back(slots(defines[i]));
  }
}

std::vector<int32_t> LocalMemory::Predecessors(int32_t i) const {
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

BottomUpMemory::Effect BottomUpMemory::EffectOf(int32_t i) const {
  Effect effect;
  for (int32_t slot : memory_.read_slots[i]) {
    if (!open_[slot]) effect.opened = SaturatingAdd(effect.opened, memory_.slot_bytes[slot]);
  }
  for (int32_t slot : memory_.define_slots[i]) {
    int64_t& into = open_[slot] ? effect.closed : effect.dead_written;
    into = SaturatingAdd(into, memory_.slot_bytes[slot]);
  }
  return effect;
}

int64_t BottomUpMemory::BytesWhileRunning(int32_t i) const {
  const Effect e = EffectOf(i);
  return SaturatingAdd(SaturatingAdd(live_, e.opened), e.dead_written);
}

int64_t BottomUpMemory::Change(int32_t i) const {
  const Effect e = EffectOf(i);
  return e.opened - e.closed;
}

void BottomUpMemory::Place(int32_t i) {
  const Effect e = EffectOf(i);
  peak_ = std::max(peak_, SaturatingAdd(SaturatingAdd(live_, e.opened), e.dead_written));
  live_ = SaturatingAdd(live_, e.opened) - e.closed;
  for (int32_t slot : memory_.read_slots[i]) open_[slot] = true;
  for (int32_t slot : memory_.define_slots[i]) open_[slot] = false;
}

bool MemoryBudget::Fits(int64_t bytes_while_running, int32_t i) const {
  return SaturatingAdd(bytes_while_running, other_bytes[i]) <= limit;
}

bool MemoryBudget::Exceeded(const BottomUpMemory& tracker) const {
  return SaturatingAdd(tracker.live(), least_other_bytes) > limit;
}

MemoryBudget BudgetOf(const LocalMemory& memory, absl::Span<HloInstruction* const> base_order,
                      const Liveness& base, int64_t limit) {
  MemoryBudget budget;
  budget.limit = limit;
  budget.other_bytes.assign(memory.instructions.size(), 0);
  const std::vector<int64_t>& module_bytes = base.bytes_at_step();
  BottomUpMemory tracker(memory);
  for (size_t k = base_order.size(); k-- > 0;) {
    const int32_t i = memory.index.at(base_order[k]);
    // The instruction's steps: its callees' timelines, then its own.
    const int64_t last = base.StepOf(*base_order[k]);
    const int64_t first = k == 0 ? last : base.StepOf(*base_order[k - 1]) + 1;
    int64_t most = 0;
    for (int64_t step = first; step <= last; ++step) most = std::max(most, module_bytes[step]);
    budget.other_bytes[i] = std::max<int64_t>(0, most - tracker.BytesWhileRunning(i));
    tracker.Place(i);
  }
  budget.least_other_bytes =
      budget.other_bytes.empty()
          ? 0
          : *std::min_element(budget.other_bytes.begin(), budget.other_bytes.end());
  return budget;
}

}  // namespace xlite
