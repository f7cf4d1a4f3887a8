#include "xlite/ir/schedule.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "xlite/ir/module.h"

namespace xlite {

HloSchedule HloSchedule::FromDefinitionOrder(const HloModule& module) {
  HloSchedule schedule;
  for (const auto& c : module.computations()) {
    if (!IsScheduledComputation(*c)) continue;
    Sequence sequence;
    sequence.reserve(c->instructions().size());
    for (const auto& inst : c->instructions()) sequence.push_back(inst.get());
    schedule.set_sequence(*c, std::move(sequence));
  }
  return schedule;
}

bool HloSchedule::IsScheduledComputation(const HloComputation& computation) {
  return !computation.is_fusion_computation();
}

bool HloSchedule::has_sequence(const HloComputation& computation) const {
  return sequences_.contains(&computation);
}

absl::Span<HloInstruction* const> HloSchedule::sequence(const HloComputation& computation) const {
  auto it = sequences_.find(&computation);
  if (it == sequences_.end()) return {};
  return it->second;
}

void HloSchedule::set_sequence(const HloComputation& computation, Sequence sequence) {
  sequences_[&computation] = std::move(sequence);
}

void HloSchedule::RemoveInstructions(const HloComputation& computation,
                                     absl::Span<HloInstruction* const> dead) {
  auto it = sequences_.find(&computation);
  if (it == sequences_.end() || dead.empty()) return;
  if (dead.size() == 1) {
    std::erase(it->second, dead[0]);
    return;
  }
  absl::flat_hash_set<const HloInstruction*> dead_set(dead.begin(), dead.end());
  std::erase_if(it->second, [&](const HloInstruction* i) { return dead_set.contains(i); });
}

void HloSchedule::RemoveComputation(const HloComputation& computation) {
  sequences_.erase(&computation);
}

void HloSchedule::Update(const HloModule& module) {
  for (const auto& c : module.computations()) {
    if (!IsScheduledComputation(*c)) {
      sequences_.erase(c.get());
      continue;
    }
    auto it = sequences_.find(c.get());
    Sequence updated =
        c->TopologicalOrderKeeping(it == sequences_.end() ? absl::Span<HloInstruction* const>()
                                                          : absl::MakeConstSpan(it->second));
    sequences_[c.get()] = std::move(updated);
  }
}

std::vector<HloInstruction*> TextOrder(const HloComputation& computation) {
  const HloModule* module = computation.parent();
  if (module != nullptr && module->is_scheduled() && module->schedule().has_sequence(computation)) {
    // The sequence itself when it is valid and complete; a stale one (a
    // pass run outside a pipeline) still lists every instruction once.
    return computation.TopologicalOrderKeeping(module->schedule().sequence(computation));
  }
  std::vector<HloInstruction*> order;
  order.reserve(computation.instructions().size());
  for (const auto& inst : computation.instructions()) order.push_back(inst.get());
  return order;
}

}  // namespace xlite
