#include "xlite/backends/cpu/fusion.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xlite/backends/cpu/conv_fusion.h"
#include "xlite/backends/cpu/kernel_emitter.h"
#include "xlite/ir/computation.h"
#include "xlite/passes/instruction_maker.h"
#include "xlite/passes/pass_registry.h"

namespace xlite::cpu {
namespace {

// The kernel emitter recurses once per level of a fused expression: a longer
// chain starts a new fusion, so emission stays well within a thread's stack.
constexpr int64_t kMaxFusedLevels = 256;

// Members consumers first, the root at the front; `side`, when set, is the
// root reduce's operand, also returned (its other users read it there).
struct Group {
  std::vector<HloInstruction*> members;
  HloInstruction* side = nullptr;
};

// Builds the fusion of `group` in `entry`: kind=kInput when the root is a
// reduce (with a side output: the fusion returns tuple(reduce, side)),
// kLoop otherwise.
void Outline(HloModule& module, HloComputation& entry, InstructionMaker& maker,
             const Group& fused_group) {
  const std::vector<HloInstruction*>& group = fused_group.members;
  const absl::flat_hash_set<const HloInstruction*> members(group.begin(), group.end());
  auto body = std::make_unique<HloComputation>(absl::StrCat("fused_", group.front()->name()));
  body->set_is_fusion_computation(true);
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> clones;
  std::vector<HloInstruction*> external;
  // Operands before users: the group reversed is a valid order because each
  // member joined after all of its users.
  for (auto it = group.rbegin(); it != group.rend(); ++it) {
    HloInstruction* inst = *it;
    std::vector<HloInstruction*> operands;
    for (HloInstruction* op : inst->operands()) {
      auto found = clones.find(op);
      if (found == clones.end()) {
        external.push_back(op);
        found =
            clones
                .emplace(op, maker.Parameter(*body, static_cast<int64_t>(external.size()) - 1, *op))
                .first;
      }
      operands.push_back(found->second);
    }
    clones[inst] = maker.Clone(*body, *inst, operands);
  }
  HloInstruction* root = group.front();
  HloInstruction* side = fused_group.side;
  Shape shape = root->shape();
  if (side != nullptr) {
    shape = Shape::Tuple({root->shape(), side->shape()});
    HloInstruction* both = maker.Add(*body, HloOpcode::kTuple, shape, {clones[root], clones[side]});
    body->set_root_instruction(both);
  } else {
    body->set_root_instruction(clones[root]);
  }
  HloComputation* fused = module.AddComputationBefore(std::move(body), &entry);
  HloInstruction* fusion = maker.Add(entry, HloOpcode::kFusion, shape, external);
  fusion->AppendCalledComputation(fused);
  if (root->opcode() == HloOpcode::kReduce) {
    fusion->mutable_attrs<FusionAttrs>()->kind = FusionKind::kInput;
  }
  HloInstruction* result = fusion;
  if (side != nullptr) {
    result = maker.GetTupleElement(entry, fusion, 0);
    // Every user of `side` but the root reduce (its one user inside, the
    // other members being its producers) reads the second output.
    HloInstruction* side_value = maker.GetTupleElement(entry, fusion, 1);
    side->ReplaceAllUsesWith(side_value);
    root->ReplaceOperandWith(0, side);
  }
  root->ReplaceAllUsesWith(result);
  if (entry.root_instruction() == root) entry.set_root_instruction(result);
  entry.RemoveInstructionsIf([&](const HloInstruction* inst) { return members.contains(inst); });
}

// The group `inst` joins as the side output of its root reduce: when a
// reduce rooting a group of its own (without a side output yet) reads `inst`
// as its operand, and `inst` has users elsewhere too, which then read the
// fusion's second output; -1 otherwise. The reduce's init must be a constant
// or parameter: computed from a user of `inst`, the fusion would feed itself.
int64_t SideOutputGroup(const HloInstruction& inst, const HloComputation& entry,
                        const absl::flat_hash_map<const HloInstruction*, int64_t>& group_of,
                        const std::vector<Group>& groups) {
  if (inst.opcode() == HloOpcode::kReduce || inst.opcode() == HloOpcode::kConstant ||
      &inst == entry.root_instruction() || !inst.shape().IsArray()) {
    return -1;
  }
  for (const HloInstruction* user : inst.users()) {
    if (user->opcode() != HloOpcode::kReduce || user->operand(0) != &inst ||
        (user->operand(1)->opcode() != HloOpcode::kConstant &&
         user->operand(1)->opcode() != HloOpcode::kParameter)) {
      continue;
    }
    auto found = group_of.find(user);
    if (found != group_of.end() && groups[found->second].members.front() == user &&
        groups[found->second].side == nullptr) {
      return found->second;
    }
  }
  return -1;
}

}  // namespace

absl::StatusOr<bool> LoopFusion::Run(HloModule& module) {
  HloComputation& entry = *module.entry_computation();
  std::vector<HloInstruction*> order = entry.MakeInstructionPostOrder();
  // Reverse post order: every user is placed before its operands.
  absl::flat_hash_map<const HloInstruction*, int64_t> group_of, level_of;
  std::vector<Group> groups;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* inst = *it;
    // A reduce only roots a group: its producers may join it, it joins none.
    const bool reduce = IsReduceSupported(*inst);
    if ((!reduce && !IsElementalSupported(*inst)) || !inst->control_predecessors().empty() ||
        !inst->control_successors().empty()) {
      continue;
    }
    int64_t target = -1;
    bool one_group = !reduce && inst->user_count() > 0 && inst != entry.root_instruction();
    for (const HloInstruction* user : inst->users()) {
      auto found = group_of.find(user);
      if (found == group_of.end() || (target >= 0 && found->second != target)) {
        one_group = false;
        break;
      }
      target = found->second;
    }
    // How far below its group's root `inst` would sit in `group`.
    auto level_in = [&](int64_t group) {
      int64_t level = 0;
      for (const HloInstruction* user : inst->users()) {
        auto found = group_of.find(user);
        if (found != group_of.end() && found->second == group) {
          level = std::max(level, level_of[user] + 1);
        }
      }
      return level;
    };
    if (one_group && level_in(target) >= kMaxFusedLevels) one_group = false;
    if (!one_group) {
      target = SideOutputGroup(*inst, entry, group_of, groups);
      if (target >= 0 && level_in(target) < kMaxFusedLevels) {
        groups[target].side = inst;
      } else {
        target = static_cast<int64_t>(groups.size());
        groups.emplace_back();
      }
    }
    groups[target].members.push_back(inst);
    group_of[inst] = target;
    level_of[inst] = level_in(target);
  }
  InstructionMaker maker(module);
  bool changed = false;
  for (const Group& group : groups) {
    // A lone op is a kernel already; a group of only data movement or
    // constants has nothing to gain from a fusion wrapper either way.
    if (group.members.size() < 2) continue;
    Outline(module, entry, maker, group);
    changed = true;
  }
  maker.Finish();
  return changed;
}

void RegisterCpuPasses() {
  static const bool registered = [] {
    RegisterPass(PassInfo{
        "cpu-loop-fusion",
        "the cpu backend's fusion: elementwise chains as kLoop fusions, a chain and the reduce "
        "it feeds as a kInput fusion (with the reduce's operand as a second output when others "
        "read it too)",
        [](PassArgs&) -> absl::StatusOr<std::unique_ptr<HloPass>> {
          return std::unique_ptr<HloPass>(std::make_unique<LoopFusion>());
        }});
    RegisterPass(PassInfo{
        "cpu-conv-fusion",
        "the cpu backend's convolution fusion: a convolution oneDNN takes and the elementwise "
        "ops after it that oneDNN computes as its bias and post-ops as one kOutput fusion",
        [](PassArgs&) -> absl::StatusOr<std::unique_ptr<HloPass>> {
          return std::unique_ptr<HloPass>(std::make_unique<ConvolutionFusion>());
        }});
    return true;
  }();
  (void)registered;
}

}  // namespace xlite::cpu
