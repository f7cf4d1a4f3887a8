// Structural and control-flow opcodes: constants, tuples, calls, fusions,
// while, conditional, async wrappers, copies, tokens and the device ids.
#include "absl/strings/str_cat.h"
#include "xlite/base/status.h"
#include "xlite/eval/op_handlers.h"
#include "xlite/ir/computation.h"

namespace xlite::eval {
namespace {

using Operands = absl::Span<const Literal* const>;
using O = HloOpcode;

absl::StatusOr<Literal> Constant(const HloInstruction& inst, Operands, EvalContext&) {
  if (inst.attrs<ConstantAttrs>().elided) {
    return InvalidArgument(
        "the constant's data is elided ({...}); fill it first "
        "(xlite run does so from --random's seed)");
  }
  return inst.literal();
}

absl::StatusOr<Literal> Tuple(const HloInstruction&, Operands operands, EvalContext&) {
  std::vector<Literal> elements;
  elements.reserve(operands.size());
  for (const Literal* l : operands) elements.push_back(*l);
  return Literal::Tuple(std::move(elements));
}

absl::StatusOr<Literal> GetTupleElement(const HloInstruction& inst, Operands operands,
                                        EvalContext&) {
  return operands[0]->tuple_elements()[inst.tuple_index()];
}

// call, fusion: the called computation on the operands.
absl::StatusOr<Literal> CallComputation(const HloInstruction& inst, Operands operands,
                                        EvalContext& ctx) {
  return ctx.Call(*inst.to_apply(), operands);
}

absl::StatusOr<Literal> While(const HloInstruction& inst, Operands operands, EvalContext& ctx) {
  const HloComputation& condition = *inst.called_computations()[0];
  const HloComputation& body = *inst.called_computations()[1];
  Literal state = *operands[0];
  while (true) {
    const Literal* arg = &state;
    XLITE_ASSIGN_OR_RETURN(Literal go, ctx.Call(condition, {&arg, 1}));
    if (go.GetInt64(0) == 0) return state;
    XLITE_ASSIGN_OR_RETURN(state, ctx.Call(body, {&arg, 1}));
  }
}

// A pred selects branch 0 (true) or 1 (false); an s32 index selects that
// branch, and an index out of range the last one.
absl::StatusOr<Literal> Conditional(const HloInstruction& inst, Operands operands,
                                    EvalContext& ctx) {
  const auto& branches = inst.called_computations();
  int64_t selector = operands[0]->GetInt64(0);
  int64_t branch;
  if (operands[0]->shape().element_type() == PrimitiveType::PRED) {
    branch = selector != 0 ? 0 : 1;
  } else {
    int64_t n = static_cast<int64_t>(branches.size());
    branch = selector < 0 || selector >= n ? n - 1 : selector;
  }
  return ctx.Call(*branches[branch], {&operands[branch + 1], 1});
}

// async-start runs the wrapped computation at once; its value is
// ((operands...), result, contexts...), contexts zero.
absl::StatusOr<Literal> AsyncStart(const HloInstruction& inst, Operands operands,
                                   EvalContext& ctx) {
  XLITE_ASSIGN_OR_RETURN(Literal result, ctx.Call(*inst.to_apply(), operands));
  const Shape& shape = inst.shape();
  std::vector<Literal> inputs;
  for (const Literal* l : operands) inputs.push_back(*l);
  std::vector<Literal> elements;
  elements.push_back(Literal::Tuple(std::move(inputs)));
  elements.push_back(std::move(result));
  for (int64_t i = 2; i < shape.tuple_size(); ++i) elements.emplace_back(shape.tuple_shapes(i));
  return Literal::Tuple(std::move(elements));
}

absl::StatusOr<Literal> AsyncDone(const HloInstruction&, Operands operands, EvalContext&) {
  return operands[0]->tuple_elements()[1];
}

// copy-start: (destination, source, context); copy-done takes the destination.
absl::StatusOr<Literal> CopyStart(const HloInstruction& inst, Operands operands, EvalContext&) {
  std::vector<Literal> elements = {*operands[0], *operands[0]};
  for (int64_t i = 2; i < inst.shape().tuple_size(); ++i) {
    elements.emplace_back(inst.shape().tuple_shapes(i));
  }
  return Literal::Tuple(std::move(elements));
}

absl::StatusOr<Literal> FirstTupleElement(const HloInstruction&, Operands operands, EvalContext&) {
  return operands[0]->tuple_elements()[0];
}

// copy, opt-barrier, add-dependency, async-update, domain: operand 0 as is.
absl::StatusOr<Literal> Identity(const HloInstruction&, Operands operands, EvalContext&) {
  return *operands[0];
}

absl::StatusOr<Literal> Token(const HloInstruction&, Operands, EvalContext&) {
  return Literal(Shape::Token());
}

absl::StatusOr<Literal> DeviceId(const HloInstruction& inst, Operands, EvalContext& ctx) {
  Literal id(Shape::Scalar(PrimitiveType::U32));
  id.SetInt64(
      0, inst.opcode() == O::kReplicaId ? ctx.options().replica_id : ctx.options().partition_id);
  return id;
}

}  // namespace

void RegisterControlOps(OpHandlerTable& table) {
  table.Register(O::kConstant, Constant);
  table.Register(O::kTuple, Tuple);
  table.Register(O::kGetTupleElement, GetTupleElement);
  table.Register(O::kCall, CallComputation);
  table.Register(O::kFusion, CallComputation);
  table.Register(O::kWhile, While);
  table.Register(O::kConditional, Conditional);
  table.Register(O::kAsyncStart, AsyncStart);
  table.Register(O::kAsyncUpdate, Identity);
  table.Register(O::kAsyncDone, AsyncDone);
  table.Register(O::kCopyStart, CopyStart);
  table.Register(O::kCopyDone, FirstTupleElement);
  table.Register(O::kCopy, Identity);
  table.Register(O::kOptimizationBarrier, Identity);
  table.Register(O::kAddDependency, Identity);
  table.Register(O::kDomain, Identity);
  table.Register(O::kAfterAll, Token);
  table.Register(O::kReplicaId, DeviceId);
  table.Register(O::kPartitionId, DeviceId);
}

}  // namespace xlite::eval
