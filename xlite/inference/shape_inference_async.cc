// Asynchronous pairs and host/peer transfer: async-start/update/done,
// copy-start/done, send/recv and their -done forms, infeed and outfeed.
#include "xlite/inference/shape_inference_internal.h"

namespace xlite::inference {
namespace {

using O = HloOpcode;

absl::Status ExpectTupleOf(const Shape& s, int64_t min_size, absl::string_view what) {
  if (s.IsTuple() && s.tuple_size() >= min_size) return absl::OkStatus();
  return InvalidArgument(what, " must be a tuple of at least ", min_size, " elements, got ",
                         Str(s));
}

absl::StatusOr<Shape> InferAsyncStart(const HloInstruction& inst) {
  const Shape& out = inst.shape();
  XLITE_RETURN_IF_ERROR(ExpectTupleOf(out, 2, "async-start result"));
  const Shape& operands = out.tuple_shapes(0);
  std::vector<Shape> operand_shapes;
  for (const HloInstruction* op : inst.operands()) operand_shapes.push_back(op->shape());
  Shape expected = Shape::Tuple(operand_shapes);
  if (!Compatible(operands, expected)) {
    return InvalidArgument("async-start result element 0 must be the operands ", Str(expected),
                           ", got ", Str(operands));
  }
  XLITE_ASSIGN_OR_RETURN(const HloComputation* comp, Called(inst, 0, "async wrapped"));
  XLITE_RETURN_IF_ERROR(
      CheckSignature(comp, "async wrapped", operand_shapes, &out.tuple_shapes(1)));
  return out;
}

absl::StatusOr<Shape> InferAsyncUpdateOrDone(const HloInstruction& inst) {
  if (inst.operand_count() != 1) {
    return InvalidArgument(OpcodeName(inst.opcode()), " takes 1 operand, got ",
                           inst.operand_count());
  }
  const Shape& start = OperandShape(inst, 0);
  XLITE_RETURN_IF_ERROR(ExpectTupleOf(start, 2, "async operand"));
  if (inst.opcode() == O::kAsyncUpdate) return start;
  return start.tuple_shapes(1);
}

absl::StatusOr<Shape> InferCopyStart(const HloInstruction& inst) {
  const Shape& x = OperandShape(inst, 0);
  const Shape& out = inst.shape();
  XLITE_RETURN_IF_ERROR(ExpectTupleOf(out, 2, "copy-start result"));
  if (!Compatible(out.tuple_shapes(0), x) || !Compatible(out.tuple_shapes(1), x)) {
    return InvalidArgument("copy-start result must be (", Str(x), ", ", Str(x), ", context), got ",
                           Str(out));
  }
  return out;
}

// send and recv carry (data, u32[] context, token[]).
absl::Status CheckTransferTuple(const Shape& s, absl::string_view what) {
  XLITE_RETURN_IF_ERROR(ExpectTupleOf(s, 3, what));
  if (s.tuple_size() != 3 || !Compatible(s.tuple_shapes(1), Shape::Scalar(PrimitiveType::U32)) ||
      !s.tuple_shapes(2).IsToken()) {
    return InvalidArgument(what, " must be (data, u32[], token[]), got ", Str(s));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferFeed(const HloInstruction& inst) {
  const Shape& token = OperandShape(inst, inst.opcode() == O::kInfeed ? 0 : 1);
  if (!token.IsToken()) {
    return InvalidArgument(OpcodeName(inst.opcode()), " needs a token operand, got ", Str(token));
  }
  if (inst.opcode() == O::kOutfeed) {
    const auto& a = inst.attrs<FeedAttrs>();
    if (a.outfeed_shape.has_value() && !Compatible(*a.outfeed_shape, OperandShape(inst, 0))) {
      return InvalidArgument("outfeed_shape ", Str(*a.outfeed_shape), " does not match the data ",
                             Str(OperandShape(inst, 0)));
    }
    return Shape::Token();
  }
  const Shape& out = inst.shape();
  if (!out.IsTuple() || out.tuple_size() != 2 || !out.tuple_shapes(1).IsToken()) {
    return InvalidArgument("infeed result must be (data, token[]), got ", Str(out));
  }
  return out;
}

}  // namespace

absl::StatusOr<Shape> InferAsyncAndIo(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case O::kAsyncStart:
      return InferAsyncStart(inst);
    case O::kAsyncUpdate:
    case O::kAsyncDone:
      return InferAsyncUpdateOrDone(inst);
    case O::kCopyStart:
      return InferCopyStart(inst);
    case O::kCopyDone:
      XLITE_RETURN_IF_ERROR(ExpectTupleOf(OperandShape(inst, 0), 2, "copy-done operand"));
      return OperandShape(inst, 0).tuple_shapes(0);
    case O::kSend: {
      if (!OperandShape(inst, 1).IsToken()) {
        return InvalidArgument("send operand 1 must be a token, got ", Str(OperandShape(inst, 1)));
      }
      return Shape::Tuple(
          {OperandShape(inst, 0), Shape::Scalar(PrimitiveType::U32), Shape::Token()});
    }
    case O::kRecv:
      if (!OperandShape(inst, 0).IsToken()) {
        return InvalidArgument("recv operand must be a token, got ", Str(OperandShape(inst, 0)));
      }
      XLITE_RETURN_IF_ERROR(CheckTransferTuple(inst.shape(), "recv result"));
      return inst.shape();
    case O::kSendDone:
      XLITE_RETURN_IF_ERROR(CheckTransferTuple(OperandShape(inst, 0), "send-done operand"));
      return Shape::Token();
    case O::kRecvDone:
      XLITE_RETURN_IF_ERROR(CheckTransferTuple(OperandShape(inst, 0), "recv-done operand"));
      return Shape::Tuple({OperandShape(inst, 0).tuple_shapes(0), Shape::Token()});
    default:
      return InferFeed(inst);
  }
}

}  // namespace xlite::inference
