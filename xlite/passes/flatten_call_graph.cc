#include "xlite/passes/flatten_call_graph.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xlite/passes/instruction_maker.h"

namespace xlite {
namespace {

struct CallSite {
  HloInstruction* caller;
  int64_t index;  // into caller->called_computations()
};

bool IsControlFlow(const HloInstruction& i) {
  return i.opcode() == HloOpcode::kCall || i.opcode() == HloOpcode::kWhile ||
         i.opcode() == HloOpcode::kConditional;
}

struct CallGraph {
  absl::flat_hash_map<const HloComputation*, std::vector<CallSite>> control_sites;
  absl::flat_hash_map<const HloComputation*, bool> embedded;

  void AddCaller(HloInstruction* inst) {
    const auto& called = inst->called_computations();
    for (size_t i = 0; i < called.size(); ++i) {
      if (IsControlFlow(*inst)) {
        control_sites[called[i]].push_back({inst, static_cast<int64_t>(i)});
      } else {
        embedded[called[i]] = true;
      }
    }
  }
};

std::string UniqueComputationName(const HloModule& module, const std::string& base) {
  for (int64_t n = 1;; ++n) {
    std::string name = absl::StrCat(base, ".clone", n == 1 ? "" : absl::StrCat(".", n));
    if (module.GetComputation(name) == nullptr) return name;
  }
}

// A copy of `original` placed before `user`'s computation; the sites of
// the copy's own calls are added to `graph`.
HloComputation* CloneComputation(InstructionMaker& make, HloModule& module,
                                 const HloComputation& original, const HloComputation& user,
                                 CallGraph& graph) {
  auto fresh = std::make_unique<HloComputation>(UniqueComputationName(module, original.name()));
  fresh->set_execution_thread(original.execution_thread());
  HloComputation* copy = module.AddComputationBefore(std::move(fresh), &user);
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  for (const auto& inst : original.instructions()) {
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : inst->operands()) operands.push_back(map.at(operand));
    HloInstruction* clone = make.Clone(*copy, *inst, operands);
    map[inst.get()] = clone;
    graph.AddCaller(clone);
  }
  for (const auto& inst : original.instructions()) {
    for (const HloInstruction* successor : inst->control_successors()) {
      map.at(inst.get())->AddControlDependencyTo(map.at(successor));
    }
  }
  copy->set_root_instruction(map.at(original.root_instruction()));
  return copy;
}

}  // namespace

absl::StatusOr<bool> FlattenCallGraphPass::Run(HloModule& module) {
  CallGraph graph;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) graph.AddCaller(inst.get());
  }
  // Callers before callees (the reverse of the module order), so that when a
  // computation is reached every caller of it, clones included, exists.
  std::vector<HloComputation*> order;
  for (const auto& c : module.computations()) order.push_back(c.get());
  InstructionMaker make(module);
  bool changed = false;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloComputation* callee = *it;
    auto found = graph.control_sites.find(callee);
    if (found == graph.control_sites.end()) continue;
    // Copied: cloning a caller adds sites to other entries of the map.
    const std::vector<CallSite> sites = found->second;
    // Only a computation without embedded users keeps its first site.
    const size_t keep = graph.embedded.contains(callee) ? 0 : 1;
    for (size_t i = keep; i < sites.size(); ++i) {
      HloComputation* copy =
          CloneComputation(make, module, *callee, *sites[i].caller->parent(), graph);
      sites[i].caller->set_called_computation(sites[i].index, copy);
      changed = true;
    }
  }
  make.Finish();
  return changed;
}

}  // namespace xlite
