#include "xlite/backends/cpu/elemental_support.h"

#include "xlite/analysis/reduction_kind.h"
#include "xlite/backends/cpu/kernel_emitter.h"
#include "xlite/ir/computation.h"

namespace xlite::cpu {

using O = HloOpcode;
using P = PrimitiveType;

const absl::flat_hash_map<O, LibmNames>& LibmCalls() {
  static const auto* calls = new absl::flat_hash_map<O, LibmNames>{
      {O::kExp, {"expf", "exp"}},       {O::kExpm1, {"expm1f", "expm1"}},
      {O::kLog, {"logf", "log"}},       {O::kLog1p, {"log1pf", "log1p"}},
      {O::kTanh, {"tanhf", "tanh"}},    {O::kSin, {"sinf", "sin"}},
      {O::kCos, {"cosf", "cos"}},       {O::kTan, {"tanf", "tan"}},
      {O::kCbrt, {"cbrtf", "cbrt"}},    {O::kErf, {"erff", "erf"}},
      {O::kAtan2, {"atan2f", "atan2"}}, {O::kPower, {"powf", "pow"}},
      {O::kAtan, {"atanf", "atan"}},    {O::kSinh, {"sinhf", "sinh"}},
      {O::kCosh, {"coshf", "cosh"}},
  };
  return *calls;
}

namespace {

bool IsSupportedType(P t) {
  switch (t) {
    case P::PRED:
    case P::S8:
    case P::S16:
    case P::S32:
    case P::S64:
    case P::U8:
    case P::U16:
    case P::U32:
    case P::U64:
    case P::BF16:
    case P::F32:
    case P::F64:
      return true;
    default:
      return false;
  }
}

bool IsSupportedArray(const Shape& shape) {
  return shape.IsArray() && shape.is_static() && IsSupportedType(shape.element_type());
}

enum TypeClass : uint8_t { kPredClass = 1, kIntClass = 2, kFloatClass = 4 };
uint8_t ClassOf(P t) {
  if (t == P::PRED) return kPredClass;
  return IsFloat(t) ? kFloatClass : kIntClass;
}

// Elementwise opcodes the emitter computes, by the operand type classes each
// covers (convert and compare are handled on their own).
const absl::flat_hash_map<O, uint8_t>& ElementwiseTable() {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<O, uint8_t>{
        {O::kAdd, kIntClass | kFloatClass},
        {O::kSubtract, kIntClass | kFloatClass},
        {O::kMultiply, kIntClass | kFloatClass},
        {O::kDivide, kIntClass | kFloatClass},
        {O::kRemainder, kIntClass | kFloatClass},
        {O::kMaximum, kIntClass | kFloatClass},
        {O::kMinimum, kIntClass | kFloatClass},
        {O::kNegate, kIntClass | kFloatClass},
        {O::kAbs, kIntClass | kFloatClass},
        {O::kSign, kIntClass | kFloatClass},
        {O::kClamp, kIntClass | kFloatClass},
        {O::kSqrt, kFloatClass},
        {O::kRsqrt, kFloatClass},
        {O::kLogistic, kFloatClass},
        {O::kFloor, kFloatClass},
        {O::kCeil, kFloatClass},
        {O::kRoundNearestEven, kFloatClass},
        {O::kRoundNearestAfz, kFloatClass},
        {O::kIsFinite, kFloatClass},
        {O::kAnd, kPredClass | kIntClass},
        {O::kOr, kPredClass | kIntClass},
        {O::kXor, kPredClass | kIntClass},
        {O::kNot, kPredClass | kIntClass},
        {O::kShiftLeft, kIntClass},
        {O::kShiftRightLogical, kIntClass},
        {O::kShiftRightArithmetic, kIntClass},
        {O::kSelect, kPredClass | kIntClass | kFloatClass},
        {O::kCopy, kPredClass | kIntClass | kFloatClass},
    };
    for (const auto& [op, names] : LibmCalls()) (*t)[op] = kFloatClass;
    return t;
  }();
  return *table;
}

// Data movement and leaves, any supported type.
bool IsIndexingOp(O op) {
  switch (op) {
    case O::kBroadcast:
    case O::kReshape:
    case O::kTranspose:
    case O::kSlice:
    case O::kReverse:
    case O::kConvert:
      return true;
    default:
      return false;
  }
}

bool IsSupportedCompare(const HloInstruction& inst) {
  const P t = inst.operand(0)->shape().element_type();
  const ComparisonType type = inst.attrs<CompareAttrs>().type.value_or(DefaultComparisonType(t));
  if (IsFloat(t)) return type == ComparisonType::kFloat;
  // Integers compare by their comparison type; pred as unsigned 0/1.
  return type == ComparisonType::kSigned || type == ComparisonType::kUnsigned;
}

}  // namespace

bool IsElementalSupported(const HloInstruction& inst) {
  if (!IsSupportedArray(inst.shape())) return false;
  for (const HloInstruction* op : inst.operands()) {
    if (!IsSupportedArray(op->shape())) return false;
  }
  const O op = inst.opcode();
  if (op == O::kConstant) return inst.shape().ElementCount() <= kMaxFusedConstantElements;
  const P type = inst.shape().element_type();
  // bf16 is computed as f32 and rounded once; a value that f32 cannot hold
  // exactly (a large integer, an f64) would be rounded twice, so those
  // converts and bf16 iotas stay in the evaluator.
  if (op == O::kIota) return type != P::PRED && type != P::BF16;
  if (op == O::kConvert && type == P::BF16) {
    const P from = inst.operand(0)->shape().element_type();
    return from == P::BF16 || from == P::F32 || from == P::PRED || StorageBytes(from) <= 2;
  }
  if (op == O::kCompare) return IsSupportedCompare(inst);
  if (op == O::kBitcastConvert) {
    // Same width, no pred or bf16: the bits reinterpreted in place.
    const P from = inst.operand(0)->shape().element_type();
    return from != P::PRED && type != P::PRED && from != P::BF16 && type != P::BF16 &&
           StorageBytes(from) == StorageBytes(type) &&
           inst.operand(0)->shape().dimensions() == inst.shape().dimensions();
  }
  if (IsIndexingOp(op)) return true;
  // Each output element reads every concatenated operand (clamped), so only
  // a few of them.
  if (op == O::kConcatenate) return inst.operand_count() <= kMaxConcatenateOperands;
  if (op == O::kPad || op == O::kDynamicSlice) return true;
  auto found = ElementwiseTable().find(op);
  if (found == ElementwiseTable().end() || inst.operand_count() == 0) return false;
  // select's class is that of its value operands.
  const P t = inst.operand(op == O::kSelect ? 1 : 0)->shape().element_type();
  return (found->second & ClassOf(t)) != 0;
}

bool IsReduceSupported(const HloInstruction& inst) {
  if (inst.opcode() != O::kReduce || inst.operand_count() != 2 || !IsSupportedArray(inst.shape()) ||
      !IsSupportedArray(inst.operand(0)->shape()) || !IsSupportedArray(inst.operand(1)->shape())) {
    return false;
  }
  // The evaluator rounds a bf16 accumulator after every step; reduces here
  // accumulate in the loop order (or reassociated), so bf16 stays there.
  if (inst.shape().element_type() == P::BF16) return false;
  std::optional<ReductionKind> kind = MatchReductionKind(*inst.to_apply());
  if (!kind) return false;
  auto found = ElementwiseTable().find(ReductionOpcode(*kind));
  return found != ElementwiseTable().end() &&
         (found->second & ClassOf(inst.shape().element_type())) != 0;
}

}  // namespace xlite::cpu
