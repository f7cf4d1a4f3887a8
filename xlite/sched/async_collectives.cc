#include "xlite/sched/async_collectives.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xlite/analysis/call_graph.h"
#include "xlite/base/strings.h"
#include "xlite/ir/computation.h"
#include "xlite/ir/schedule.h"
#include "xlite/passes/instruction_maker.h"
#include "xlite/sched/async_pairs.h"

namespace xlite {
namespace {

// The start/done pair of a collective: the dedicated opcodes or async-start.
struct AsyncForm {
  HloOpcode start = HloOpcode::kAsyncStart;
  HloOpcode done = HloOpcode::kAsyncDone;
};

std::optional<AsyncForm> AsyncFormOf(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kAllReduce:
      return AsyncForm{HloOpcode::kAllReduceStart, HloOpcode::kAllReduceDone};
    case HloOpcode::kAllGather:
      return AsyncForm{HloOpcode::kAllGatherStart, HloOpcode::kAllGatherDone};
    case HloOpcode::kCollectivePermute:  // the in-place form too, as XLA
      return AsyncForm{HloOpcode::kCollectivePermuteStart, HloOpcode::kCollectivePermuteDone};
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
      return AsyncForm{};
    default:
      return std::nullopt;
  }
}

std::vector<Shape> OperandShapes(const HloInstruction& inst) {
  std::vector<Shape> shapes;
  for (const HloInstruction* operand : inst.operands()) shapes.push_back(operand->shape());
  return shapes;
}

// The shape of the start: all-reduce-start has the result's; all-gather-start
// (operands, results); collective-permute-start (operand, result, u32[],
// u32[]); async-start ((operands), result).
Shape StartShape(const HloInstruction& inst, HloOpcode start) {
  const Shape u32 = Shape::Scalar(PrimitiveType::U32);
  switch (start) {
    case HloOpcode::kAllReduceStart:
      return inst.shape();
    case HloOpcode::kAllGatherStart:
      return Shape::Tuple(
          {inst.operand_count() == 1 ? inst.operand(0)->shape() : Shape::Tuple(OperandShapes(inst)),
           inst.shape()});
    case HloOpcode::kCollectivePermuteStart:
      return Shape::Tuple({inst.operand(0)->shape(), inst.shape(), u32, u32});
    default:
      return Shape::Tuple({Shape::Tuple(OperandShapes(inst)), inst.shape()});
  }
}

std::string UniqueComputationName(const HloModule& module, const std::string& stem) {
  std::string name = stem;
  for (int i = 1; module.GetComputation(name) != nullptr; ++i) name = absl::StrCat(stem, ".", i);
  return name;
}

// The order of `c` with `replacements[inst]` in place of inst (empty:
// removed), so that a schedule keeps the new instructions where the old
// ones ran.
using Replacements = absl::flat_hash_map<const HloInstruction*, std::vector<HloInstruction*>>;
HloSchedule::Sequence OrderWith(absl::Span<HloInstruction* const> before,
                                const Replacements& replacements) {
  HloSchedule::Sequence order;
  for (HloInstruction* inst : before) {
    auto it = replacements.find(inst);
    if (it == replacements.end()) {
      order.push_back(inst);
    } else {
      order.insert(order.end(), it->second.begin(), it->second.end());
    }
  }
  return order;
}

// Applies the rewrite of one computation: the old instructions removed and,
// in a scheduled module, the new ones sequenced where the old ones were (an
// unscheduled one gets them before their first users).
void Reorder(InstructionMaker& maker, HloModule& module, HloComputation& c,
             const HloSchedule::Sequence& before, const Replacements& replacements,
             const std::vector<HloInstruction*>& removed) {
  maker.Finish();
  for (HloInstruction* dead : removed) c.RemoveInstruction(dead);
  if (module.is_scheduled()) {
    module.mutable_schedule().set_sequence(c, OrderWith(before, replacements));
  }
}

// An async-start whose computation is the collective on its parameters in
// order (what the creator makes); the dedicated starts always are.
bool WrapsOnlyTheCollective(const HloInstruction& start) {
  if (start.opcode() != HloOpcode::kAsyncStart) return true;
  const HloComputation& wrapped = *start.called_computations()[0];
  const HloInstruction& op = *wrapped.root_instruction();
  if (wrapped.instruction_count() != op.operand_count() + 1) return false;
  for (int64_t i = 0; i < op.operand_count(); ++i) {
    if (op.operand(i) != wrapped.parameter_instruction(i)) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> AsyncCollectiveCreatorPass::Run(HloModule& module) {
  bool changed = false;
  // A collective an async-start already wraps is asynchronous as it is.
  const CallGraph call_graph(module);
  std::vector<HloComputation*> computations;
  for (const auto& c : module.computations()) {
    if (!c->is_fusion_computation() && !call_graph.IsCalledAs(*c, CallKind::kAsync)) {
      computations.push_back(c.get());
    }
  }
  for (HloComputation* c : computations) {
    std::vector<HloInstruction*> collectives;
    for (const auto& inst : c->instructions()) {
      if (AsyncFormOf(*inst).has_value()) collectives.push_back(inst.get());
    }
    if (collectives.empty()) continue;
    const HloSchedule::Sequence before = TextOrder(*c);
    InstructionMaker maker(module);
    Replacements replacements;
    for (HloInstruction* op : collectives) {
      const AsyncForm form = *AsyncFormOf(*op);
      std::vector<HloInstruction*> operands(op->operands().begin(), op->operands().end());
      HloInstruction* start = nullptr;
      if (form.start == HloOpcode::kAsyncStart) {
        auto wrapped = std::make_unique<HloComputation>(
            UniqueComputationName(module, absl::StrCat(op->name(), ".async_wrapped")));
        std::vector<HloInstruction*> params;
        for (int64_t i = 0; i < op->operand_count(); ++i) {
          params.push_back(maker.Parameter(*wrapped, i, *op->operand(i)));
        }
        HloInstruction* inner = maker.Clone(*wrapped, *op, params);
        wrapped->set_root_instruction(inner);
        wrapped->set_execution_thread(c->execution_thread());
        HloComputation* callee = module.AddComputationBefore(std::move(wrapped), c);
        start = maker.Add(*c, HloOpcode::kAsyncStart, StartShape(*op, form.start), operands);
        start->AppendCalledComputation(callee);
        if (!(op->metadata() == OpMetadata())) *start->mutable_metadata() = op->metadata();
      } else {
        start = maker.CloneAs(*c, *op, form.start, StartShape(*op, form.start), operands);
      }
      HloInstruction* done = maker.Add(*c, form.done, op->shape(), {start});
      if (!(op->metadata() == OpMetadata())) *done->mutable_metadata() = op->metadata();
      op->ReplaceAllUsesWith(done);
      if (op->IsRoot()) c->set_root_instruction(done);
      for (HloInstruction* pred : std::vector<HloInstruction*>(op->control_predecessors().begin(),
                                                               op->control_predecessors().end())) {
        pred->AddControlDependencyTo(start);
      }
      for (HloInstruction* succ : std::vector<HloInstruction*>(op->control_successors().begin(),
                                                               op->control_successors().end())) {
        done->AddControlDependencyTo(succ);
      }
      op->DropAllControlDeps();
      replacements[op] = {start, done};
    }
    Reorder(maker, module, *c, before, replacements, collectives);
    changed = true;
  }
  return changed;
}

absl::StatusOr<bool> ConvertAsyncCollectivesToSyncPass::Run(HloModule& module) {
  bool changed = false;
  for (const auto& computation : module.computations()) {
    HloComputation* c = computation.get();
    const HloSchedule::Sequence before = TextOrder(*c);
    // Pairs with nothing scheduled between start and done.
    std::vector<std::pair<HloInstruction*, HloInstruction*>> pairs;
    for (size_t i = 1; i < before.size(); ++i) {
      const HloInstruction* start = StartOfDone(*before[i]);
      if (start == before[i - 1] && start->opcode() != HloOpcode::kCopyStart &&
          start->user_count() == 1 && WrapsOnlyTheCollective(*start) &&
          start->control_successors().empty() && before[i]->control_predecessors().empty()) {
        pairs.push_back({before[i - 1], before[i]});
      }
    }
    if (pairs.empty()) continue;
    InstructionMaker maker(module);
    Replacements replacements;
    std::vector<HloInstruction*> removed;
    for (auto [start, done] : pairs) {
      std::vector<HloInstruction*> operands(start->operands().begin(), start->operands().end());
      const HloInstruction& op = CommunicatingInstruction(*start);
      HloOpcode sync = op.opcode();
      if (sync == HloOpcode::kAllReduceStart) sync = HloOpcode::kAllReduce;
      if (sync == HloOpcode::kAllGatherStart) sync = HloOpcode::kAllGather;
      if (sync == HloOpcode::kCollectivePermuteStart) sync = HloOpcode::kCollectivePermute;
      HloInstruction* replacement = maker.CloneAs(*c, op, sync, done->shape(), operands);
      if (!(done->metadata() == OpMetadata())) *replacement->mutable_metadata() = done->metadata();
      done->ReplaceAllUsesWith(replacement);
      if (done->IsRoot()) c->set_root_instruction(replacement);
      for (HloInstruction* pred : std::vector<HloInstruction*>(
               start->control_predecessors().begin(), start->control_predecessors().end())) {
        pred->AddControlDependencyTo(replacement);
      }
      for (HloInstruction* succ : std::vector<HloInstruction*>(done->control_successors().begin(),
                                                               done->control_successors().end())) {
        replacement->AddControlDependencyTo(succ);
      }
      start->DropAllControlDeps();
      done->DropAllControlDeps();
      replacements[start] = {};
      replacements[done] = {replacement};
      removed.push_back(done);
      removed.push_back(start);
    }
    Reorder(maker, module, *c, before, replacements, removed);
    changed = true;
  }
  // Wrapped computations nobody calls any more are left for dce.
  return changed;
}

}  // namespace xlite
