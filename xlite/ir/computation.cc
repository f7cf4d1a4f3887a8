#include "xlite/ir/computation.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "xlite/ir/module.h"

namespace xlite {

HloComputation::HloComputation(std::string name) : name_(std::move(name)) {}

bool HloComputation::is_entry() const {
  return parent_ != nullptr && parent_->entry_computation() == this;
}

HloInstruction* HloComputation::AddInstruction(std::unique_ptr<HloInstruction> inst) {
  HloInstruction* raw = inst.get();
  raw->set_parent(this);
  if (raw->unique_id() < 0 && parent_ != nullptr) raw->set_unique_id(parent_->NextUniqueId());
  if (raw->opcode() == HloOpcode::kParameter && raw->has_attrs()) {
    int64_t number = raw->parameter_number();
    if (number >= 0) {
      if (number >= num_parameters()) parameters_.resize(number + 1, nullptr);
      parameters_[number] = raw;
    }
  }
  instructions_.push_back(std::move(inst));
  return raw;
}

void HloComputation::RemoveInstruction(HloInstruction* inst) {
  XLITE_CHECK(inst->user_count() == 0 && inst != root_);
  if (parent_ != nullptr && parent_->is_scheduled()) {
    parent_->mutable_schedule().RemoveInstructions(*this, {inst});
  }
  inst->DetachFromOperands();
  inst->DropAllControlDeps();
  for (auto& p : parameters_) {
    if (p == inst) p = nullptr;
  }
  while (!parameters_.empty() && parameters_.back() == nullptr) parameters_.pop_back();
  auto it = std::find_if(instructions_.begin(), instructions_.end(),
                         [&](const auto& p) { return p.get() == inst; });
  XLITE_CHECK(it != instructions_.end());
  instructions_.erase(it);
}

void HloComputation::RemoveSelected(const std::vector<HloInstruction*>& dead) {
  if (dead.empty()) return;
  absl::flat_hash_set<const HloInstruction*> dead_set(dead.begin(), dead.end());
  for (HloInstruction* inst : dead) {
    XLITE_CHECK(inst != root_);
    for (HloInstruction* user : inst->users()) XLITE_CHECK(dead_set.contains(user));
  }
  if (parent_ != nullptr && parent_->is_scheduled()) {
    parent_->mutable_schedule().RemoveInstructions(*this, dead);
  }
  for (HloInstruction* inst : dead) {
    inst->DetachFromOperands();
    inst->DropAllControlDeps();
  }
  for (auto& p : parameters_) {
    if (dead_set.contains(p)) p = nullptr;
  }
  while (!parameters_.empty() && parameters_.back() == nullptr) parameters_.pop_back();
  std::erase_if(instructions_, [&](const auto& p) { return dead_set.contains(p.get()); });
}

void HloComputation::SortInstructionsTopologically() {
  std::vector<HloInstruction*> order = PostOrder({});
  absl::flat_hash_map<const HloInstruction*, size_t> position;
  position.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  std::sort(instructions_.begin(), instructions_.end(), [&](const auto& a, const auto& b) {
    return position.at(a.get()) < position.at(b.get());
  });
}

HloInstruction* HloComputation::parameter_instruction(int64_t i) const {
  if (i < 0 || i >= num_parameters()) return nullptr;
  return parameters_[i];
}

std::vector<HloInstruction*> HloComputation::MakeInstructionPostOrder() const {
  // Start from the sinks, as XLA does, so that each chain of operands stays
  // together.
  std::vector<HloInstruction*> sinks;
  for (const auto& inst : instructions_) {
    if (inst->user_count() == 0 && inst->control_successors().empty()) sinks.push_back(inst.get());
  }
  return PostOrder(sinks);
}

std::vector<HloInstruction*> HloComputation::TopologicalOrderKeeping(
    absl::Span<HloInstruction* const> preferred) const {
  return PostOrder(preferred);
}

std::vector<HloInstruction*> HloComputation::PostOrder(
    absl::Span<HloInstruction* const> starts) const {
  // Iterative DFS (dumps nest tens of thousands deep): each stack entry is an
  // instruction and the index of the next edge to follow, operands first,
  // then control predecessors. Edges into instructions still on the stack
  // (cycles in malformed input) are skipped, so this always terminates.
  enum class State : uint8_t { kNew, kOnStack, kDone };
  absl::flat_hash_map<const HloInstruction*, State> state;
  state.reserve(instructions_.size());
  for (const auto& inst : instructions_) state[inst.get()] = State::kNew;

  std::vector<HloInstruction*> order;
  order.reserve(instructions_.size());
  std::vector<std::pair<HloInstruction*, size_t>> stack;
  auto visit_from = [&](HloInstruction* start) {
    auto it = state.find(start);
    if (it == state.end() || it->second != State::kNew) return;
    stack.emplace_back(start, 0);
    it->second = State::kOnStack;
    while (!stack.empty()) {
      auto& [inst, next] = stack.back();
      size_t num_operands = inst->operands().size();
      size_t num_edges = num_operands + inst->control_predecessors().size();
      if (next == num_edges) {
        state[inst] = State::kDone;
        order.push_back(inst);
        stack.pop_back();
        continue;
      }
      HloInstruction* target = next < num_operands
                                   ? inst->operand(static_cast<int64_t>(next))
                                   : inst->control_predecessors()[next - num_operands];
      ++next;
      auto it = state.find(target);
      // Instructions of other computations are not ours to order.
      if (it == state.end() || it->second != State::kNew) continue;
      it->second = State::kOnStack;
      stack.emplace_back(target, 0);
    }
  };
  // The sweep in definition order picks up what the starts do not reach
  // (only cycles, when the starts are the sinks).
  for (HloInstruction* start : starts) visit_from(start);
  for (const auto& inst : instructions_) visit_from(inst.get());
  return order;
}

}  // namespace xlite
