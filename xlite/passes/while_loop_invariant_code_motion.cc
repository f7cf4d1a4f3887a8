#include "xlite/passes/while_loop_invariant_code_motion.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "xlite/analysis/call_graph.h"
#include "xlite/analysis/side_effects.h"
#include "xlite/passes/instruction_maker.h"
#include "xlite/passes/while_loop_util.h"

namespace xlite {
namespace {

// Ops that save no work when hoisted alone (see the header's policy).
bool NotWorthHoistingAlone(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kConstant:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
    case HloOpcode::kReverse:
    case HloOpcode::kSlice:
    case HloOpcode::kTranspose:
      return true;
    default:
      return false;
  }
}

bool MayBeHoisted(const HloInstruction& inst, SideEffectAnalysis& side_effects) {
  return inst.opcode() != HloOpcode::kParameter && inst.opcode() != HloOpcode::kWhile &&
         inst.shape().IsArray() && !inst.IsRoot() && inst.control_predecessors().empty() &&
         inst.control_successors().empty() && !side_effects.HasSideEffect(inst);
}

// Hoists the invariant work of one loop; false when there is none.
bool HoistInvariants(HloInstruction* while_op, SideEffectAnalysis& side_effects,
                     InstructionMaker& make) {
  HloComputation& body = *while_op->called_computations()[1];
  HloInstruction* param = body.parameter_instruction(0);
  HloInstruction* root = body.root_instruction();
  std::vector<HloInstruction*> order = body.MakeInstructionPostOrder();
  // Invariant: a state element the body passes through unchanged, or a
  // hoistable instruction on invariant operands.
  absl::flat_hash_set<const HloInstruction*> invariant;
  for (HloInstruction* inst : order) {
    if (IsStateElement(inst, param)) {
      const HloInstruction* next = root->operand(inst->tuple_index());
      if (IsStateElement(next, param) && next->tuple_index() == inst->tuple_index()) {
        invariant.insert(inst);
      }
      continue;
    }
    if (!MayBeHoisted(*inst, side_effects)) continue;
    bool all = true;
    for (const HloInstruction* operand : inst->operands()) all = all && invariant.contains(operand);
    if (all) invariant.insert(inst);
  }
  // Hoisted: invariant work and the invariant operands it needs (state
  // elements excepted: outside they are the init's elements). Users come
  // before operands in reverse post order.
  absl::flat_hash_set<const HloInstruction*> hoisted;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* inst = *it;
    if (!invariant.contains(inst) || IsStateElement(inst, param)) continue;
    bool needed = !NotWorthHoistingAlone(inst->opcode()) && inst->user_count() > 0;
    for (const HloInstruction* user : inst->users()) needed = needed || hoisted.contains(user);
    if (needed) hoisted.insert(inst);
  }
  // The values the loop must carry: hoisted work read by the rest of the
  // body. Cheap hoisted operands (a broadcast, a constant) that the rest
  // also reads stay in the body as well rather than growing the state.
  std::vector<HloInstruction*> carried;
  for (HloInstruction* inst : order) {
    if (!hoisted.contains(inst) || NotWorthHoistingAlone(inst->opcode())) continue;
    for (const HloInstruction* user : inst->users()) {
      if (!hoisted.contains(user)) {
        carried.push_back(inst);
        break;
      }
    }
  }
  if (carried.empty()) return false;

  // Compute the hoisted instructions before the loop.
  HloComputation& outer = *while_op->parent();
  HloInstruction* init = while_op->operand(0);
  const int64_t n = static_cast<int64_t>(while_op->shape().tuple_shapes().size());
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> outside;
  std::vector<HloInstruction*> elements;
  for (int64_t i = 0; i < n; ++i) elements.push_back(InitElement(make, outer, init, i));
  for (HloInstruction* inst : order) {
    if (!hoisted.contains(inst)) continue;
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : inst->operands()) {
      operands.push_back(IsStateElement(operand, param) ? elements[operand->tuple_index()]
                                                        : outside.at(operand));
    }
    outside[inst] = make.Clone(outer, *inst, operands);
  }
  std::vector<Shape> shapes = while_op->shape().tuple_shapes();
  for (HloInstruction* inst : carried) {
    shapes.push_back(inst->shape());
    elements.push_back(outside.at(inst));
  }
  Shape state = Shape::Tuple(shapes);
  HloInstruction* new_init = make.Add(outer, HloOpcode::kTuple, state, elements);

  // The loop with the bigger state: users outside that take the whole tuple
  // get a tuple of the original elements.
  std::vector<HloInstruction*> whole_users;
  for (HloInstruction* user : while_op->users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) whole_users.push_back(user);
  }
  const bool was_root = while_op->IsRoot();
  Shape old_shape = while_op->shape();
  while_op->ReplaceOperandWith(0, new_init);
  *while_op->mutable_shape() = state;
  if (!whole_users.empty() || was_root) {
    std::vector<HloInstruction*> originals;
    for (int64_t i = 0; i < n; ++i) originals.push_back(make.GetTupleElement(outer, while_op, i));
    HloInstruction* view = make.Add(outer, HloOpcode::kTuple, old_shape, originals);
    for (HloInstruction* user : whole_users) {
      for (int64_t k = 0; k < user->operand_count(); ++k) {
        if (user->operand(k) == while_op) user->ReplaceOperandWith(k, view);
      }
    }
    if (was_root) outer.set_root_instruction(view);
  }
  HloComputation& condition = *while_op->called_computations()[0];
  *condition.parameter_instruction(0)->mutable_shape() = state;
  *param->mutable_shape() = state;
  *root->mutable_shape() = state;
  for (size_t k = 0; k < carried.size(); ++k) {
    HloInstruction* read = make.GetTupleElement(body, param, n + static_cast<int64_t>(k));
    for (HloInstruction* user :
         std::vector<HloInstruction*>(carried[k]->users().begin(), carried[k]->users().end())) {
      if (hoisted.contains(user)) continue;
      for (int64_t j = 0; j < user->operand_count(); ++j) {
        if (user->operand(j) == carried[k]) user->ReplaceOperandWith(j, read);
      }
    }
    root->AppendOperand(read);
  }
  // Remove the hoisted instructions nothing in the body reads any more
  // (users first, so a selection is never read from outside it).
  absl::flat_hash_set<const HloInstruction*> dead;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* inst = *it;
    if (!hoisted.contains(inst)) continue;
    bool unused = true;
    for (const HloInstruction* user : inst->users()) unused = unused && dead.contains(user);
    if (unused) dead.insert(inst);
  }
  body.RemoveInstructionsIf([&](HloInstruction* inst) { return dead.contains(inst); });
  return true;
}

}  // namespace

absl::StatusOr<bool> WhileLoopInvariantCodeMotionPass::Run(HloModule& module) {
  InstructionMaker make(module);
  SideEffectAnalysis side_effects;
  CallGraph graph(module);
  auto call_sites = [&](const HloComputation& c) {
    return static_cast<int64_t>(graph.CallSitesOf(c).size());
  };
  bool changed = false;
  for (const auto& computation : module.computations()) {
    std::vector<HloInstruction*> loops;
    for (const auto& inst : computation->instructions()) {
      if (HasRewritableLoopState(*inst, call_sites)) loops.push_back(inst.get());
    }
    for (HloInstruction* while_op : loops) {
      changed = HoistInvariants(while_op, side_effects, make) || changed;
    }
  }
  make.Finish();
  return changed;
}

}  // namespace xlite
