#include "xlite/ir/module.h"

#include <algorithm>

namespace xlite {

HloModule::HloModule(std::string name) : name_(std::move(name)) {}

HloComputation* HloModule::AddComputation(std::unique_ptr<HloComputation> c,
                                          bool is_entry) {
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

int64_t HloModule::RemoveComputationsIf(
    const std::function<bool(const HloComputation*)>& is_dead) {
  size_t before = computations_.size();
  std::erase_if(computations_, [&](const std::unique_ptr<HloComputation>& c) {
    bool dead = c.get() != entry_ && is_dead(c.get());
    if (dead && schedule_.has_value()) schedule_->RemoveComputation(*c);
    return dead;
  });
  return static_cast<int64_t>(before - computations_.size());
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
