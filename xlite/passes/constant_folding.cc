#include "xlite/passes/constant_folding.h"

#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "xlite/analysis/side_effects.h"
#include "xlite/eval/evaluator.h"
#include "xlite/passes/instruction_maker.h"

namespace xlite {
namespace {

// Opcodes never folded, wherever they appear (also inside a called
// computation): their value depends on the device, the run or other devices,
// or evaluating them can take unbounded time.
bool NeverFold(HloOpcode op) {
  switch (op) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kRng:  // random stream
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kRngBitGenerator:  // deterministic, but keeps its algorithm visible
    case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency:
    case HloOpcode::kCustomCall:  // opaque to the compiler
    case HloOpcode::kReplicaId:   // differs per device
    case HloOpcode::kPartitionId:
    case HloOpcode::kOptimizationBarrier:  // exists to block rewrites
    case HloOpcode::kDomain:
    case HloOpcode::kFft:    // XLA: evaluation may be very slow
    case HloOpcode::kWhile:  // trip count unbounded
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
      return true;
    default:
      return IsCollectiveOpcode(op) || IsAsyncOpcode(op) || IsSideEffectOpcode(op);
  }
}

// NeverFold looked up through called computations, memoised per pass.
class FoldableOracle {
 public:
  bool Foldable(const HloInstruction& inst) {
    if (NeverFold(inst.opcode())) return false;
    if (effects_.HasSideEffect(inst)) return false;
    for (const HloComputation* called : inst.called_computations()) {
      if (!ComputationFoldable(*called)) return false;
    }
    return true;
  }

 private:
  bool ComputationFoldable(const HloComputation& computation) {
    auto it = memo_.find(&computation);
    if (it != memo_.end()) return it->second;
    memo_[&computation] = true;  // call graphs are acyclic
    bool result = true;
    for (const auto& inst : computation.instructions()) {
      HloOpcode op = inst->opcode();
      // Parameters and constants are fine inside a called computation.
      if (op == HloOpcode::kParameter || op == HloOpcode::kConstant) continue;
      if (!Foldable(*inst)) {
        result = false;
        break;
      }
    }
    memo_[&computation] = result;
    return result;
  }

  SideEffectAnalysis effects_;
  absl::flat_hash_map<const HloComputation*, bool> memo_;
};

int64_t ArrayElements(const Shape& shape) { return shape.IsArray() ? shape.ElementCount() : 0; }

// Whether `inst` (its operands all non-elided constants) may be folded.
bool WorthFolding(const HloInstruction& inst) {
  const Shape& shape = inst.shape();
  // Tuple constants help no backend (XLA expands them back into tuples).
  if (!shape.IsArray() || !shape.is_static()) return false;
  // Broadcasts and iotas are compact descriptions of big values: keep them.
  if (inst.opcode() == HloOpcode::kBroadcast || inst.opcode() == HloOpcode::kIota) return false;
  if (inst.operands().empty()) return false;
  int64_t operand_elements = 0;
  for (const HloInstruction* operand : inst.operands()) {
    if (operand->opcode() != HloOpcode::kConstant) return false;
    if (operand->attrs<ConstantAttrs>().elided) return false;  // data unknown
    if (!operand->shape().is_static()) return false;
    operand_elements += ArrayElements(operand->shape());
  }
  int64_t result_elements = shape.ElementCount();
  if (std::max(result_elements, operand_elements) > ConstantFoldingPass::kMaxElements) {
    return false;
  }
  if (result_elements > operand_elements &&
      result_elements > ConstantFoldingPass::kMaxGrowthElements) {
    return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> ConstantFoldingPass::Run(HloModule& module) {
  InstructionMaker make(module);
  FoldableOracle oracle;
  // No random stream is needed: rng is never folded.
  Evaluator evaluator;
  bool changed = false;
  for (const auto& computation : module.computations()) {
    absl::flat_hash_set<HloInstruction*> folded;
    // Operands come before users, so a chain folds front to back in one scan;
    // new constants are appended, hence the snapshot.
    std::vector<HloInstruction*> order;
    for (const auto& inst : computation->instructions()) order.push_back(inst.get());
    std::vector<const Literal*> operands;
    for (HloInstruction* inst : order) {
      if (!WorthFolding(*inst) || !oracle.Foldable(*inst)) continue;
      if (!inst->control_predecessors().empty() || !inst->control_successors().empty()) continue;
      operands.clear();
      for (const HloInstruction* operand : inst->operands())
        operands.push_back(&operand->literal());
      absl::StatusOr<Literal> value = evaluator.EvaluateInstruction(*inst, operands);
      if (!value.ok()) continue;  // unsupported by the evaluator: leave it
      auto attrs = std::make_unique<ConstantAttrs>();
      attrs->literal = *std::move(value);
      HloInstruction* constant =
          make.Add(*computation, HloOpcode::kConstant, inst->shape(), {}, std::move(attrs));
      inst->ReplaceAllUsesWith(constant);
      folded.insert(inst);
    }
    if (folded.empty()) continue;
    changed = true;
    computation->RemoveInstructionsIf([&](HloInstruction* i) { return folded.contains(i); });
  }
  make.Finish();
  return changed;
}

}  // namespace xlite
