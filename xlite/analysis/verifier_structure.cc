// Structural checks of one computation: unique instruction names, parameter
// numbers 0..n-1 each used once, a root inside the computation, operands and
// control edges inside the computation, and no cycle through them; across
// computations, no cycle of calls and no chain longer than kMaxCallDepth.
#include <algorithm>
#include <deque>

#include "xlite/analysis/call_graph.h"
#include "xlite/analysis/verifier_internal.h"
#include "xlite/base/name_hash.h"

namespace xlite::verifier {
namespace {

// Per parameter: its number is non-negative and names it alone.
void CheckParameter(const HloComputation& comp, const HloInstruction& inst, ErrorSink& errors) {
  int64_t n = inst.parameter_number();
  if (n < 0) {
    errors.Add(inst, absl::StrCat("parameter number ", n, " is negative"));
  } else if (comp.parameter_instruction(n) != &inst) {
    errors.Add(inst, absl::StrCat("parameter number ", n, " is used more than once"));
  }
}

// The numbers cover 0..n-1 without gaps.
void CheckParameterNumbersContiguous(const HloComputation& comp, int64_t count, ErrorSink& errors) {
  for (int64_t i = 0; i < comp.num_parameters(); ++i) {
    if (comp.parameter_instruction(i) == nullptr) {
      errors.Add(comp, absl::StrCat("parameter numbers must be 0..", count - 1,
                                    " without gaps, parameter ", i, " is missing"));
      return;
    }
  }
}

// Kahn's algorithm over operand and control edges; reports one instruction
// left on a cycle. Only run when some edge points forward in text order.
void CheckAcyclic(const HloComputation& comp, const InstructionPositions& positions,
                  ErrorSink& errors) {
  size_t n = comp.instructions().size();
  std::vector<int32_t> pending(n, 0);
  std::vector<std::vector<int32_t>> users(n);
  for (size_t i = 0; i < n; ++i) {
    const HloInstruction& inst = *comp.instructions()[i];
    auto add_edge = [&](const HloInstruction* from) {
      int32_t p = positions.Find(from);
      if (p < 0) return;
      users[p].push_back(static_cast<int32_t>(i));
      ++pending[i];
    };
    for (const HloInstruction* op : inst.operands()) add_edge(op);
    for (const HloInstruction* pred : inst.control_predecessors()) add_edge(pred);
  }
  std::deque<int32_t> ready;
  for (size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push_back(static_cast<int32_t>(i));
  }
  size_t done = 0;
  while (!ready.empty()) {
    int32_t i = ready.front();
    ready.pop_front();
    ++done;
    for (int32_t u : users[i]) {
      if (--pending[u] == 0) ready.push_back(u);
    }
  }
  if (done == n) return;
  for (size_t i = 0; i < n; ++i) {
    if (pending[i] > 0) {
      errors.Add(*comp.instructions()[i], "lies on a cycle of operands and control dependencies");
      return;
    }
  }
}

}  // namespace

InstructionPositions::InstructionPositions(const HloModule& module) {
  int64_t count = 0;
  int64_t max_id = -1;
  for (const auto& comp : module.computations()) {
    count += comp->instruction_count();
    for (const auto& inst : comp->instructions()) max_id = std::max(max_id, inst->unique_id());
  }
  id_limit_ = std::min(max_id + 1, 4 * count + 1024);
  by_id_.resize(static_cast<size_t>(id_limit_), -1);
  owner_.resize(static_cast<size_t>(id_limit_), -1);
}

void InstructionPositions::Begin(const HloComputation& comp) {
  current_ = &comp;
  ++generation_;
  by_pointer_.clear();
  map_mode_ = false;
}

void InstructionPositions::Add(const HloInstruction* inst, int32_t position) {
  int64_t id = inst->unique_id();
  if (!map_mode_ && id >= 0 && id < id_limit_ && owner_[id] != generation_) {
    owner_[id] = generation_;
    by_id_[id] = position;
    return;
  }
  if (!map_mode_) {
    // A repeated, negative or sparse id: this computation uses the map.
    map_mode_ = true;
    for (int32_t i = 0; i < position; ++i) {
      by_pointer_.emplace(current_->instructions()[i].get(), i);
    }
  }
  by_pointer_.emplace(inst, position);
}

int32_t InstructionPositions::Find(const HloInstruction* inst) const {
  if (inst->parent() != current_) return -1;
  if (map_mode_) {
    auto it = by_pointer_.find(inst);
    return it == by_pointer_.end() ? -1 : it->second;
  }
  int64_t id = inst->unique_id();
  if (id < 0 || id >= id_limit_ || owner_[id] != generation_) return -1;
  return by_id_[id];
}

void CheckComputationStructure(const HloComputation& comp, InstructionPositions& positions,
                               absl::FunctionRef<void(const HloInstruction&)> check_instruction,
                               ErrorSink& errors) {
  size_t n = comp.instructions().size();
  positions.Begin(comp);
  NameSet names;
  names.reserve(n);
  bool forward_edge = false;
  int64_t parameters = 0;
  for (size_t i = 0; i < n; ++i) {
    const HloInstruction& inst = *comp.instructions()[i];
    positions.Add(&inst, static_cast<int32_t>(i));
    if (!names.insert(inst.name()).second) {
      errors.Add(inst, "instruction name is not unique in the computation");
    }
    auto check_edge = [&](const HloInstruction* from, absl::string_view kind) {
      if (from->parent() != &comp) {
        errors.Add(inst, absl::StrCat(kind, " %", from->name(), " is not in the computation"));
      } else if (positions.Find(from) < 0) {
        forward_edge = true;  // defined later in the text (or a self edge)
      }
    };
    for (const HloInstruction* op : inst.operands()) check_edge(op, "operand");
    for (const HloInstruction* pred : inst.control_predecessors()) {
      check_edge(pred, "control predecessor");
    }
    if (inst.opcode() == HloOpcode::kParameter && inst.has_attrs()) {
      ++parameters;
      CheckParameter(comp, inst, errors);
    }
    check_instruction(inst);
  }
  if (comp.root_instruction() == nullptr) {
    errors.Add(comp, "has no root instruction");
  } else if (comp.root_instruction()->parent() != &comp) {
    errors.Add(comp, "root instruction belongs to another computation");
  }
  if (forward_edge) CheckAcyclic(comp, positions, errors);
  CheckParameterNumbersContiguous(comp, parameters, errors);
}

// An iterative depth-first search over all computations computing each one's
// height (the computations on its longest chain of calls); 0 marks one on the
// stack, so meeting it again is a cycle. Reports the first failure only: every
// caller above it would fail too.
void CheckCallNesting(const HloModule& module, ErrorSink& errors) {
  const CallGraph graph(module);
  absl::flat_hash_map<const HloComputation*, int64_t> height;
  for (const auto& root : module.computations()) {
    if (!height.try_emplace(root.get(), 0).second) continue;
    std::vector<std::pair<const HloComputation*, size_t>> stack = {{root.get(), 0}};
    while (!stack.empty()) {
      auto& [comp, next] = stack.back();
      absl::Span<const CallSite> sites = graph.CallSitesIn(*comp);
      if (next < sites.size()) {
        const HloComputation* callee = sites[next++].callee();
        if (callee == nullptr) continue;  // reported by CheckCalledComputations
        auto [it, fresh] = height.try_emplace(callee, 0);
        if (fresh) {
          stack.emplace_back(callee, 0);
        } else if (it->second == 0) {
          return errors.Add(*comp, absl::StrCat("calls %", callee->name(),
                                                ", which calls it back (a cycle of calls)"));
        }
        continue;
      }
      int64_t longest = 0;
      for (const CallSite& site : sites) {
        if (site.callee() != nullptr) longest = std::max(longest, height[site.callee()]);
      }
      height[comp] = longest + 1;
      if (longest + 1 > kMaxCallDepth) return errors.Add(*comp, CallDepthMessage());
      stack.pop_back();
    }
  }
}

}  // namespace xlite::verifier
