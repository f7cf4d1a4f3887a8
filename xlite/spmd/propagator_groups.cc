// Annotations that relate values beyond the ops between them: XLA's shard
// groups (`shard_as N`: the members end with one sharding; `shard_like N`:
// members propose their shardings to each other) and the unspecified dims
// of `Sharding` custom-calls (dims of a kept annotation that propagation
// refines).
#include <algorithm>

#include "xlite/spmd/propagator.h"
#include "xlite/spmd/sharding_annotations.h"

namespace xlite::spmd {

// XLA's ProcessShardingInstruction: a `Sharding` custom-call whose sharding
// says only the group puts its operand in the group (unless the operand is
// a parameter); any instruction with a group is itself a member.
void Propagator::CollectShardGroups() {
  for (const HloInstruction* inst : order_) {
    if (!inst->has_sharding() || inst->sharding().IsTuple()) continue;
    const std::optional<HloSharding::ShardGroup>& group = inst->sharding().shard_group();
    if (!group || !inst->shape().IsArray()) continue;
    // XLA removes such a custom-call: here it stays, a member beside its
    // operand so that both end alike.
    std::vector<const HloInstruction*> members = {inst};
    if (IsShardingCustomCall(*inst) && inst->sharding().kind() == HloSharding::Kind::kUnknown &&
        inst->operand(0)->opcode() != HloOpcode::kParameter) {
      members.push_back(inst->operand(0));
    }
    ShardGroup& g = shard_groups_[group->id];
    g.shard_as = group->shard_as;
    for (const HloInstruction* member : members) {
      const int64_t slot = SlotOf(member, 0);
      if (slot < 0 || !member->shape().IsArray()) continue;
      if (std::find(g.members.begin(), g.members.end(), slot) == g.members.end()) {
        g.members.push_back(slot);
      }
    }
  }
}

// Every member takes what the others have where that improves it (XLA's
// InferShardingFromShardGroup), at the levels its op propagates at.
bool Propagator::InferFromShardGroups() {
  bool changed = false;
  for (auto& [id, group] : shard_groups_) {
    for (int64_t member : group.members) {
      const HloInstruction* inst = order_[IndexOfSlot(member)];
      const FactorRule* rule = RuleOf(inst);
      if (aggressiveness_ < (rule ? rule->min_aggressiveness_forward : 1)) continue;
      for (int64_t other : group.members) {
        if (other == member || !slots_[other].sharding) continue;
        ShardingOrigin origin;
        origin.kind = ShardingOrigin::Kind::kLinked;
        origin.from = order_[IndexOfSlot(other)];
        origin.rule = group.shard_as ? "shard_as group" : "shard_like group";
        if (Improve(member, *slots_[other].sharding, origin, /*allow_aggressive=*/false)) {
          MarkChanged(inst);
          changed = true;
        }
      }
    }
  }
  return changed;
}

// After propagation the members of a shard_as group take one sharding: all
// of theirs merged when they agree, else the first member's (XLA's
// FindCommonSharding with its default), and keep it from then on.
void Propagator::AlignShardAsGroups() {
  for (auto& [id, group] : shard_groups_) {
    if (!group.shard_as) continue;
    std::optional<HloSharding> common;
    int64_t first = -1;  // the first member with a sharding
    bool agree = true;
    for (int64_t member : group.members) {
      const std::optional<HloSharding>& s = slots_[member].sharding;
      if (!s) continue;
      if (first < 0) {
        first = member;
        common = *s;
        continue;
      }
      std::optional<HloSharding> merged = agree ? MergeShardings(*common, *s) : std::nullopt;
      if (merged) {
        common = std::move(merged);
      } else {
        agree = false;
      }
    }
    if (first < 0) continue;
    const HloSharding chosen = agree ? *common : *slots_[first].sharding;
    const HloInstruction* source = order_[IndexOfSlot(first)];
    for (int64_t member : group.members) {
      Slot& s = slots_[member];
      s.provided = true;
      if (s.sharding && *s.sharding == chosen) continue;
      ShardingOrigin origin;
      origin.kind = ShardingOrigin::Kind::kLinked;
      origin.from = source;
      origin.merged = agree;
      origin.rule = "shard_as group: one sharding";
      origin.aggressiveness = aggressiveness_;
      AddSources(slots_[first].origin, source, &origin.sources);
      origin.conflicts = std::move(s.origin.conflicts);
      s.sharding = chosen;
      s.origin = std::move(origin);
      MarkChanged(order_[IndexOfSlot(member)]);
    }
  }
}

// A kept annotation with unspecified dims takes what a proposal says about
// those dims when it combines with it into more tiles (XLA's
// InferUnspecifiedDimsFrom{Operand,Users,ShardGroup}).
bool Propagator::RefineUnspecified(int64_t slot, const HloSharding& proposal,
                                   ShardingOrigin origin) {
  auto it = unspecified_dims_.find(slot);
  Slot& s = slots_[slot];
  if (it == unspecified_dims_.end() || !options_.is_spmd || aggressiveness_ < 1 || !s.sharding ||
      !proposal.IsTiled() || s.sharding->IsManual() || proposal.IsManualSubgroup()) {
    return false;
  }
  const int64_t rank = static_cast<int64_t>(proposal.DataTileDims().size());
  std::vector<int64_t> specified;
  for (int64_t d = 0; d < rank; ++d) {
    if (!std::binary_search(it->second.begin(), it->second.end(), d)) specified.push_back(d);
  }
  std::optional<HloSharding> merged =
      MergeShardings(*s.sharding, PartiallyReplicateDims(proposal, specified));
  if (!merged || merged->NumTiles() <= s.sharding->NumTiles()) return false;
  origin.merged = true;
  origin.aggressiveness = aggressiveness_;
  AddSources(s.origin, order_[IndexOfSlot(slot)], &origin.sources);
  s.sharding = std::move(merged);
  s.origin = std::move(origin);
  ++inferences_;
  PropagateLinks(slot);
  return true;
}

}  // namespace xlite::spmd
