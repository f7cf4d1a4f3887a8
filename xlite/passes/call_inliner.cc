#include "xlite/passes/call_inliner.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "xlite/analysis/call_graph.h"
#include "xlite/base/status.h"

namespace xlite {

namespace {

// An inlined instruction with no source of its own came from the call's
// line (JAX puts the stack frame of a nested jit on the call only).
void InheritSource(const HloInstruction& call, HloInstruction* copy) {
  const OpMetadata& from = call.metadata();
  if (from.stack_frame_id == 0 && from.source_file.empty()) return;
  const OpMetadata& own = copy->metadata();
  if (own.stack_frame_id != 0 || !own.source_file.empty()) return;
  OpMetadata* to = copy->mutable_metadata();
  to->stack_frame_id = from.stack_frame_id;
  to->source_file = from.source_file;
  to->source_line = from.source_line;
}

}  // namespace

void InlineCall(HloInstruction* call, InstructionMaker& make) {
  HloComputation& caller = *call->parent();
  const HloComputation& callee = *call->to_apply();
  // Looked up only: the copies are made in the callee's post order.
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> copy_of;
  for (HloInstruction* inst : callee.MakeInstructionPostOrder()) {
    if (inst->opcode() == HloOpcode::kParameter) {
      copy_of[inst] = call->operand(inst->parameter_number());
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : inst->operands()) operands.push_back(copy_of.at(operand));
    HloInstruction* copy = make.Clone(caller, *inst, operands);
    InheritSource(*call, copy);
    for (const HloInstruction* pred : inst->control_predecessors()) {
      copy_of.at(pred)->AddControlDependencyTo(copy);
    }
    copy_of[inst] = copy;
  }
  HloInstruction* result = copy_of.at(callee.root_instruction());
  for (HloInstruction* pred : call->control_predecessors()) {
    if (result->opcode() != HloOpcode::kParameter) pred->AddControlDependencyTo(result);
  }
  for (HloInstruction* succ : call->control_successors()) {
    if (result->opcode() != HloOpcode::kParameter) result->AddControlDependencyTo(succ);
  }
  call->DropAllControlDeps();
  call->ReplaceAllUsesWith(result);
  caller.RemoveInstruction(call);
}

absl::StatusOr<bool> CallInlinerPass::Run(HloModule& module) {
  InstructionMaker make(module);
  bool changed = false;
  // As XLA's: a call is not inlined into the computation an async op wraps
  // (its root is the op that runs asynchronously), nor across execution
  // threads (the callee runs on another one).
  absl::flat_hash_set<const HloComputation*> async_bodies;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() != HloOpcode::kAsyncStart) continue;
      for (const HloComputation* callee : inst->called_computations()) async_bodies.insert(callee);
    }
  }
  // Callers come after callees in the module: inlining in module order means
  // a callee has no calls left when its caller copies it.
  for (const auto& computation : module.computations()) {
    if (async_bodies.contains(computation.get())) continue;
    std::vector<HloInstruction*> calls;
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() == HloOpcode::kCall && !inst->attrs<IntAttrs>().flag &&
          inst->to_apply() != nullptr &&
          inst->to_apply()->execution_thread() == computation->execution_thread()) {
        calls.push_back(inst.get());
      }
    }
    for (HloInstruction* call : calls) {
      InlineCall(call, make);
      changed = true;
    }
  }
  make.Finish();
  return changed;
}

absl::StatusOr<bool> InlineCallsAndDropCallees(HloModule& module) {
  CallInlinerPass inliner;
  XLITE_ASSIGN_OR_RETURN(bool inlined, inliner.Run(module));
  if (inlined) {
    CallGraph graph(module);
    module.RemoveComputationsIf([&](const HloComputation* c) { return !graph.IsReachable(*c); });
  }
  return inlined;
}

}  // namespace xlite
