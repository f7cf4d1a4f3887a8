// Algebraic simplifier rules on elementwise arithmetic and bitwise ops:
//   add(x, 0), add(0, x), sub(x, 0), mul(x, 1), mul(1, x), div(x, 1),
//   or(x, 0), xor(x, 0), and(x, all-ones) -> x
//   mul(x, 0), and(x, 0) -> 0 and or(x, all-ones) -> all-ones (integers, pred)
//   sub(x, x) -> 0 (integers)
//   max(x, x), min(x, x), and(x, x), or(x, x) -> x
//   add(x, neg(y)) -> sub(x, y); sub(x, neg(y)) -> add(x, y)
//   mul(neg(x), neg(y)) -> mul(x, y); mul(x, -1) -> neg(x)
//   neg(neg(x)), not(not(x)) -> x
//   abs(abs(x)), abs(neg(x)) -> abs(x); floor/ceil/round of themselves -> once
//   pow(x, 1) -> x; pow(x, 0) -> 1; pow(x, 2) -> x*x; pow(x, -1) -> 1/x
#include "xlite/passes/algsimp_internal.h"

namespace xlite::algsimp {
namespace {

using O = HloOpcode;

bool IsIntegral(const HloInstruction* inst) {
  PrimitiveType t = inst->shape().element_type();
  return IsInteger(t) || IsPred(t);
}

HloInstruction* Zero(HloInstruction* like, Context& ctx) {
  return ctx.make.Splat(ctx.computation, like->shape(), 0);
}

HloInstruction* SimplifyAdd(HloInstruction* inst, Context& ctx) {
  HloInstruction* a = inst->operand(0);
  HloInstruction* b = inst->operand(1);
  if (IsUniform(b, 0)) return a;
  if (IsUniform(a, 0)) return b;
  if (b->opcode() == O::kNegate)
    return ctx.make.Binary(ctx.computation, O::kSubtract, a, b->operand(0));
  if (a->opcode() == O::kNegate)
    return ctx.make.Binary(ctx.computation, O::kSubtract, b, a->operand(0));
  return nullptr;
}

HloInstruction* SimplifySubtract(HloInstruction* inst, Context& ctx) {
  HloInstruction* a = inst->operand(0);
  HloInstruction* b = inst->operand(1);
  if (IsUniform(b, 0)) return a;
  if (a == b && IsIntegral(inst)) return Zero(inst, ctx);
  if (b->opcode() == O::kNegate) return ctx.make.Binary(ctx.computation, O::kAdd, a, b->operand(0));
  return nullptr;
}

HloInstruction* SimplifyMultiply(HloInstruction* inst, Context& ctx) {
  HloInstruction* a = inst->operand(0);
  HloInstruction* b = inst->operand(1);
  if (IsUniform(b, 1)) return a;
  if (IsUniform(a, 1)) return b;
  if (IsIntegral(inst) && (IsUniform(a, 0) || IsUniform(b, 0))) return Zero(inst, ctx);
  if (a->opcode() == O::kNegate && b->opcode() == O::kNegate) {
    return ctx.make.Binary(ctx.computation, O::kMultiply, a->operand(0), b->operand(0));
  }
  if (IsUniform(b, -1) && !IsUnsignedInt(inst->shape().element_type())) {
    return ctx.make.Unary(ctx.computation, O::kNegate, a);
  }
  return nullptr;
}

HloInstruction* SimplifyDivide(HloInstruction* inst, Context&) {
  return IsUniform(inst->operand(1), 1) ? inst->operand(0) : nullptr;
}

HloInstruction* SimplifyBitwise(HloInstruction* inst, Context& ctx) {
  HloInstruction* a = inst->operand(0);
  HloInstruction* b = inst->operand(1);
  switch (inst->opcode()) {
    case O::kAnd:
      if (a == b || IsAllOnes(b)) return a;
      if (IsAllOnes(a)) return b;
      if (IsUniform(a, 0) || IsUniform(b, 0)) return Zero(inst, ctx);
      return nullptr;
    case O::kOr:
      if (a == b || IsUniform(b, 0)) return a;
      if (IsUniform(a, 0)) return b;
      if (IsAllOnes(a)) return a;
      if (IsAllOnes(b)) return b;
      return nullptr;
    default:  // xor
      if (IsUniform(b, 0)) return a;
      if (IsUniform(a, 0)) return b;
      return nullptr;
  }
}

HloInstruction* SimplifyMinMax(HloInstruction* inst, Context&) {
  return inst->operand(0) == inst->operand(1) ? inst->operand(0) : nullptr;
}

// f(f(x)) -> f(x) for idempotent f; neg/not pairs cancel.
HloInstruction* SimplifyUnary(HloInstruction* inst, Context& ctx) {
  HloInstruction* x = inst->operand(0);
  switch (inst->opcode()) {
    case O::kNegate:
    case O::kNot:
      return x->opcode() == inst->opcode() ? x->operand(0) : nullptr;
    case O::kAbs:
      if (x->opcode() == O::kAbs) return x;
      if (x->opcode() == O::kNegate) return ctx.make.Unary(ctx.computation, O::kAbs, x->operand(0));
      return nullptr;
    default:  // floor, ceil, round-nearest-*
      return x->opcode() == inst->opcode() ? x : nullptr;
  }
}

HloInstruction* SimplifyPower(HloInstruction* inst, Context& ctx) {
  HloInstruction* x = inst->operand(0);
  std::optional<double> e = UniformValue(inst->operand(1));
  if (!e.has_value() || !IsFloat(inst->shape().element_type())) return nullptr;
  if (*e == 1) return x;
  if (*e == 0) return ctx.make.Splat(ctx.computation, inst->shape(), 1);
  if (*e == 2) return ctx.make.Binary(ctx.computation, O::kMultiply, x, x);
  if (*e == -1) {
    return ctx.make.Binary(ctx.computation, O::kDivide,
                           ctx.make.Splat(ctx.computation, inst->shape(), 1), x);
  }
  return nullptr;
}

}  // namespace

HloInstruction* SimplifyArithmetic(HloInstruction* inst, Context& ctx) {
  switch (inst->opcode()) {
    case O::kAdd:
      return SimplifyAdd(inst, ctx);
    case O::kSubtract:
      return SimplifySubtract(inst, ctx);
    case O::kMultiply:
      return SimplifyMultiply(inst, ctx);
    case O::kDivide:
      return SimplifyDivide(inst, ctx);
    case O::kAnd:
    case O::kOr:
    case O::kXor:
      return SimplifyBitwise(inst, ctx);
    case O::kMaximum:
    case O::kMinimum:
      return SimplifyMinMax(inst, ctx);
    case O::kNegate:
    case O::kNot:
    case O::kAbs:
    case O::kFloor:
    case O::kCeil:
    case O::kRoundNearestAfz:
    case O::kRoundNearestEven:
      return SimplifyUnary(inst, ctx);
    case O::kPower:
      return SimplifyPower(inst, ctx);
    default:
      return nullptr;
  }
}

}  // namespace xlite::algsimp
