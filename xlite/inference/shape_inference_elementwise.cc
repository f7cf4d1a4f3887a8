// Elementwise opcodes: unary math, binary arithmetic, compare/select/clamp,
// conversions (convert, bitcast-convert, stochastic-convert), rng.
#include "xlite/inference/shape_inference_internal.h"

namespace xlite::inference {
namespace {

using O = HloOpcode;

// Which element kinds a unary or binary opcode accepts.
enum Accepts : uint8_t {
  kAcceptPred = 1,
  kAcceptInt = 2,
  kAcceptFloat = 4,
  kAcceptComplex = 8,
};

uint8_t AcceptedKinds(HloOpcode op) {
  switch (op) {
    case O::kAbs:
    case O::kNegate:
    case O::kSign:
    case O::kAdd:
    case O::kSubtract:
    case O::kMultiply:
    case O::kDivide:
    case O::kPower:
      return kAcceptInt | kAcceptFloat | kAcceptComplex;
    case O::kMaximum:
    case O::kMinimum:
    case O::kRemainder:
      return kAcceptPred | kAcceptInt | kAcceptFloat;
    case O::kNot:
    case O::kAnd:
    case O::kOr:
    case O::kXor:
      return kAcceptPred | kAcceptInt;
    case O::kClz:
    case O::kPopulationCount:
    case O::kShiftLeft:
    case O::kShiftRightArithmetic:
    case O::kShiftRightLogical:
    case O::kMulhi:
      return kAcceptInt;
    case O::kCeil:
    case O::kFloor:
    case O::kRoundNearestAfz:
    case O::kRoundNearestEven:
    case O::kIsFinite:
    case O::kErf:
    case O::kReducePrecision:
      return kAcceptFloat;
    case O::kReal:
    case O::kImag:
    case O::kComplex:
      return kAcceptFloat | kAcceptComplex;
    default:  // transcendental and trigonometric math, atan2
      return kAcceptFloat | kAcceptComplex;
  }
}

bool KindAccepted(HloOpcode op, PrimitiveType t) {
  uint8_t accepts = AcceptedKinds(op);
  return (IsPred(t) && (accepts & kAcceptPred)) || (IsInteger(t) && (accepts & kAcceptInt)) ||
         (IsFloat(t) && (accepts & kAcceptFloat)) || (IsComplex(t) && (accepts & kAcceptComplex));
}

absl::Status CheckKind(const HloInstruction& inst, const Shape& s) {
  PrimitiveType t = s.element_type();
  if (KindAccepted(inst.opcode(), t)) return absl::OkStatus();
  return InvalidArgument(OpcodeName(inst.opcode()), " does not accept element type ",
                         PrimitiveTypeName(t));
}

Shape WithType(const Shape& s, PrimitiveType t) {
  Shape out = s;
  out.clear_layout();
  out.set_element_type(t);
  return out;
}

absl::Status SameDims(const Shape& a, const Shape& b) {
  if (CompatibleDimensions(a, b)) return absl::OkStatus();
  return InvalidArgument("operands must have identical dimensions, got ", Str(a), " and ", Str(b));
}

absl::Status SameShape(const Shape& a, const Shape& b) {
  XLITE_RETURN_IF_ERROR(SameDims(a, b));
  if (a.element_type() == b.element_type()) return absl::OkStatus();
  return InvalidArgument("operands must have the same element type, got ", Str(a), " and ", Str(b));
}

absl::StatusOr<Shape> InferUnary(const HloInstruction& inst) {
  const Shape& x = OperandShape(inst, 0);
  if (inst.opcode() == O::kCopy) return x;
  XLITE_RETURN_IF_ERROR(ExpectArray(x, "operand"));
  XLITE_RETURN_IF_ERROR(CheckKind(inst, x));
  switch (inst.opcode()) {
    case O::kAbs:
    case O::kReal:
    case O::kImag:
      return IsComplex(x.element_type()) ? WithType(x, ComplexComponentType(x.element_type())) : x;
    case O::kIsFinite:
      return WithType(x, PrimitiveType::PRED);
    case O::kReducePrecision: {
      const auto& a = inst.attrs<ReducePrecisionAttrs>();
      if (a.exponent_bits < 1 || a.mantissa_bits < 0) {
        return InvalidArgument(
            "reduce-precision needs exponent_bits >= 1 and mantissa_bits "
            ">= 0, got ",
            a.exponent_bits, " and ", a.mantissa_bits);
      }
      return x;
    }
    default:
      return x;
  }
}

absl::StatusOr<Shape> InferBinary(const HloInstruction& inst) {
  const Shape& a = OperandShape(inst, 0);
  const Shape& b = OperandShape(inst, 1);
  XLITE_RETURN_IF_ERROR(ExpectArray(a, "operand 0"));
  XLITE_RETURN_IF_ERROR(ExpectArray(b, "operand 1"));
  XLITE_RETURN_IF_ERROR(SameShape(a, b));
  if (inst.opcode() == O::kCompare) return WithType(a, PrimitiveType::PRED);
  XLITE_RETURN_IF_ERROR(CheckKind(inst, a));
  if (inst.opcode() == O::kComplex) {
    PrimitiveType t = a.element_type();
    if (t != PrimitiveType::F32 && t != PrimitiveType::F64) {
      return InvalidArgument("complex needs f32 or f64 operands, got ", Str(a));
    }
    return WithType(a, t == PrimitiveType::F32 ? PrimitiveType::C64 : PrimitiveType::C128);
  }
  return a;
}

absl::StatusOr<Shape> InferSelect(const HloInstruction& inst) {
  const Shape& pred = OperandShape(inst, 0);
  const Shape& t = OperandShape(inst, 1);
  const Shape& f = OperandShape(inst, 2);
  XLITE_RETURN_IF_ERROR(ExpectArray(t, "on_true"));
  if (!pred.IsArray() || pred.element_type() != PrimitiveType::PRED) {
    return InvalidArgument("select predicate must be a pred array, got ", Str(pred));
  }
  XLITE_RETURN_IF_ERROR(SameShape(t, f));
  if (!pred.IsScalar()) XLITE_RETURN_IF_ERROR(SameDims(pred, t));
  return t;
}

absl::StatusOr<Shape> InferClamp(const HloInstruction& inst) {
  const Shape& lo = OperandShape(inst, 0);
  const Shape& x = OperandShape(inst, 1);
  const Shape& hi = OperandShape(inst, 2);
  XLITE_RETURN_IF_ERROR(ExpectArray(x, "clamp operand"));
  for (const Shape* bound : {&lo, &hi}) {
    XLITE_RETURN_IF_ERROR(ExpectArray(*bound, "clamp bound"));
    if (bound->IsScalar()) {
      if (bound->element_type() != x.element_type()) {
        return InvalidArgument("clamp bounds must have the operand's element type, got ",
                               Str(*bound), " and ", Str(x));
      }
    } else {
      XLITE_RETURN_IF_ERROR(SameShape(*bound, x));
    }
  }
  return x;
}

// The declared result type with the operand's dimensions, after checking the
// declared dimensions are the operand's.
absl::StatusOr<Shape> DeclaredTypeSameDims(const HloInstruction& inst, const Shape& x) {
  const Shape& out = inst.shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(out, "result"));
  XLITE_RETURN_IF_ERROR(SameDims(x, out));
  return WithType(x, out.element_type());
}

absl::StatusOr<Shape> InferConvert(const HloInstruction& inst) {
  const Shape& x = OperandShape(inst, 0);
  XLITE_RETURN_IF_ERROR(ExpectArray(x, "convert operand"));
  if (IsComplex(x.element_type()) && inst.shape().IsArray() &&
      !IsComplex(inst.shape().element_type())) {
    return InvalidArgument("convert from complex to a real type is not defined, got ", Str(x),
                           " to ", Str(inst.shape()));
  }
  return DeclaredTypeSameDims(inst, x);
}

absl::StatusOr<Shape> InferBitcastConvert(const HloInstruction& inst) {
  const Shape& x = OperandShape(inst, 0);
  const Shape& out = inst.shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(x, "bitcast-convert operand"));
  XLITE_RETURN_IF_ERROR(ExpectArray(out, "result"));
  int in_bits = BitWidth(x.element_type()), out_bits = BitWidth(out.element_type());
  if (in_bits == out_bits) return DeclaredTypeSameDims(inst, x);
  Shape expected = WithType(x, out.element_type());
  if (in_bits > out_bits) {
    // Narrower result: a new minor dimension holds the pieces of one element.
    if (in_bits % out_bits != 0) {
      return InvalidArgument("bitcast-convert widths ", in_bits, " and ", out_bits,
                             " do not divide");
    }
    DimVector dims(x.dimensions().begin(), x.dimensions().end());
    dims.push_back(in_bits / out_bits);
    expected.set_dimensions(dims);
    return expected;
  }
  if (out_bits % in_bits != 0 || x.rank() == 0 ||
      x.dimensions(x.rank() - 1) != out_bits / in_bits) {
    return InvalidArgument("bitcast-convert to a wider type needs a minor dimension of ",
                           out_bits / std::max(in_bits, 1), ", got ", Str(x));
  }
  DimVector dims(x.dimensions().begin(), x.dimensions().end() - 1);
  expected.set_dimensions(dims);
  return expected;
}

absl::StatusOr<Shape> InferStochasticConvert(const HloInstruction& inst) {
  const Shape& x = OperandShape(inst, 0);
  const Shape& bits = OperandShape(inst, 1);
  XLITE_RETURN_IF_ERROR(ExpectArray(x, "operand"));
  XLITE_RETURN_IF_ERROR(ExpectArray(bits, "random bits"));
  if (!IsFloat(x.element_type())) {
    return InvalidArgument("stochastic-convert operand must be float, got ", Str(x));
  }
  if (!IsUnsignedInt(bits.element_type()) ||
      BitWidth(bits.element_type()) != BitWidth(x.element_type())) {
    return InvalidArgument(
        "stochastic-convert random bits must be unsigned with the operand's "
        "bit width, got ",
        Str(bits), " for ", Str(x));
  }
  XLITE_RETURN_IF_ERROR(SameDims(x, bits));
  return DeclaredTypeSameDims(inst, x);
}

absl::StatusOr<Shape> InferRng(const HloInstruction& inst) {
  // Older dumps pass the result dimensions as a third, rank-1 integer operand.
  bool shape_operand = inst.operand_count() == 3 && OperandShape(inst, 2).IsArray() &&
                       OperandShape(inst, 2).rank() == 1;
  if (inst.operand_count() != 2 && !shape_operand) {
    return InvalidArgument("rng takes 2 operands (or 2 and a rank-1 shape operand), got ",
                           inst.operand_count());
  }
  const Shape& a = OperandShape(inst, 0);
  const Shape& b = OperandShape(inst, 1);
  const Shape& out = inst.shape();
  if (!a.IsScalar() || !b.IsScalar() || a.element_type() != b.element_type()) {
    return InvalidArgument("rng bounds must be scalars of one type, got ", Str(a), " and ", Str(b));
  }
  XLITE_RETURN_IF_ERROR(ExpectArray(out, "rng result"));
  if (out.element_type() != a.element_type()) {
    return InvalidArgument("rng result must have the bounds' element type ",
                           PrimitiveTypeName(a.element_type()), ", got ", Str(out));
  }
  bool normal = inst.attrs<RngAttrs>().distribution == RandomDistribution::kNormal;
  PrimitiveType t = a.element_type();
  if (normal ? !IsFloat(t) : !(IsFloat(t) || IsInteger(t))) {
    return InvalidArgument("rng distribution does not accept ", PrimitiveTypeName(t));
  }
  return out;
}

}  // namespace

bool SameTypeElementwiseHolds(const HloInstruction& inst) {
  switch (inst.opcode()) {
    // Opcodes whose result type or operand rules differ from the operands'.
    case O::kSelect:
    case O::kClamp:
    case O::kConvert:
    case O::kBitcastConvert:
    case O::kStochasticConvert:
    case O::kRng:
    case O::kCompare:
    case O::kComplex:
    case O::kAbs:
    case O::kReal:
    case O::kImag:
    case O::kIsFinite:
    case O::kReducePrecision:
    case O::kCopy:
      return false;
    default:
      break;
  }
  const int64_t count = inst.operand_count();
  if (count != OpcodeArity(inst.opcode()) || (count != 1 && count != 2)) return false;
  const AttrsKind kind = AttrsKindOf(inst.opcode());
  if (kind != AttrsKind::kNone && kind != AttrsKind::kAccuracy) return false;
  const Shape& out = inst.shape();
  const Shape& first = OperandShape(inst, 0);
  if (!out.IsArray() || !first.IsArray() || first.element_type() != out.element_type() ||
      !KindAccepted(inst.opcode(), out.element_type()) || !CompatibleDimensions(first, out)) {
    return false;
  }
  if (count == 1) return true;
  const Shape& second = OperandShape(inst, 1);
  return second.IsArray() && second.element_type() == out.element_type() &&
         CompatibleDimensions(first, second);
}

absl::StatusOr<Shape> InferElementwise(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case O::kSelect:
      return InferSelect(inst);
    case O::kClamp:
      return InferClamp(inst);
    case O::kConvert:
      return InferConvert(inst);
    case O::kBitcastConvert:
      return InferBitcastConvert(inst);
    case O::kStochasticConvert:
      return InferStochasticConvert(inst);
    case O::kRng:
      return InferRng(inst);
    default:
      break;
  }
  if (inst.operand_count() == 1) return InferUnary(inst);
  return InferBinary(inst);
}

}  // namespace xlite::inference
