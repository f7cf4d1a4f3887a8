#include "xlite/inference/shape_inference.h"

#include "xlite/inference/shape_inference_internal.h"

namespace xlite {

bool ShapesCompatible(const Shape& a, const Shape& b, bool ignore_fp_precision) {
  return inference::Compatible(a, b, ignore_fp_precision);
}

bool WrittenShapeTriviallyHolds(const HloInstruction& inst) {
  if (inst.opcode() == HloOpcode::kParameter) {
    // InferShape gives the declared shape back.
    return inst.operand_count() == 0 && inst.has_attrs();
  }
  return IsElementwiseOpcode(inst.opcode()) && inference::SameTypeElementwiseHolds(inst);
}

absl::StatusOr<Shape> InferShape(const HloInstruction& inst) {
  using O = HloOpcode;
  int64_t arity = OpcodeArity(inst.opcode());
  if (inst.opcode() == O::kDot && inst.has_attrs()) arity = DotOperandCount(inst.attrs<DotAttrs>());
  if (arity != kVariadic && inst.operand_count() != arity) {
    return InvalidArgument(OpcodeName(inst.opcode()), " takes ", arity, " operands, got ",
                           inst.operand_count());
  }
  AttrsKind kind = AttrsKindOf(inst.opcode());
  if (kind != AttrsKind::kNone && kind != AttrsKind::kAccuracy && !inst.has_attrs()) {
    return InvalidArgument(OpcodeName(inst.opcode()), " lacks its attributes");
  }
  if (IsElementwiseOpcode(inst.opcode()) || inst.opcode() == O::kBitcastConvert) {
    return inference::InferElementwise(inst);
  }
  switch (inst.opcode()) {
    case O::kBroadcast:
    case O::kReshape:
    case O::kDynamicReshape:
    case O::kTranspose:
    case O::kBitcast:
    case O::kSlice:
    case O::kDynamicSlice:
    case O::kDynamicUpdateSlice:
    case O::kConcatenate:
    case O::kPad:
    case O::kReverse:
    case O::kIota:
    case O::kGetDimensionSize:
    case O::kSetDimensionSize:
    case O::kParameter:
    case O::kConstant:
    case O::kShuffle:
    case O::kTuple:
    case O::kGetTupleElement:
      return inference::InferDataMovement(inst);
    case O::kGather:
    case O::kScatter:
      return inference::InferGatherScatter(inst);
    case O::kReduce:
    case O::kReduceWindow:
    case O::kSelectAndScatter:
    case O::kSort:
    case O::kTopK:
    case O::kMap:
    case O::kScan:
      return inference::InferReduction(inst);
    case O::kDot:
    case O::kRaggedDot:
    case O::kScaledDot:
    case O::kFft:
    case O::kTriangularSolve:
    case O::kCholesky:
    case O::kBatchNormTraining:
    case O::kBatchNormInference:
    case O::kBatchNormGrad:
      return inference::InferLinalg(inst);
    case O::kConvolution:
      return inference::InferConvolution(inst);
    case O::kCall:
    case O::kWhile:
    case O::kConditional:
    case O::kFusion:
    case O::kCustomCall:
    case O::kDomain:
    case O::kOptimizationBarrier:
    case O::kAddDependency:
    case O::kAfterAll:
    case O::kRngBitGenerator:
    case O::kRngGetAndUpdateState:
    case O::kReplicaId:
    case O::kPartitionId:
      return inference::InferControl(inst);
    case O::kAsyncStart:
    case O::kAsyncUpdate:
    case O::kAsyncDone:
    case O::kCopyStart:
    case O::kCopyDone:
    case O::kSend:
    case O::kSendDone:
    case O::kRecv:
    case O::kRecvDone:
    case O::kInfeed:
    case O::kOutfeed:
      return inference::InferAsyncAndIo(inst);
    default:
      break;
  }
  if (IsCollectiveOpcode(inst.opcode()) || inst.opcode() == O::kAllReduceDone ||
      inst.opcode() == O::kAllGatherDone || inst.opcode() == O::kCollectivePermuteDone) {
    return inference::InferCollective(inst);
  }
  return Unimplemented("shape inference of ", OpcodeName(inst.opcode()));
}

absl::StatusOr<Shape> InferOmittedShape(const HloInstruction& inst) {
  const HloOpcode op = inst.opcode();
  if (!CanOmitResultShape(op)) {
    return InvalidArgument(OpcodeName(op), " needs a result shape");
  }
  if (op == HloOpcode::kScan) return Unimplemented("inferring the result shape of scan");
  if (op == HloOpcode::kBroadcast) {
    // XLA reads the dimensions as sizes to prepend, which only names the
    // result for a scalar operand with none.
    if (inst.operand_count() != 1 || !inst.operand(0)->shape().IsScalar() ||
        !inst.dimensions().empty()) {
      return InvalidArgument(
          "a broadcast needs a result shape unless it broadcasts a scalar "
          "with dimensions={}");
    }
    Shape scalar = inst.operand(0)->shape();
    scalar.clear_layout();
    return scalar;
  }
  return InferShape(inst);
}

}  // namespace xlite
