#include "xlite/passes/flatten_call_graph.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xlite/analysis/call_graph.h"
#include "xlite/passes/instruction_maker.h"

namespace xlite {
namespace {

// Control-flow sites per callee: the call graph's, plus those of the clones
// this pass makes (a clone calls what its original calls).
using SiteMap = absl::flat_hash_map<const HloComputation*, std::vector<CallSite>>;

void AddControlFlowSites(HloInstruction* inst, SiteMap& sites) {
  if (CallKindOf(inst->opcode()) != CallKind::kControlFlow) return;
  const auto& called = inst->called_computations();
  for (size_t i = 0; i < called.size(); ++i) {
    sites[called[i]].push_back({inst, static_cast<int64_t>(i), CallKind::kControlFlow});
  }
}

std::string UniqueComputationName(const HloModule& module, const std::string& base) {
  for (int64_t n = 1;; ++n) {
    std::string name = absl::StrCat(base, ".clone", n == 1 ? "" : absl::StrCat(".", n));
    if (module.GetComputation(name) == nullptr) return name;
  }
}

// A copy of `original` placed before `user`'s computation; the sites of
// the copy's own calls are added to `sites`.
HloComputation* CloneComputation(InstructionMaker& make, HloModule& module,
                                 const HloComputation& original, const HloComputation& user,
                                 SiteMap& sites) {
  auto fresh = std::make_unique<HloComputation>(UniqueComputationName(module, original.name()));
  fresh->set_execution_thread(original.execution_thread());
  HloComputation* copy = module.AddComputationBefore(std::move(fresh), &user);
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  for (const auto& inst : original.instructions()) {
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : inst->operands()) operands.push_back(map.at(operand));
    HloInstruction* clone = make.Clone(*copy, *inst, operands);
    map[inst.get()] = clone;
    AddControlFlowSites(clone, sites);
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
  const CallGraph graph(module);
  SiteMap control_sites;
  for (const auto& c : module.computations()) {
    for (const CallSite& site : graph.CallSitesOf(*c)) {
      if (site.kind == CallKind::kControlFlow) control_sites[c.get()].push_back(site);
    }
  }
  // Callers before callees (the reverse of the module order), so that when a
  // computation is reached every caller of it, clones included, exists.
  std::vector<HloComputation*> order;
  for (const auto& c : module.computations()) order.push_back(c.get());
  InstructionMaker make(module);
  bool changed = false;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloComputation* callee = *it;
    auto found = control_sites.find(callee);
    if (found == control_sites.end()) continue;
    // Copied: cloning a caller adds sites to other entries of the map.
    const std::vector<CallSite> sites = found->second;
    // Only a computation without embedded users keeps its first site.
    bool embedded = graph.IsCalledAs(*callee, CallKind::kEmbedded) ||
                    graph.IsCalledAs(*callee, CallKind::kFusion) ||
                    graph.IsCalledAs(*callee, CallKind::kAsync);
    const size_t keep = embedded ? 0 : 1;
    for (size_t i = keep; i < sites.size(); ++i) {
      HloComputation* copy =
          CloneComputation(make, module, *callee, *sites[i].caller(), control_sites);
      sites[i].instruction->set_called_computation(sites[i].index, copy);
      changed = true;
    }
  }
  make.Finish();
  return changed;
}

}  // namespace xlite
