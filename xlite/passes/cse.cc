#include "xlite/passes/cse.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "xlite/analysis/side_effects.h"

namespace xlite {
namespace {

bool SameSharding(const HloInstruction& a, const HloInstruction& b) {
  if (a.has_sharding() != b.has_sharding()) return false;
  return !a.has_sharding() || a.sharding() == b.sharding();
}

bool Identical(const HloInstruction& a, const HloInstruction& b) {
  if (a.opcode() != b.opcode() || !(a.shape() == b.shape())) return false;
  if (a.operands().size() != b.operands().size()) return false;
  for (size_t i = 0; i < a.operands().size(); ++i) {
    if (a.operands()[i] != b.operands()[i]) return false;
  }
  if (a.called_computations() != b.called_computations()) return false;
  if (a.has_dimensions_attr() != b.has_dimensions_attr() || a.dimensions() != b.dimensions()) {
    return false;
  }
  if (a.has_attrs() != b.has_attrs()) return false;
  if (a.has_attrs() && !a.raw_attrs()->Equals(*b.raw_attrs())) return false;
  return SameSharding(a, b);
}

// Key for bucketing: hashes what Identical compares except sharding, so
// distinct instructions rarely share a bucket. Identical decides.
size_t HashOf(const HloInstruction& inst) {
  size_t h = absl::HashOf(static_cast<int>(inst.opcode()), inst.shape().dimensions(),
                          static_cast<int>(inst.shape().element_type()), inst.dimensions(),
                          inst.called_computations());
  for (const HloInstruction* operand : inst.operands()) h = absl::HashOf(h, operand);
  if (inst.has_attrs()) h = absl::HashOf(h, inst.raw_attrs()->Hash());
  return h;
}

bool Candidate(const HloInstruction& inst, SideEffectAnalysis& effects) {
  if (inst.opcode() == HloOpcode::kParameter) return false;
  if (inst.opcode() == HloOpcode::kConstant && inst.attrs<ConstantAttrs>().elided) return false;
  if (!inst.control_predecessors().empty() || !inst.control_successors().empty()) return false;
  return !effects.HasSideEffect(inst);
}

bool RunOnComputation(HloComputation& computation, SideEffectAnalysis& effects) {
  // Buckets are looked up only, never iterated: output stays deterministic.
  absl::flat_hash_map<size_t, std::vector<HloInstruction*>> seen;
  absl::flat_hash_set<const HloInstruction*> replaced;
  for (HloInstruction* inst : computation.MakeInstructionPostOrder()) {
    if (!Candidate(*inst, effects)) continue;
    std::vector<HloInstruction*>& bucket = seen[HashOf(*inst)];
    HloInstruction* match = nullptr;
    for (HloInstruction* earlier : bucket) {
      if (Identical(*earlier, *inst)) {
        match = earlier;
        break;
      }
    }
    if (match == nullptr) {
      bucket.push_back(inst);
      continue;
    }
    inst->ReplaceAllUsesWith(match);
    replaced.insert(inst);
  }
  if (replaced.empty()) return false;
  computation.RemoveInstructionsIf([&](const HloInstruction* i) { return replaced.contains(i); });
  // A kept instruction may stand after users it inherited.
  computation.SortInstructionsTopologically();
  return true;
}

}  // namespace

absl::StatusOr<bool> CsePass::Run(HloModule& module) {
  SideEffectAnalysis effects;
  bool changed = false;
  for (const auto& computation : module.computations()) {
    changed |= RunOnComputation(*computation, effects);
  }
  return changed;
}

}  // namespace xlite
