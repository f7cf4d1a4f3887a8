#include "xlite/backends/cpu/conv_fusion.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xlite/backends/cpu/conv_post_ops.h"
#include "xlite/ir/computation.h"
#include "xlite/passes/instruction_maker.h"

namespace xlite::cpu {
namespace {

// The convolution and its post-ops, in order; `ops[i]` is `chain[i + 1]`.
struct Chain {
  std::vector<HloInstruction*> chain;
  std::vector<ConvPostOp> ops;
};

Chain GrowChain(HloInstruction* conv, const HloComputation& entry) {
  Chain c{{conv}, {}};
  while (c.chain.back() != entry.root_instruction() && c.chain.back()->user_count() == 1) {
    HloInstruction* user = c.chain.back()->users()[0];
    std::optional<ConvPostOp> op = MatchConvPostOp(*user, *c.chain.back(), *conv, c.ops);
    if (!op) break;
    c.ops.push_back(*op);
    c.chain.push_back(user);
  }
  return c;
}

// Outlines `c` into a kOutput fusion in `entry`. The post-ops' scalar
// broadcasts (with their constants) and the bias broadcast are cloned into
// the body and collected in `cloned`, to be removed where nothing else reads
// them; every other array read becomes a parameter.
void Outline(HloModule& module, HloComputation& entry, InstructionMaker& maker, const Chain& c,
             absl::flat_hash_set<HloInstruction*>& cloned) {
  absl::flat_hash_set<const HloInstruction*> inline_set;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    if (c.ops[i].kind == ConvPostOpKind::kSum) continue;
    const HloInstruction* user = c.chain[i + 1];
    HloInstruction* other = user->operand(user->operand(0) == c.chain[i] ? 1 : 0);
    inline_set.insert(other);
    cloned.insert(other);
    // The bias vector stays an operand: the thunk reads it from its buffer.
    if (c.ops[i].kind != ConvPostOpKind::kBias) {
      inline_set.insert(other->operand(0));
      cloned.insert(other->operand(0));
    }
  }
  auto body = std::make_unique<HloComputation>(absl::StrCat("fused_", c.chain.back()->name()));
  body->set_is_fusion_computation(true);
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> clones;
  std::vector<HloInstruction*> external;
  auto read = [&](auto& self, HloInstruction* x) -> HloInstruction* {
    if (auto found = clones.find(x); found != clones.end()) return found->second;
    HloInstruction* made;
    if (inline_set.contains(x)) {
      std::vector<HloInstruction*> operands;
      for (HloInstruction* op : x->operands()) operands.push_back(self(self, op));
      made = maker.Clone(*body, *x, operands);
    } else {
      external.push_back(x);
      made = maker.Parameter(*body, static_cast<int64_t>(external.size()) - 1, *x);
    }
    clones.emplace(x, made);
    return made;
  };
  for (HloInstruction* member : c.chain) {
    std::vector<HloInstruction*> operands;
    for (HloInstruction* op : member->operands()) operands.push_back(read(read, op));
    clones[member] = maker.Clone(*body, *member, operands);
  }
  HloInstruction* last = c.chain.back();
  body->set_root_instruction(clones[last]);
  HloComputation* fused = module.AddComputationBefore(std::move(body), &entry);
  HloInstruction* fusion = maker.Add(entry, HloOpcode::kFusion, last->shape(), external);
  fusion->AppendCalledComputation(fused);
  fusion->mutable_attrs<FusionAttrs>()->kind = FusionKind::kOutput;
  // Named as the value it computes, so --profile shows the chain's end.
  const std::string name = last->name();
  last->ReplaceAllUsesWith(fusion);
  if (entry.root_instruction() == last) entry.set_root_instruction(fusion);
  const absl::flat_hash_set<const HloInstruction*> members(c.chain.begin(), c.chain.end());
  entry.RemoveInstructionsIf([&](const HloInstruction* inst) { return members.contains(inst); });
  fusion->set_name(name);
}

}  // namespace

absl::StatusOr<bool> ConvolutionFusion::Run(HloModule& module) {
  HloComputation& entry = *module.entry_computation();
  InstructionMaker maker(module);
  absl::flat_hash_set<HloInstruction*> cloned;
  bool changed = false;
  // The convolutions in post order (each before the ops after it), taken
  // before any chain is outlined: outlining deletes the chain's elementwise
  // ops, never a convolution, so these pointers stay valid.
  std::vector<HloInstruction*> convolutions;
  for (HloInstruction* inst : entry.MakeInstructionPostOrder()) {
    if (IsOneDnnConvolution(*inst) && inst->control_predecessors().empty() &&
        inst->control_successors().empty()) {
      convolutions.push_back(inst);
    }
  }
  for (HloInstruction* inst : convolutions) {
    Chain c = GrowChain(inst, entry);
    if (c.ops.empty()) continue;
    Outline(module, entry, maker, c, cloned);
    changed = true;
  }
  // A broadcast goes before its constant.
  while (entry.RemoveInstructionsIf([&](HloInstruction* inst) {
    return cloned.contains(inst) && inst->user_count() == 0 && inst != entry.root_instruction();
  }) > 0) {
  }
  maker.Finish();
  return changed;
}

const HloInstruction* FusedConvolution(const HloInstruction& inst) {
  if (inst.opcode() != HloOpcode::kFusion || !inst.has_attrs() ||
      inst.attrs<FusionAttrs>().kind != FusionKind::kOutput) {
    return nullptr;
  }
  for (const auto& member : inst.to_apply()->instructions()) {
    if (member->opcode() == HloOpcode::kConvolution) return member.get();
  }
  return nullptr;
}

}  // namespace xlite::cpu
