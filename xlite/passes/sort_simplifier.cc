#include "xlite/passes/sort_simplifier.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xlite/passes/instruction_maker.h"

namespace xlite {
namespace {

// Which operands a sort needs: read through a get-tuple-element, or
// looked at by the comparator. Empty when some user is not a gte.
std::vector<bool> NeededOperands(const HloInstruction& sort) {
  int64_t n = sort.operand_count();
  std::vector<bool> needed(n, false);
  for (const HloInstruction* user : sort.users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) return {};
    needed[user->tuple_index()] = true;
  }
  if (sort.IsRoot()) return {};
  const HloComputation& comparator = *sort.to_apply();
  for (int64_t p = 0; p < comparator.num_parameters(); ++p) {
    const HloInstruction* param = comparator.parameter_instruction(p);
    if (param != nullptr && (param->user_count() > 0 || param->IsRoot())) needed[p / 2] = true;
  }
  return needed;
}

// A copy of `comparator` keeping the parameter pairs of the kept operands.
HloComputation* ShrinkComparator(HloModule& module, const HloComputation& comparator,
                                 const std::vector<bool>& needed, const HloComputation& user,
                                 InstructionMaker& make) {
  HloComputation* shrunk = module.AddComputationBefore(
      std::make_unique<HloComputation>(comparator.name() + ".simplified"), &user);
  // Kept pairs keep their order: operand i's pair becomes 2*(kept before i).
  std::vector<int64_t> pair_index(needed.size(), -1);
  int64_t kept = 0;
  for (size_t i = 0; i < needed.size(); ++i) {
    if (needed[i]) pair_index[i] = kept++;
  }
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> copy_of;
  for (HloInstruction* inst : comparator.MakeInstructionPostOrder()) {
    if (inst->opcode() == HloOpcode::kParameter) {
      int64_t number = inst->parameter_number();
      if (!needed[number / 2]) continue;
      copy_of[inst] = make.Parameter(*shrunk, 2 * pair_index[number / 2] + number % 2, *inst);
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* operand : inst->operands()) operands.push_back(copy_of.at(operand));
    copy_of[inst] = make.Clone(*shrunk, *inst, operands);
  }
  shrunk->set_root_instruction(copy_of.at(comparator.root_instruction()));
  return shrunk;
}

}  // namespace

absl::StatusOr<bool> SortSimplifierPass::Run(HloModule& module) {
  InstructionMaker make(module);
  bool changed = false;
  std::vector<HloComputation*> computations;
  for (const auto& c : module.computations()) computations.push_back(c.get());
  for (HloComputation* computation : computations) {
    std::vector<HloInstruction*> sorts;
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() == HloOpcode::kSort && inst->operand_count() > 1)
        sorts.push_back(inst.get());
    }
    for (HloInstruction* sort : sorts) {
      std::vector<bool> needed = NeededOperands(*sort);
      std::vector<HloInstruction*> kept;
      std::vector<int64_t> new_index(needed.size(), -1);
      for (size_t i = 0; i < needed.size(); ++i) {
        if (!needed[i]) continue;
        new_index[i] = static_cast<int64_t>(kept.size());
        kept.push_back(sort->operand(static_cast<int64_t>(i)));
      }
      if (kept.empty() || kept.size() == needed.size()) continue;
      std::vector<Shape> shapes;
      for (const HloInstruction* k : kept) shapes.push_back(k->shape());
      Shape shape = kept.size() == 1 ? shapes[0] : Shape::Tuple(shapes);
      HloInstruction* smaller =
          make.Add(*computation, HloOpcode::kSort, shape, kept, sort->raw_attrs()->Clone());
      smaller->set_dimensions(sort->dimensions());
      smaller->AppendCalledComputation(
          ShrinkComparator(module, *sort->to_apply(), needed, *computation, make));
      for (HloInstruction* user :
           std::vector<HloInstruction*>(sort->users().begin(), sort->users().end())) {
        int64_t index = new_index[user->tuple_index()];
        if (kept.size() == 1) {
          user->ReplaceAllUsesWith(smaller);
        } else {
          user->mutable_attrs<IntAttrs>()->value = index;
          user->ReplaceOperandWith(0, smaller);
        }
      }
      changed = true;
    }
  }
  make.Finish();
  return changed;
}

}  // namespace xlite
