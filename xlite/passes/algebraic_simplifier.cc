#include "xlite/passes/algebraic_simplifier.h"

#include <cmath>
#include <vector>

#include "xlite/passes/algsimp_internal.h"

namespace xlite {
namespace algsimp {

std::optional<double> UniformValue(const HloInstruction* inst) {
  while (inst->opcode() == HloOpcode::kBroadcast || inst->opcode() == HloOpcode::kReshape) {
    inst = inst->operand(0);
  }
  if (inst->opcode() != HloOpcode::kConstant || inst->attrs<ConstantAttrs>().elided ||
      !inst->shape().IsArray()) {
    return std::nullopt;
  }
  const Literal& literal = inst->literal();
  int64_t n = literal.element_count();
  if (n == 0) return std::nullopt;
  bool complex = IsComplex(inst->shape().element_type());
  double first = literal.GetDouble(0);
  for (int64_t i = 0; i < n; ++i) {
    if (complex && literal.GetComplex(i).imag() != 0) return std::nullopt;
    double v = literal.GetDouble(i);
    // Bit-level sameness: 0 and -0 differ, NaN never counts as uniform.
    if (!(v == first) || std::signbit(v) != std::signbit(first)) return std::nullopt;
  }
  return first;
}

bool IsUniform(const HloInstruction* inst, double value) {
  std::optional<double> v = UniformValue(inst);
  return v.has_value() && *v == value && std::signbit(*v) == std::signbit(value);
}

bool IsAllOnes(const HloInstruction* inst) {
  PrimitiveType t = inst->shape().element_type();
  if (IsPred(t)) return IsUniform(inst, 1);
  if (!IsInteger(t)) return false;
  while (inst->opcode() == HloOpcode::kBroadcast || inst->opcode() == HloOpcode::kReshape) {
    inst = inst->operand(0);
  }
  if (inst->opcode() != HloOpcode::kConstant || inst->attrs<ConstantAttrs>().elided) return false;
  // GetInt64 gives the bit pattern: -1 for signed, the low-bit mask unsigned.
  int bits = BitWidth(t);
  int64_t ones =
      IsSignedInt(t) || bits >= 64 ? -1 : static_cast<int64_t>((uint64_t{1} << bits) - 1);
  const Literal& literal = inst->literal();
  if (literal.element_count() == 0) return false;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    if (literal.GetInt64(i) != ones) return false;
  }
  return true;
}

bool SameArrayShape(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.element_type() == b.element_type() &&
         a.dimensions() == b.dimensions();
}

}  // namespace algsimp

absl::StatusOr<bool> AlgebraicSimplifierPass::Run(HloModule& module) {
  InstructionMaker make(module);
  bool changed = false;
  for (const auto& computation : module.computations()) {
    algsimp::Context ctx{make, *computation};
    for (HloInstruction* inst : computation->MakeInstructionPostOrder()) {
      // Dead values are dce's: rewriting them would "change" forever.
      if (inst->user_count() == 0 && !inst->IsRoot()) continue;
      if (!inst->shape().IsArray()) continue;
      HloInstruction* replacement = algsimp::SimplifyArithmetic(inst, ctx);
      if (replacement == nullptr) replacement = algsimp::SimplifyShapes(inst, ctx);
      if (replacement == nullptr) replacement = algsimp::SimplifyOther(inst, ctx);
      if (replacement == nullptr || replacement == inst) continue;
      if (!algsimp::SameArrayShape(replacement->shape(), inst->shape())) continue;
      inst->ReplaceAllUsesWith(replacement);
      changed = true;
    }
  }
  make.Finish();
  return changed;
}

}  // namespace xlite
