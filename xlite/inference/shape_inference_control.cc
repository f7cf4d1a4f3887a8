// Control flow and calls (call, while, conditional, fusion, custom-call),
// identity-like ops (domain, opt-barrier, add-dependency), tokens, device ids
// and the stateful random-number ops.
#include "xlite/inference/shape_inference_internal.h"

namespace xlite::inference {
namespace {

using O = HloOpcode;

// A callee taking the operands: call and fusion.
absl::StatusOr<Shape> InferCallLike(const HloInstruction& inst, absl::string_view role) {
  XLITE_ASSIGN_OR_RETURN(const HloComputation* comp, Called(inst, 0, role));
  XLITE_RETURN_IF_ERROR(CheckTakesOperands(comp, role, inst));
  return RootShape(comp);
}

absl::StatusOr<Shape> InferWhile(const HloInstruction& inst) {
  const Shape& init = OperandShape(inst, 0);
  XLITE_ASSIGN_OR_RETURN(const HloComputation* cond, Called(inst, 0, "condition"));
  XLITE_ASSIGN_OR_RETURN(const HloComputation* body, Called(inst, 1, "body"));
  Shape pred = Shape::Scalar(PrimitiveType::PRED);
  XLITE_RETURN_IF_ERROR(CheckSignature(cond, "condition", {init}, &pred));
  XLITE_RETURN_IF_ERROR(CheckSignature(body, "body", {init}, &init));
  return init;
}

absl::StatusOr<Shape> InferConditional(const HloInstruction& inst) {
  if (inst.operand_count() < 1) return InvalidArgument("conditional needs an index operand");
  const Shape& index = OperandShape(inst, 0);
  size_t branches = inst.called_computations().size();
  bool is_pred = index.IsScalar() && index.element_type() == PrimitiveType::PRED;
  bool is_s32 = index.IsScalar() && index.element_type() == PrimitiveType::S32;
  if (!is_pred && !is_s32) {
    return InvalidArgument("conditional index must be pred[] or s32[], got ", Str(index));
  }
  if (is_pred && branches != 2) {
    return InvalidArgument("a pred conditional needs 2 branches, got ", branches);
  }
  if (branches < 1) return InvalidArgument("conditional needs at least one branch");
  if (inst.operand_count() != static_cast<int64_t>(branches) + 1) {
    return InvalidArgument("conditional with ", branches, " branches needs ", branches + 1,
                           " operands, got ", inst.operand_count());
  }
  Shape result;
  for (size_t k = 0; k < branches; ++k) {
    XLITE_ASSIGN_OR_RETURN(const HloComputation* branch, Called(inst, k, "branch"));
    XLITE_RETURN_IF_ERROR(
        CheckSignature(branch, "branch", {OperandShape(inst, k + 1)}, k == 0 ? nullptr : &result));
    if (k == 0) {
      XLITE_ASSIGN_OR_RETURN(result, RootShape(branch));
    }
  }
  return result;
}

absl::StatusOr<Shape> InferCustomCall(const HloInstruction& inst) {
  const auto& a = inst.attrs<CustomCallAttrs>();
  if (a.operand_layout_constraints.has_value()) {
    const std::vector<Shape>& layouts = *a.operand_layout_constraints;
    if (static_cast<int64_t>(layouts.size()) != inst.operand_count()) {
      return InvalidArgument("operand_layout_constraints has ", layouts.size(), " shapes for ",
                             inst.operand_count(), " operands");
    }
    for (size_t i = 0; i < layouts.size(); ++i) {
      if (!Compatible(layouts[i], OperandShape(inst, i))) {
        return InvalidArgument("operand_layout_constraints shape ", Str(layouts[i]),
                               " does not match operand ", i, " ", Str(OperandShape(inst, i)));
      }
    }
  }
  for (const OutputOperandAlias& alias : a.output_to_operand_aliasing) {
    if (alias.operand < 0 || alias.operand >= inst.operand_count()) {
      return InvalidArgument("output_to_operand_aliasing names operand ", alias.operand, " of ",
                             inst.operand_count());
    }
    const Shape* out = ShapeAtIndex(inst.shape(), alias.output_index);
    const Shape* in = ShapeAtIndex(OperandShape(inst, alias.operand), alias.operand_index);
    if (out == nullptr || in == nullptr || !Compatible(*out, *in)) {
      return InvalidArgument("output_to_operand_aliasing pairs shapes that do not match");
    }
  }
  return inst.shape();
}

absl::StatusOr<Shape> InferRngBitGenerator(const HloInstruction& inst) {
  const Shape& state = OperandShape(inst, 0);
  const Shape& out = inst.shape();
  XLITE_RETURN_IF_ERROR(ExpectArray(state, "rng-bit-generator state"));
  if (!out.IsTuple() || out.tuple_size() != 2 || !Compatible(out.tuple_shapes(0), state) ||
      !out.tuple_shapes(1).IsArray()) {
    return InvalidArgument("rng-bit-generator result must be (", Str(state), ", bits array), got ",
                           Str(out));
  }
  return out;
}

}  // namespace

absl::StatusOr<Shape> InferControl(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case O::kCall:
      return InferCallLike(inst, "to_apply");
    case O::kFusion:
      return InferCallLike(inst, "fused");
    case O::kWhile:
      return InferWhile(inst);
    case O::kConditional:
      return InferConditional(inst);
    case O::kCustomCall:
      return InferCustomCall(inst);
    case O::kDomain:
    case O::kOptimizationBarrier:
      return OperandShape(inst, 0);
    case O::kAddDependency:
      if (!OperandShape(inst, 1).IsToken()) {
        return InvalidArgument("add-dependency operand 1 must be a token, got ",
                               Str(OperandShape(inst, 1)));
      }
      return OperandShape(inst, 0);
    case O::kAfterAll:
      // Any operands: XLA's verifier orders after values as well as tokens.
      return Shape::Token();
    case O::kRngBitGenerator:
      return InferRngBitGenerator(inst);
    case O::kReplicaId:
    case O::kPartitionId:
      return Shape::Scalar(PrimitiveType::U32);
    default:  // rng-get-and-update-state: declared
      return inst.shape();
  }
}

}  // namespace xlite::inference
