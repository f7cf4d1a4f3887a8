#include "xlite/passes/instruction_maker.h"

#include <algorithm>

namespace xlite {

InstructionMaker::InstructionMaker(HloModule& module) : module_(module) {
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) names_.Reserve(inst->name());
  }
}

HloInstruction* InstructionMaker::Add(HloComputation& c, HloOpcode opcode, Shape shape,
                                      absl::Span<HloInstruction* const> operands,
                                      std::unique_ptr<OpAttrs> attrs) {
  auto inst = std::make_unique<HloInstruction>(opcode, std::move(shape));
  for (HloInstruction* op : operands) inst->AppendOperand(op);
  AttrsKind kind = AttrsKindOf(opcode);
  if (attrs == nullptr && kind != AttrsKind::kAccuracy) attrs = MakeDefaultAttrs(kind);
  inst->set_attrs(std::move(attrs));
  inst->set_name(names_.GetUniqueName(std::string(OpcodeName(opcode))));
  inst->set_unique_id(module_.NextUniqueId());
  if (touched_set_.insert(&c).second) touched_.push_back(&c);
  return c.AddInstruction(std::move(inst));
}

HloInstruction* InstructionMaker::Constant(HloComputation& c, Literal literal) {
  auto attrs = std::make_unique<ConstantAttrs>();
  Shape shape = literal.shape();
  attrs->literal = std::move(literal);
  return Add(c, HloOpcode::kConstant, std::move(shape), {}, std::move(attrs));
}

HloInstruction* InstructionMaker::ScalarConstant(HloComputation& c, PrimitiveType type,
                                                 double value) {
  Literal literal(Shape::Scalar(type));
  literal.SetDouble(0, value);
  return Constant(c, std::move(literal));
}

HloInstruction* InstructionMaker::Splat(HloComputation& c, const Shape& shape, double value) {
  HloInstruction* scalar = ScalarConstant(c, shape.element_type(), value);
  if (shape.rank() == 0) return scalar;
  return Broadcast(c, scalar, shape, {});
}

HloInstruction* InstructionMaker::Unary(HloComputation& c, HloOpcode opcode, HloInstruction* x) {
  return Add(c, opcode, x->shape(), {x});
}

HloInstruction* InstructionMaker::Binary(HloComputation& c, HloOpcode opcode, HloInstruction* a,
                                         HloInstruction* b) {
  return Add(c, opcode, a->shape(), {a, b});
}

HloInstruction* InstructionMaker::Compare(HloComputation& c, HloInstruction* a, HloInstruction* b,
                                          ComparisonDirection direction) {
  Shape shape = a->shape();
  shape.set_element_type(PrimitiveType::PRED);
  auto attrs = std::make_unique<CompareAttrs>();
  attrs->direction = direction;
  return Add(c, HloOpcode::kCompare, std::move(shape), {a, b}, std::move(attrs));
}

HloInstruction* InstructionMaker::Select(HloComputation& c, HloInstruction* pred,
                                         HloInstruction* on_true, HloInstruction* on_false) {
  return Add(c, HloOpcode::kSelect, on_true->shape(), {pred, on_true, on_false});
}

HloInstruction* InstructionMaker::Convert(HloComputation& c, HloInstruction* x,
                                          PrimitiveType type) {
  Shape shape = x->shape();
  shape.set_element_type(type);
  return Add(c, HloOpcode::kConvert, std::move(shape), {x});
}

HloInstruction* InstructionMaker::Broadcast(HloComputation& c, HloInstruction* x,
                                            const Shape& shape, std::vector<int64_t> dimensions) {
  Shape result = shape;
  result.set_element_type(x->shape().element_type());
  HloInstruction* b = Add(c, HloOpcode::kBroadcast, std::move(result), {x});
  b->set_dimensions(std::move(dimensions));
  return b;
}

HloInstruction* InstructionMaker::Reshape(HloComputation& c, HloInstruction* x,
                                          const Shape& shape) {
  Shape result = shape;
  result.set_element_type(x->shape().element_type());
  return Add(c, HloOpcode::kReshape, std::move(result), {x});
}

HloInstruction* InstructionMaker::GetTupleElement(HloComputation& c, HloInstruction* tuple,
                                                  int64_t i) {
  auto attrs = std::make_unique<IntAttrs>();
  attrs->value = i;
  return Add(c, HloOpcode::kGetTupleElement, tuple->shape().tuple_shapes(i), {tuple},
             std::move(attrs));
}

HloInstruction* InstructionMaker::Clone(HloComputation& c, const HloInstruction& original,
                                        absl::Span<HloInstruction* const> operands) {
  HloInstruction* copy = CloneAs(c, original, original.opcode(), original.shape(), operands);
  copy->set_name(UniqueNameLike(original.name()));
  return copy;
}

HloInstruction* InstructionMaker::CloneAs(HloComputation& c, const HloInstruction& original,
                                          HloOpcode opcode, Shape shape,
                                          absl::Span<HloInstruction* const> operands) {
  HloInstruction* copy = Add(c, opcode, std::move(shape), operands,
                             original.has_attrs() ? original.raw_attrs()->Clone() : nullptr);
  if (!original.has_attrs()) copy->set_attrs(nullptr);
  copy->CopySharedAttributesFrom(original);
  for (HloComputation* called : original.called_computations()) {
    copy->AppendCalledComputation(called);
  }
  return copy;
}

std::string InstructionMaker::UniqueNameLike(std::string_view name) {
  // `n.3` copies as `n.<next>`, not `n.3.1`.
  size_t dot = name.rfind('.');
  if (dot != std::string_view::npos && dot + 1 < name.size() &&
      name.find_first_not_of("0123456789", dot + 1) == std::string_view::npos) {
    name = name.substr(0, dot);
  }
  return names_.GetUniqueName(name);
}

HloInstruction* InstructionMaker::Parameter(HloComputation& c, int64_t number,
                                            const HloInstruction& like) {
  auto attrs = std::make_unique<ParameterAttrs>();
  attrs->number = number;
  HloInstruction* param = Add(c, HloOpcode::kParameter, like.shape(), {}, std::move(attrs));
  param->set_name(UniqueNameLike(like.name()));
  return param;
}

void InstructionMaker::Finish() {
  for (HloComputation* c : touched_) c->SortInstructionsTopologically();
  touched_.clear();
  touched_set_.clear();
  module_.UpdateSchedule();
}

}  // namespace xlite
