#include "xlite/eval/custom_call_registry.h"

#include <algorithm>
#include <set>

#include "xlite/ir/computation.h"

namespace xlite::eval {

const CustomCallRegistry& CustomCallRegistry::BuiltIn() {
  static const CustomCallRegistry* registry = [] {
    auto* r = new CustomCallRegistry();
    RegisterBuiltInCustomCalls(*r);
    return r;
  }();
  return *registry;
}

void CustomCallRegistry::Register(std::string target, CustomCallHandler handler) {
  handlers_[std::move(target)] = std::move(handler);
}

const CustomCallHandler* CustomCallRegistry::Find(std::string_view target) const {
  auto it = handlers_.find(std::string(target));
  return it == handlers_.end() ? nullptr : &it->second;
}

std::vector<std::string> CustomCallRegistry::Targets() const {
  std::vector<std::string> names;
  for (const auto& [name, handler] : handlers_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> CustomCallRegistry::UnknownTargets(const HloModule& module) const {
  std::set<std::string> unknown;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() != HloOpcode::kCustomCall) continue;
      const std::string& target = inst->attrs<CustomCallAttrs>().target;
      if (Find(target) == nullptr) unknown.insert(target);
    }
  }
  return {unknown.begin(), unknown.end()};
}

}  // namespace xlite::eval
