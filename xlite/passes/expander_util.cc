#include "xlite/passes/expander_util.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xlite/base/status.h"

namespace xlite {

absl::StatusOr<bool> ExpandInstructions(HloModule& module,
                                        absl::FunctionRef<bool(HloOpcode)> wanted,
                                        ExpandFn expand) {
  InstructionMaker make(module);
  bool changed = false;
  // Expansions may add computations (reduce bodies): iterate a snapshot.
  std::vector<HloComputation*> computations;
  for (const auto& computation : module.computations()) computations.push_back(computation.get());
  for (HloComputation* computation : computations) {
    HloComputation& c = *computation;
    std::vector<HloInstruction*> matches;
    for (const auto& inst : c.instructions()) {
      if (wanted(inst->opcode())) matches.push_back(inst.get());
    }
    absl::flat_hash_set<const HloInstruction*> replaced;
    for (HloInstruction* inst : matches) {
      XLITE_ASSIGN_OR_RETURN(HloInstruction * result, expand(make, c, *inst));
      if (result == nullptr) continue;
      inst->ReplaceAllUsesWith(result);
      replaced.insert(inst);
    }
    if (replaced.empty()) continue;
    changed = true;
    c.RemoveInstructionsIf([&](const HloInstruction* i) { return replaced.contains(i); });
  }
  make.Finish();
  return changed;
}

HloInstruction* IntSplat(InstructionMaker& make, HloComputation& c, const Shape& shape,
                         int64_t value) {
  Literal literal(Shape::Scalar(shape.element_type()));
  literal.SetInt64(0, value);
  HloInstruction* scalar = make.Constant(c, std::move(literal));
  if (shape.rank() == 0) return scalar;
  return make.Broadcast(c, scalar, shape, {});
}

HloInstruction* BitcastTo(InstructionMaker& make, HloComputation& c, HloInstruction* x,
                          PrimitiveType type) {
  Shape shape = x->shape();
  shape.set_element_type(type);
  return make.Add(c, HloOpcode::kBitcastConvert, std::move(shape), {x});
}

PrimitiveType SignedOfWidth(int bits) {
  switch (bits) {
    case 8:
      return PrimitiveType::S8;
    case 16:
      return PrimitiveType::S16;
    case 32:
      return PrimitiveType::S32;
    default:
      return PrimitiveType::S64;
  }
}

PrimitiveType UnsignedOfWidth(int bits) {
  switch (bits) {
    case 8:
      return PrimitiveType::U8;
    case 16:
      return PrimitiveType::U16;
    case 32:
      return PrimitiveType::U32;
    default:
      return PrimitiveType::U64;
  }
}

bool IsF16OrBF16(PrimitiveType type) {
  return type == PrimitiveType::F16 || type == PrimitiveType::BF16;
}

}  // namespace xlite
