#include "xlite/ir/builder.h"

#include "absl/strings/str_cat.h"

namespace xlite {

std::string NameUniquer::GetUniqueName(std::string_view prefix) {
  std::string key(prefix);
  std::string name = key;
  int64_t& next = next_suffix_[key];
  while (used_.contains(name)) name = absl::StrCat(key, ".", ++next);
  used_.insert(name);
  return name;
}

HloBuilder::HloBuilder(std::string computation_name, NameUniquer* names)
    : computation_(std::make_unique<HloComputation>(std::move(computation_name))),
      names_(names != nullptr ? names : &own_names_) {}

HloInstruction* HloBuilder::Add(std::unique_ptr<HloInstruction> inst, std::string name) {
  if (name.empty()) {
    name = names_->GetUniqueName(std::string(OpcodeName(inst->opcode())));
  } else {
    names_->Reserve(name);
  }
  inst->set_name(std::move(name));
  return computation_->AddInstruction(std::move(inst));
}

HloInstruction* HloBuilder::AddParameter(int64_t number, Shape shape, std::string name) {
  auto inst = std::make_unique<HloInstruction>(HloOpcode::kParameter, std::move(shape));
  auto attrs = std::make_unique<ParameterAttrs>();
  attrs->number = number;
  inst->set_attrs(std::move(attrs));
  return Add(std::move(inst), std::move(name));
}

HloInstruction* HloBuilder::AddConstant(Literal literal, std::string name) {
  auto inst = std::make_unique<HloInstruction>(HloOpcode::kConstant, literal.shape());
  auto attrs = std::make_unique<ConstantAttrs>();
  attrs->literal = std::move(literal);
  inst->set_attrs(std::move(attrs));
  return Add(std::move(inst), std::move(name));
}

HloInstruction* HloBuilder::AddScalarConstant(PrimitiveType type, double value) {
  Literal literal(Shape::Scalar(type));
  literal.SetDouble(0, value);
  return AddConstant(std::move(literal));
}

HloInstruction* HloBuilder::AddInstruction(HloOpcode opcode, Shape shape,
                                           absl::Span<HloInstruction* const> operands,
                                           std::unique_ptr<OpAttrs> attrs, std::string name) {
  auto inst = std::make_unique<HloInstruction>(opcode, std::move(shape));
  for (HloInstruction* op : operands) inst->AppendOperand(op);
  AttrsKind kind = AttrsKindOf(opcode);
  if (attrs == nullptr && kind != AttrsKind::kAccuracy) attrs = MakeDefaultAttrs(kind);
  inst->set_attrs(std::move(attrs));
  return Add(std::move(inst), std::move(name));
}

HloInstruction* HloBuilder::AddGetTupleElement(HloInstruction* tuple, int64_t index) {
  auto attrs = std::make_unique<IntAttrs>();
  attrs->value = index;
  return AddInstruction(HloOpcode::kGetTupleElement, tuple->shape().tuple_shapes(index), {tuple},
                        std::move(attrs));
}

HloInstruction* HloBuilder::AddTuple(absl::Span<HloInstruction* const> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const HloInstruction* e : elements) shapes.push_back(e->shape());
  return AddInstruction(HloOpcode::kTuple, Shape::Tuple(std::move(shapes)), elements);
}

std::unique_ptr<HloComputation> HloBuilder::Build() {
  const auto& instructions = computation_->instructions();
  if (root_ == nullptr && !instructions.empty()) root_ = instructions.back().get();
  computation_->set_root_instruction(root_);
  root_ = nullptr;
  auto done = std::move(computation_);
  computation_ = std::make_unique<HloComputation>(done->name());
  return done;
}

std::unique_ptr<HloModule> MakeModule(std::string name,
                                      std::vector<std::unique_ptr<HloComputation>> computations) {
  auto module = std::make_unique<HloModule>(std::move(name));
  for (const auto& c : computations) {
    for (const auto& inst : c->instructions()) {
      if (inst->opcode() != HloOpcode::kFusion) continue;
      for (HloComputation* body : inst->called_computations()) {
        body->set_is_fusion_computation(true);
      }
    }
  }
  for (size_t i = 0; i < computations.size(); ++i) {
    module->AddComputation(std::move(computations[i]), i + 1 == computations.size());
  }
  return module;
}

}  // namespace xlite
