#include "xlite/passes/reshape_mover.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xlite/passes/instruction_maker.h"

namespace xlite {
namespace {

using O = HloOpcode;

bool SameDims(const Shape& a, const Shape& b) {
  return std::equal(a.dimensions().begin(), a.dimensions().end(), b.dimensions().begin(),
                    b.dimensions().end());
}

bool IsStaticArray(const Shape& shape) { return shape.IsArray() && shape.is_static(); }

bool HasControlDeps(const HloInstruction& i) {
  return !i.control_predecessors().empty() || !i.control_successors().empty();
}

bool IsRearrange(const HloInstruction& i) {
  return (i.opcode() == O::kReshape || i.opcode() == O::kTranspose) && !i.has_sharding() &&
         !HasControlDeps(i) && IsStaticArray(i.operand(0)->shape());
}

// Values that any reshape or transpose leaves as they are, so they can be
// rebuilt in any shape at no cost.
bool IsTriviallyRearrangeable(const HloInstruction& i) {
  if (i.opcode() == O::kConstant) return i.shape().IsArray() && i.literal().element_count() == 1;
  return i.opcode() == O::kBroadcast && i.operand(0)->shape().IsScalar();
}

bool Equivalent(const HloInstruction& a, const HloInstruction& b) {
  if (a.opcode() != b.opcode() || !SameDims(a.operand(0)->shape(), b.operand(0)->shape())) {
    return false;
  }
  return a.opcode() == O::kReshape || a.dimensions() == b.dimensions();
}

// The rearrange to move below `op`, or nullptr when the rules (see the
// header) do not allow it.
const HloInstruction* MovableRearrange(const HloInstruction& op) {
  if (!IsElementwiseOpcode(op.opcode()) || op.operand_count() == 0 || op.HasSideEffectNoRecurse() ||
      op.has_sharding() || HasControlDeps(op) ||
      !op.called_computations().empty() ||  // map: its dimensions= follow the rank
      !IsStaticArray(op.shape())) {
    return nullptr;
  }
  const HloInstruction* first = nullptr;
  for (const HloInstruction* operand : op.operands()) {
    if (!SameDims(operand->shape(), op.shape())) return nullptr;
    if (first == nullptr && IsRearrange(*operand) &&
        !IsTriviallyRearrangeable(*operand->operand(0))) {
      first = operand;
    }
  }
  if (first == nullptr) return nullptr;
  for (const HloInstruction* operand : op.operands()) {
    if (IsTriviallyRearrangeable(*operand)) continue;
    if (!IsRearrange(*operand) || !Equivalent(*operand, *first)) return nullptr;
    // Each distinct rearrange operand must die with the move; `add(r, r)`
    // lists the op once among r's users.
    if (operand->user_count() != 1 || operand->IsRoot()) return nullptr;
  }
  return first;
}

// `operand` of the op, as the op will see it in the rearrange's input shape.
HloInstruction* InInputShape(InstructionMaker& make, HloComputation& c, HloInstruction* operand,
                             const Shape& input) {
  if (!IsTriviallyRearrangeable(*operand)) return operand->operand(0);
  Shape shape(operand->shape().element_type(), input.dimensions());
  if (operand->opcode() == O::kBroadcast) return make.Broadcast(c, operand->operand(0), shape, {});
  Literal literal(shape);  // one element, as the constant has
  const absl::Span<const uint8_t> bytes = operand->literal().raw_data();
  std::copy(bytes.begin(), bytes.end(), literal.mutable_raw_data().begin());
  return make.Constant(c, std::move(literal));
}

}  // namespace

absl::StatusOr<bool> ReshapeMoverPass::Run(HloModule& module) {
  InstructionMaker make(module);
  bool changed = false;
  for (const auto& computation : module.computations()) {
    HloComputation& c = *computation;
    absl::flat_hash_set<const HloInstruction*> dead;
    for (HloInstruction* op : c.MakeInstructionPostOrder()) {
      const HloInstruction* rearrange = MovableRearrange(*op);
      if (rearrange == nullptr) continue;
      const Shape& input = rearrange->operand(0)->shape();
      std::vector<HloInstruction*> operands;
      for (HloInstruction* operand : op->operands()) {
        operands.push_back(InInputShape(make, c, operand, input));
      }
      HloInstruction* moved = make.Clone(c, *op, operands);
      *moved->mutable_shape() = Shape(op->shape().element_type(), input.dimensions());
      HloInstruction* after = make.Add(c, rearrange->opcode(), op->shape(), {moved});
      if (rearrange->opcode() == O::kTranspose) after->set_dimensions(rearrange->dimensions());
      op->ReplaceAllUsesWith(after);
      dead.insert(op);
      for (const HloInstruction* operand : op->operands()) {
        if (operand->user_count() == 1 && !operand->IsRoot() && !HasControlDeps(*operand)) {
          dead.insert(operand);
        }
      }
      changed = true;
    }
    // The replaced ops and the operands that fed only them are now unused.
    if (!dead.empty()) {
      c.RemoveInstructionsIf([&](const HloInstruction* i) { return dead.contains(i); });
    }
  }
  make.Finish();
  return changed;
}

}  // namespace xlite
