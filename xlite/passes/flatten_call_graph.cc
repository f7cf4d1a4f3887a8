#include "xlite/passes/flatten_call_graph.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xlite/analysis/call_graph.h"
#include "xlite/base/saturating.h"
#include "xlite/base/status.h"
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

// Fresh `<base>.clone`, `<base>.clone.2`, ... names. The module's names are
// hashed once and each base remembers its last number: nested shared
// computations make thousands of clones of one base, and probing the module
// (a scan) for each number was cubic.
class CloneNames {
 public:
  explicit CloneNames(const HloModule& module) {
    for (const auto& c : module.computations()) taken_.insert(c->name());
  }
  std::string Next(const std::string& base) {
    int64_t& n = last_[base];
    for (;;) {
      ++n;
      std::string name = absl::StrCat(base, ".clone", n == 1 ? "" : absl::StrCat(".", n));
      if (taken_.insert(name).second) return name;
    }
  }

 private:
  absl::flat_hash_set<std::string> taken_;
  absl::flat_hash_map<std::string, int64_t> last_;
};

// Whether `computation` keeps one control-flow site: only when no embedded
// user needs the original as it is.
bool KeepsFirstSite(const CallGraph& graph, const HloComputation& computation) {
  return !graph.IsCalledAs(computation, CallKind::kEmbedded) &&
         !graph.IsCalledAs(computation, CallKind::kFusion) &&
         !graph.IsCalledAs(computation, CallKind::kAsync);
}

// The instructions flattening will copy, visiting `order` callers first as
// Run does: a computation ends with one copy per control-flow site in each
// copy of its caller (and the original, for embedded users). Saturating: a computation shared by
// nested control flow doubles with each level.
int64_t CopiedInstructions(const CallGraph& graph, absl::Span<HloComputation* const> order) {
  absl::flat_hash_map<const HloComputation*, int64_t> copies;
  int64_t copied = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int64_t sites = 0;
    for (const CallSite& site : graph.CallSitesOf(**it)) {
      auto caller = copies.find(site.caller());
      if (site.kind == CallKind::kControlFlow) {
        sites = SaturatingAdd(sites, caller == copies.end() ? 1 : caller->second);
      }
    }
    const int64_t clones = sites - (sites > 0 && KeepsFirstSite(graph, **it) ? 1 : 0);
    copies[*it] = SaturatingAdd(clones, 1);  // the clones and the original
    copied = SaturatingAdd(copied, SaturatingMultiply(clones, (*it)->instruction_count()));
  }
  return copied;
}

// A copy of `original` added to the module (Run places it); the sites of
// the copy's own calls are added to `sites`.
HloComputation* CloneComputation(InstructionMaker& make, HloModule& module, CloneNames& names,
                                 const HloComputation& original, SiteMap& sites) {
  auto fresh = std::make_unique<HloComputation>(names.Next(original.name()));
  fresh->set_execution_thread(original.execution_thread());
  HloComputation* copy = module.AddComputation(std::move(fresh), /*is_entry=*/false);
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

// The module order with each clone just before the computation using it,
// after the clones placed there earlier (as AddComputationBefore one at a
// time would leave it, without shifting the list per clone).
std::vector<HloComputation*> PlaceClones(
    absl::Span<HloComputation* const> originals,
    const absl::flat_hash_map<const HloComputation*, std::vector<HloComputation*>>& before) {
  std::vector<HloComputation*> order;
  std::vector<std::pair<HloComputation*, size_t>> stack;
  for (HloComputation* original : originals) {
    stack.emplace_back(original, 0);
    while (!stack.empty()) {
      auto& [computation, next] = stack.back();
      auto placed = before.find(computation);
      if (placed != before.end() && next < placed->second.size()) {
        stack.emplace_back(placed->second[next++], 0);
        continue;
      }
      order.push_back(computation);
      stack.pop_back();
    }
  }
  return order;
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
  if (CopiedInstructions(graph, order) > kMaxFlattenCopies) {
    return InvalidArgument("flattening the call graph would copy more than ", kMaxFlattenCopies,
                           " instructions (computations shared by nested control flow double "
                           "with each level; xlite's limit)");
  }
  InstructionMaker make(module);
  CloneNames names(module);
  // The clones to place before each computation, in the order they were made.
  absl::flat_hash_map<const HloComputation*, std::vector<HloComputation*>> before;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloComputation* callee = *it;
    auto found = control_sites.find(callee);
    if (found == control_sites.end()) continue;
    // Copied: cloning a caller adds sites to other entries of the map.
    const std::vector<CallSite> sites = found->second;
    for (size_t i = KeepsFirstSite(graph, *callee) ? 1 : 0; i < sites.size(); ++i) {
      HloComputation* copy = CloneComputation(make, module, names, *callee, control_sites);
      sites[i].instruction->set_called_computation(sites[i].index, copy);
      before[sites[i].caller()].push_back(copy);
    }
  }
  if (before.empty()) return false;
  module.ReorderComputations(PlaceClones(order, before));
  make.Finish();
  return true;
}

}  // namespace xlite
