#include "xlite/passes/while_loop_simplifier.h"

#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "xlite/analysis/call_graph.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/side_effects.h"
#include "xlite/passes/call_inliner.h"
#include "xlite/passes/instruction_maker.h"
#include "xlite/passes/while_loop_util.h"

namespace xlite {
namespace {

// Replaces a loop known to run 0 or 1 times; false when its trip count is
// unknown or larger. Loops ordered by control edges are left alone: their
// replacement (possibly the init itself) could not carry the edges faithfully.
bool RemoveShortLoop(HloInstruction* while_op, InstructionMaker& make) {
  if (!while_op->control_predecessors().empty() || !while_op->control_successors().empty()) {
    return false;
  }
  std::optional<int64_t> trips = WhileTripCount(*while_op);
  if (!trips || *trips > 1) return false;
  HloComputation& computation = *while_op->parent();
  HloInstruction* result = while_op->operand(0);
  HloInstruction* call = nullptr;
  if (*trips == 1) {
    call = make.Add(computation, HloOpcode::kCall, while_op->shape(), {result});
    call->AppendCalledComputation(while_op->called_computations()[1]);
    result = call;
  }
  while_op->ReplaceAllUsesWith(result);
  computation.RemoveInstruction(while_op);
  if (call != nullptr) InlineCall(call, make);
  return true;
}

// Which state elements are live: read by a user of the loop or by the
// condition, or feeding a live element through the body.
std::vector<bool> LiveElements(const HloInstruction& while_op) {
  const int64_t n = static_cast<int64_t>(while_op.shape().tuple_shapes().size());
  std::vector<bool> live(n, false);
  const bool all_users_read_elements = !while_op.IsRoot() && [&] {
    for (const HloInstruction* user : while_op.users()) {
      if (user->opcode() != HloOpcode::kGetTupleElement) return false;
    }
    return true;
  }();
  if (!all_users_read_elements) return std::vector<bool>(n, true);
  for (const HloInstruction* user : while_op.users()) live[user->tuple_index()] = true;
  const HloComputation& condition = *while_op.called_computations()[0];
  for (const HloInstruction* read : condition.parameter_instruction(0)->users()) {
    live[read->tuple_index()] = true;
  }
  // Propagate backwards through the body: each newly live element marks the
  // elements its root operand is computed from.
  const HloComputation& body = *while_op.called_computations()[1];
  const HloInstruction* root = body.root_instruction();
  const HloInstruction* param = body.parameter_instruction(0);
  absl::flat_hash_set<const HloInstruction*> visited;
  std::vector<int64_t> work;
  for (int64_t i = 0; i < n; ++i) {
    if (live[i]) work.push_back(i);
  }
  std::vector<const HloInstruction*> stack;
  while (!work.empty()) {
    int64_t i = work.back();
    work.pop_back();
    stack.push_back(root->operand(i));
    while (!stack.empty()) {
      const HloInstruction* inst = stack.back();
      stack.pop_back();
      if (!visited.insert(inst).second) continue;
      if (IsStateElement(inst, param) && !live[inst->tuple_index()]) {
        live[inst->tuple_index()] = true;
        work.push_back(inst->tuple_index());
      }
      for (const HloInstruction* operand : inst->operands()) stack.push_back(operand);
      for (const HloInstruction* pred : inst->control_predecessors()) stack.push_back(pred);
    }
  }
  return live;
}

// A copy of `original` on the smaller state: parameter 0 gets `state_shape`,
// its elements are renumbered by `new_index`, and only what `roots` need is
// copied (everything when `roots` is empty). The new root is the copy of
// `root`, or a tuple of the copies of `roots`.
HloComputation* CopyOnSmallerState(HloModule& module, const HloComputation& original,
                                   const Shape& state_shape, const std::vector<int64_t>& new_index,
                                   const std::vector<const HloInstruction*>& roots,
                                   const HloComputation& user, InstructionMaker& make) {
  HloComputation* copy = module.AddComputationBefore(
      std::make_unique<HloComputation>(original.name() + ".shrunk"), &user);
  copy->set_execution_thread(original.execution_thread());
  absl::flat_hash_set<const HloInstruction*> needed;
  if (!roots.empty()) {
    std::vector<const HloInstruction*> stack(roots.begin(), roots.end());
    while (!stack.empty()) {
      const HloInstruction* inst = stack.back();
      stack.pop_back();
      if (!needed.insert(inst).second) continue;
      for (const HloInstruction* operand : inst->operands()) stack.push_back(operand);
      for (const HloInstruction* pred : inst->control_predecessors()) stack.push_back(pred);
    }
  }
  const HloInstruction* old_param = original.parameter_instruction(0);
  HloInstruction* param = make.Clone(*copy, *old_param, {});
  *param->mutable_shape() = state_shape;
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> copy_of;
  copy_of[old_param] = param;
  for (HloInstruction* inst : original.MakeInstructionPostOrder()) {
    if (inst == old_param || (!roots.empty() && !needed.contains(inst))) continue;
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : inst->operands()) operands.push_back(copy_of.at(operand));
    HloInstruction* clone = make.Clone(*copy, *inst, operands);
    if (IsStateElement(inst, old_param)) {
      clone->mutable_attrs<IntAttrs>()->value = new_index[inst->tuple_index()];
    }
    for (const HloInstruction* pred : inst->control_predecessors()) {
      copy_of.at(pred)->AddControlDependencyTo(clone);
    }
    copy_of[inst] = clone;
  }
  if (roots.empty()) {
    copy->set_root_instruction(copy_of.at(original.root_instruction()));
  } else {
    std::vector<HloInstruction*> elements;
    for (const HloInstruction* r : roots) elements.push_back(copy_of.at(r));
    copy->set_root_instruction(make.Add(*copy, HloOpcode::kTuple, state_shape, elements));
  }
  return copy;
}

// Rebuilds `while_op` without its dead state elements; false when all are live.
bool RemoveDeadElements(HloInstruction* while_op, HloModule& module, InstructionMaker& make) {
  std::vector<bool> live = LiveElements(*while_op);
  const int64_t n = static_cast<int64_t>(live.size());
  std::vector<int64_t> new_index(n, -1);
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < n; ++i) {
    if (!live[i]) continue;
    new_index[i] = static_cast<int64_t>(shapes.size());
    shapes.push_back(while_op->shape().tuple_shapes(i));
  }
  // An empty state would leave a loop that can only be removed by knowing
  // its trip count, which RemoveShortLoop already tried.
  if (shapes.empty() || static_cast<int64_t>(shapes.size()) == n) return false;
  Shape state = Shape::Tuple(shapes);
  HloComputation& computation = *while_op->parent();
  const HloComputation& condition = *while_op->called_computations()[0];
  const HloComputation& body = *while_op->called_computations()[1];
  std::vector<const HloInstruction*> live_roots;
  std::vector<HloInstruction*> live_inits;
  for (int64_t i = 0; i < n; ++i) {
    if (!live[i]) continue;
    live_roots.push_back(body.root_instruction()->operand(i));
    live_inits.push_back(InitElement(make, computation, while_op->operand(0), i));
  }
  HloInstruction* init = make.Add(computation, HloOpcode::kTuple, state, live_inits);
  HloInstruction* smaller = make.Clone(computation, *while_op, {init});
  *smaller->mutable_shape() = state;
  smaller->set_called_computation(
      0, CopyOnSmallerState(module, condition, state, new_index, {}, computation, make));
  smaller->set_called_computation(
      1, CopyOnSmallerState(module, body, state, new_index, live_roots, computation, make));
  for (HloInstruction* pred : while_op->control_predecessors())
    pred->AddControlDependencyTo(smaller);
  for (HloInstruction* succ : while_op->control_successors()) smaller->AddControlDependencyTo(succ);
  while_op->DropAllControlDeps();
  for (HloInstruction* user :
       std::vector<HloInstruction*>(while_op->users().begin(), while_op->users().end())) {
    user->mutable_attrs<IntAttrs>()->value = new_index[user->tuple_index()];
    user->ReplaceOperandWith(0, smaller);
  }
  computation.RemoveInstruction(while_op);
  return true;
}

}  // namespace

absl::StatusOr<bool> WhileLoopSimplifierPass::Run(HloModule& module) {
  InstructionMaker make(module);
  SideEffectAnalysis side_effects;
  CallGraph graph(module);
  // Sites of each computation that rewritten loops no longer are.
  absl::flat_hash_map<const HloComputation*, int64_t> dropped_sites;
  auto call_sites = [&](const HloComputation& c) {
    auto it = dropped_sites.find(&c);
    int64_t dropped = it == dropped_sites.end() ? 0 : it->second;
    return static_cast<int64_t>(graph.CallSitesOf(c).size()) - dropped;
  };
  absl::flat_hash_set<const HloComputation*> replaced;
  bool changed = false;
  // Module order visits inner loops (in callees) before the loops around them.
  std::vector<HloComputation*> computations;
  for (const auto& c : module.computations()) computations.push_back(c.get());
  for (HloComputation* computation : computations) {
    std::vector<HloInstruction*> loops;
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() == HloOpcode::kWhile) loops.push_back(inst.get());
    }
    for (HloInstruction* while_op : loops) {
      // A loop with side effects runs exactly as written.
      if (side_effects.HasSideEffect(*while_op)) continue;
      std::vector<HloComputation*> called = while_op->called_computations();
      bool rewritten =
          RemoveShortLoop(while_op, make) || (HasRewritableLoopState(*while_op, call_sites) &&
                                              RemoveDeadElements(while_op, module, make));
      if (!rewritten) continue;
      for (HloComputation* c : called) {
        ++dropped_sites[c];
        if (call_sites(*c) == 0) replaced.insert(c);
      }
      changed = true;
    }
  }
  make.Finish();
  // The old condition and body, when nothing else calls them.
  module.RemoveComputationsIf([&](const HloComputation* c) { return replaced.contains(c); });
  return changed;
}

}  // namespace xlite
