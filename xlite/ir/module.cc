#include "xlite/ir/module.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"

namespace xlite {

HloModule::HloModule(std::string name) : name_(std::move(name)) {}

HloComputation* HloModule::AddComputation(std::unique_ptr<HloComputation> c, bool is_entry) {
  HloComputation* raw = c.get();
  raw->set_parent(this);
  for (const auto& inst : raw->instructions()) {
    if (inst->unique_id() < 0) inst->set_unique_id(NextUniqueId());
  }
  computations_.push_back(std::move(c));
  if (is_entry) entry_ = raw;
  return raw;
}

HloComputation* HloModule::AddComputationBefore(std::unique_ptr<HloComputation> c,
                                                const HloComputation* user) {
  HloComputation* raw = AddComputation(std::move(c), /*is_entry=*/false);
  auto at = std::find_if(computations_.begin(), computations_.end(),
                         [&](const auto& p) { return p.get() == user; });
  if (at != computations_.end()) std::rotate(at, computations_.end() - 1, computations_.end());
  return raw;
}

void HloModule::ReorderComputations(absl::Span<HloComputation* const> order) {
  XLITE_CHECK(order.size() == computations_.size());
  absl::flat_hash_map<const HloComputation*, std::unique_ptr<HloComputation>> owned;
  for (auto& c : computations_) owned.emplace(c.get(), std::move(c));
  for (size_t i = 0; i < order.size(); ++i) {
    auto it = owned.find(order[i]);
    XLITE_CHECK(it != owned.end() && it->second != nullptr);
    computations_[i] = std::move(it->second);
  }
}

int64_t HloModule::RemoveComputationsIf(const std::function<bool(const HloComputation*)>& is_dead) {
  size_t before = computations_.size();
  std::erase_if(computations_, [&](const std::unique_ptr<HloComputation>& c) {
    bool dead = c.get() != entry_ && is_dead(c.get());
    if (dead && schedule_.has_value()) schedule_->RemoveComputation(*c);
    return dead;
  });
  return static_cast<int64_t>(before - computations_.size());
}

std::unique_ptr<HloModule> HloModule::Clone() const {
  auto copy = std::make_unique<HloModule>(name_);
  copy->config_ = config_;
  copy->stack_frames_ = stack_frames_;
  copy->next_id_ = next_id_;
  // Every computation first, so calls resolve whatever the order.
  std::vector<std::unique_ptr<HloComputation>> copies;
  absl::flat_hash_map<const HloComputation*, HloComputation*> computations;
  for (const auto& original : computations_) {
    copies.push_back(std::make_unique<HloComputation>(original->name()));
    computations[original.get()] = copies.back().get();
  }
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> instructions;
  auto at = [&](const HloInstruction* inst) { return instructions.at(inst); };
  for (size_t i = 0; i < computations_.size(); ++i) {
    const HloComputation& original = *computations_[i];
    HloComputation& c = *copies[i];
    c.set_execution_thread(original.execution_thread());
    c.set_is_fusion_computation(original.is_fusion_computation());
    c.ReserveInstructions(original.instruction_count());
    for (const auto& from : original.instructions()) {
      auto inst = std::make_unique<HloInstruction>(from->opcode(), from->shape());
      inst->set_name(from->name());
      inst->set_unique_id(from->unique_id());
      if (from->has_attrs()) inst->set_attrs(from->raw_attrs()->Clone());
      inst->CopySharedAttributesFrom(*from);
      for (const HloComputation* called : from->called_computations()) {
        inst->AppendCalledComputation(computations.at(called));
      }
      instructions[from.get()] = c.AddInstruction(std::move(inst));
    }
    // Edges after all instructions exist: nothing assumes an order here.
    for (const auto& from : original.instructions()) {
      HloInstruction* inst = at(from.get());
      for (const HloInstruction* op : from->operands()) inst->AppendOperand(at(op));
      // Predecessor lists keep their order (the text prints them).
      for (const HloInstruction* pred : from->control_predecessors()) {
        at(pred)->AddControlDependencyTo(inst);
      }
    }
    if (original.root_instruction() != nullptr) {
      c.set_root_instruction(at(original.root_instruction()));
    }
  }
  for (size_t i = 0; i < copies.size(); ++i) {
    copy->AddComputation(std::move(copies[i]), computations_[i].get() == entry_);
  }
  if (schedule_.has_value()) {
    HloSchedule schedule;
    for (const auto& original : computations_) {
      if (!schedule_->has_sequence(*original)) continue;
      HloSchedule::Sequence sequence;
      for (const HloInstruction* inst : schedule_->sequence(*original)) {
        sequence.push_back(at(inst));
      }
      schedule.set_sequence(*computations.at(original.get()), std::move(sequence));
    }
    copy->set_schedule(std::move(schedule));
  }
  return copy;
}

const HloSchedule& HloModule::schedule() const {
  XLITE_CHECK(schedule_.has_value());
  return *schedule_;
}

HloSchedule& HloModule::mutable_schedule() {
  XLITE_CHECK(schedule_.has_value());
  return *schedule_;
}

void HloModule::UpdateSchedule() {
  if (schedule_.has_value()) schedule_->Update(*this);
}

HloComputation* HloModule::GetComputation(std::string_view name) const {
  for (const auto& c : computations_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

std::vector<Shape> HloModule::EntryParameterShapes() const {
  if (config_.entry_parameter_layouts.has_value()) return *config_.entry_parameter_layouts;
  std::vector<Shape> shapes;
  if (entry_ == nullptr) return shapes;
  for (const HloInstruction* p : entry_->parameter_instructions()) {
    shapes.push_back(p != nullptr ? p->shape() : Shape());
  }
  return shapes;
}

Shape HloModule::EntryResultShape() const {
  if (config_.entry_result_layout.has_value()) return *config_.entry_result_layout;
  if (entry_ == nullptr || entry_->root_instruction() == nullptr) return Shape();
  return entry_->root_instruction()->shape();
}

}  // namespace xlite
