#include "xlite/backends/cpu/cpu_memory_plan.h"

#include <algorithm>

#include "xlite/backends/cpu/conv_fusion.h"
#include "xlite/backends/cpu/convolution_thunk.h"
#include "xlite/backends/cpu/fusion.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/passes/flatten_call_graph.h"
#include "xlite/passes/instruction_maker.h"
#include "xlite/sched/memory_scheduler.h"

namespace xlite::cpu {
namespace {

const Shape& SubshapeAt(const Shape& shape, const ShapeIndex& index) {
  const Shape* at = &shape;
  for (int64_t i : index) at = &at->tuple_shapes()[i];
  return *at;
}

// An array value `inst` defines that nothing but its one user reads: an
// instruction that forwards no other value (not a parameter, constant,
// tuple element, bitcast, control flow or async/collective pair).
bool OwnsFreshArray(const HloInstruction& inst) {
  if (!inst.shape().IsArray() || inst.user_count() != 1 || inst.IsRoot()) return false;
  switch (inst.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast:
    case HloOpcode::kDomain:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAddDependency:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kCopyDone:
    case HloOpcode::kRecvDone:
      return false;
    default:
      return true;
  }
}

}  // namespace

absl::Status PrepareCpuModule(HloModule& module) {
  // Batch norms stay whole (evaluator fallback): expanded into f32 ops, as
  // XLA's CPU pipeline does, their gradients overflow where the evaluator's
  // wider arithmetic does not (mobilenet_v2's training step on random
  // inputs), and the evaluator is the reference.
  // Convolutions take their post-ops first, before loop fusion would.
  bool changed = false;
  if (kFusesConvolutions) {
    ConvolutionFusion conv_fusion;
    XLITE_ASSIGN_OR_RETURN(changed, conv_fusion.Run(module));
  }
  LoopFusion fusion;
  XLITE_ASSIGN_OR_RETURN(bool fused, fusion.Run(module));
  changed = changed || fused;
  // One order per computation needs one call site per computation.
  FlattenCallGraphPass flatten;
  XLITE_ASSIGN_OR_RETURN(bool flattened, flatten.Run(module));
  changed = changed || flattened;
  // The copies XLA's copy insertion would add where a thunk (the evaluator
  // running a loop, branch or call, or moving a bitcast's data) writes into
  // a buffer the alias analysis shares with values read elsewhere.
  InstructionMaker maker(module);
  HloComputation& entry = *module.entry_computation();
  std::vector<HloInstruction*> insts;
  for (const auto& inst : entry.instructions()) insts.push_back(inst.get());
  bool copied = false;
  for (HloInstruction* inst : insts) {
    switch (inst->opcode()) {
      case HloOpcode::kWhile:
        if (inst->operand_count() == 1 && inst->operand(0)->opcode() == HloOpcode::kTuple &&
            inst->operand(0)->user_count() == 1 && !inst->operand(0)->IsRoot()) {
          // The loop state's arrays one by one (elementwise copies run as
          // kernels), only those read elsewhere.
          HloInstruction* init = inst->operand(0);
          for (int64_t k = 0; k < init->operand_count(); ++k) {
            const HloInstruction* element = init->operand(k);
            if (OwnsFreshArray(*element) &&
                std::count(init->operands().begin(), init->operands().end(), element) == 1) {
              continue;
            }
            init->ReplaceOperandWith(k, maker.Unary(entry, HloOpcode::kCopy, init->operand(k)));
            copied = true;
          }
          break;
        }
        [[fallthrough]];
      case HloOpcode::kBitcast:
        if (inst->operand_count() >= 1) {
          inst->ReplaceOperandWith(0, maker.Unary(entry, HloOpcode::kCopy, inst->operand(0)));
          copied = true;
        }
        break;
      case HloOpcode::kConditional:
      case HloOpcode::kCall:
        for (HloComputation* callee : inst->called_computations()) {
          HloInstruction* root = callee->root_instruction();
          callee->set_root_instruction(maker.Unary(*callee, HloOpcode::kCopy, root));
          copied = true;
        }
        break;
      default:
        break;
    }
  }
  maker.Finish();
  if ((changed || copied) && module.is_scheduled()) module.clear_schedule();
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<AliasAnalysis> aliases, AliasAnalysis::Run(module));
  if (module.is_scheduled() && Liveness::Run(*aliases, module.schedule()).ok()) {
    return absl::OkStatus();
  }
  // The thunks' order: post-order, linear, and the order they always ran in.
  XLITE_ASSIGN_OR_RETURN(MemorySchedule schedule,
                         ScheduleForMemory(*aliases, MemoryScheduler::kPostOrder));
  module.set_schedule(std::move(schedule.schedule));
  return absl::OkStatus();
}

BufferAssignmentOptions CpuArenaOptions(const AliasAnalysis& aliases) {
  const DataflowAnalysis& df = aliases.dataflow();
  const HloComputation& entry = *df.module().entry_computation();
  const size_t n = aliases.buffers().size();
  BufferAssignmentOptions options;
  options.alignment = kArenaAlignment;
  options.arena_bytes.assign(n, 0);
  for (const HloValue& value : df.values()) {
    if (!value.shape->IsArray()) continue;
    int64_t& bytes = options.arena_bytes[aliases.BufferOfValue(value.id)];
    bytes =
        std::max(bytes, value.shape->ElementCount() * StorageBytes(value.shape->element_type()));
  }
  std::vector<bool> written(n, false), returned(n, false), argument(n, false);
  auto mark = [&](const HloInstruction& inst, std::vector<bool>& marks) {
    const int32_t count = ShapePositionCount(inst.shape());
    for (int32_t p = 0; p < count; ++p) {
      if (!SubshapeAt(inst.shape(), ShapeIndexOfFlat(inst.shape(), p)).IsArray()) continue;
      for (int32_t v : df.ValueSetAtFlat(inst, p)) marks[aliases.BufferOfValue(v)] = true;
    }
  };
  for (const auto& inst : entry.instructions()) {
    switch (inst->opcode()) {
      case HloOpcode::kParameter:
        if (inst->shape().IsArray()) mark(*inst, argument);
        break;
      case HloOpcode::kConstant:
      case HloOpcode::kTuple:
      case HloOpcode::kGetTupleElement:
        break;
      default:
        mark(*inst, written);  // a thunk writes these
        break;
    }
  }
  mark(*entry.root_instruction(), returned);
  options.in_arena.assign(n, true);
  for (size_t b = 0; b < n; ++b) {
    if ((argument[b] && !written[b]) || (written[b] && returned[b])) options.in_arena[b] = false;
  }
  return options;
}

absl::StatusOr<CpuMemoryPlan> PlanCpuMemory(const HloModule& module) {
  if (!module.is_scheduled()) {
    return absl::FailedPreconditionError(
        "the cpu backend's memory plan needs the module PrepareCpuModule scheduled");
  }
  CpuMemoryPlan plan;
  XLITE_ASSIGN_OR_RETURN(plan.aliases, AliasAnalysis::Run(module));
  XLITE_ASSIGN_OR_RETURN(plan.liveness, Liveness::Run(*plan.aliases, module.schedule()));
  plan.options = CpuArenaOptions(*plan.aliases);
  plan.assignment = AssignBuffers(*plan.liveness, plan.options);
  return plan;
}

}  // namespace xlite::cpu
