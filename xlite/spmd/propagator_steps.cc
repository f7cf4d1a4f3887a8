// The propagator's inference steps (forward from operands, backward from
// users), the fixed-point loop per aggressiveness level and the write-back.
#include <algorithm>
#include <functional>

#include "xlite/spmd/propagator.h"

namespace xlite::spmd {
namespace {

bool IsCustomCall(const HloInstruction& inst, std::string_view target) {
  return inst.opcode() == HloOpcode::kCustomCall && inst.attrs<CustomCallAttrs>().target == target;
}

// Ops that pass whole values (leaves) through unchanged.
bool IsStructural(HloOpcode op) {
  switch (op) {
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kWhile:
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kFusion:
      return true;
    default:
      return false;
  }
}

// Whether operand `operand`'s sharding `s` passes forward into `inst`
// under XLA's restrictions beyond the op's rule: at level 0 a concatenate
// passes only a param/gte -> reshape -> concat pattern not split on the
// concatenated dim, a dynamic slice (or a dynamic-update-slice's update)
// only when its sliced dims are not split; a sort operand split on the sort
// dim only where a free dim can take the split; collectives across devices
// (all-reduce and reduce-scatter with a channel, the others always) are not
// partitioned by propagation: only a replicated operand makes them
// replicated.
bool MayPassForward(const HloInstruction& inst, int64_t operand, const HloSharding& s,
                    int aggressiveness,
                    const std::function<const HloSharding*(const HloInstruction*)>& get) {
  auto split_where_sizes_differ = [&](const HloInstruction& value, const Shape& other) {
    const HloSharding* vs = get(&value);
    if (vs == nullptr || !vs->IsTiled()) return false;
    const std::vector<int64_t> tiles = vs->DataTileDims();
    for (int64_t d = 0; d < value.shape().rank() && d < other.rank(); ++d) {
      if (tiles[d] > 1 && value.shape().dimensions(d) != other.dimensions(d)) return true;
    }
    return false;
  };
  switch (inst.opcode()) {
    case HloOpcode::kConcatenate:
      if (aggressiveness > 0) return true;
      for (const HloInstruction* o : inst.operands()) {
        const HloSharding* os = get(o);
        const bool pattern = os != nullptr && os->IsTiled() && os->NumTiles() > 1 &&
                             o->opcode() == HloOpcode::kReshape &&
                             (o->operand(0)->opcode() == HloOpcode::kParameter ||
                              o->operand(0)->opcode() == HloOpcode::kGetTupleElement);
        if (!pattern || os->DataTileDims()[inst.dimensions()[0]] > 1) return false;
      }
      return true;
    case HloOpcode::kDynamicSlice:
      return aggressiveness > 0 || !split_where_sizes_differ(*inst.operand(0), inst.shape());
    case HloOpcode::kDynamicUpdateSlice:
      return aggressiveness > 0 || operand != 1 ||
             !split_where_sizes_differ(*inst.operand(1), inst.shape());
    case HloOpcode::kSort: {
      if (!s.IsTiled() || inst.dimensions().empty()) return true;
      const int64_t sort_dim = inst.dimensions()[0];
      const std::vector<int64_t> tiles = s.DataTileDims();
      if (tiles[sort_dim] == 1) return true;
      const Shape& shape = inst.operand(operand)->shape();
      for (int64_t d = 0; d < shape.rank(); ++d) {
        if (d != sort_dim && tiles[d] == 1 && shape.dimensions(d) > 1) return true;
      }
      return false;
    }
    case HloOpcode::kAllReduce:
    case HloOpcode::kReduceScatter:
      return !inst.attrs<CollectiveAttrs>().channel_id.has_value() || s.IsReplicated();
    default:
      return !IsCollectiveOpcode(inst.opcode()) || s.IsReplicated();
  }
}

}  // namespace

bool Propagator::InferForward(int64_t index) {
  HloInstruction* inst = order_[index];
  const int64_t leaves = LeafCount(index);
  const int64_t first = first_slot_[index];
  switch (inst->opcode()) {
    case HloOpcode::kTuple: {
      bool changed = false;
      int64_t offset = 0;
      for (const HloInstruction* operand : inst->operands()) {
        const int64_t n = operand->shape().LeafCount();
        // XLA's tuple takes any more specific element sharding.
        changed |= CopyLeaves(operand, 0, inst, offset, n, ShardingOrigin::Kind::kForward, "tuple",
                              /*allow_aggressive=*/true);
        offset += n;
      }
      // As XLA, a tuple with a sharded element has its other elements
      // replicated until something better arrives.
      bool any = false;
      for (int64_t l = 0; l < leaves; ++l) any |= slots_[first + l].sharding.has_value();
      if (!any || aggressiveness_ < 1) return changed;
      ShardingOrigin origin;
      origin.kind = ShardingOrigin::Kind::kRule;
      origin.rule = "tuple element without a sharding: replicated";
      for (int64_t l = 0; l < leaves; ++l) {
        if (!slots_[first + l].sharding) {
          changed |= Improve(first + l, HloSharding::Replicated(), origin, false);
        }
      }
      return changed;
    }
    case HloOpcode::kGetTupleElement:
      if (IndexOf(inst->operand(0)) < 0) return false;
      return CopyLeaves(inst->operand(0), ElementLeafOffset(inst->operand(0), inst->tuple_index()),
                        inst, 0, leaves, ShardingOrigin::Kind::kForward, "get-tuple-element",
                        /*allow_aggressive=*/NonRootUsers(*inst) == 1);
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kWhile:
      return CopyLeaves(inst->operand(0), 0, inst, 0, leaves, ShardingOrigin::Kind::kForward,
                        inst->opcode() == HloOpcode::kWhile ? "while" : "opt-barrier");
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kFusion:
      return false;  // through the linked parameters and roots
    default:
      break;
  }
  // Manual regions: the shard-shaped side of SPMDFullToShardShape is manual.
  if (IsCustomCall(*inst, "SPMDFullToShardShape")) {
    ShardingOrigin origin;
    origin.kind = ShardingOrigin::Kind::kRule;
    origin.rule = "manual region entry";
    return Improve(first, HloSharding::Manual(), origin, false);
  }
  if (IsCustomCall(*inst, "SPMDShardToFullShape")) return false;
  // Manual values make their users manual (XLA propagates manual first),
  // from level 1 on through concatenate and dynamic-slice.
  const bool manual_waits = aggressiveness_ == 0 && (inst->opcode() == HloOpcode::kConcatenate ||
                                                     inst->opcode() == HloOpcode::kDynamicSlice);
  for (const HloInstruction* operand : inst->operands()) {
    const HloSharding* s = Get(SlotOf(operand, 0));
    if (!manual_waits && s != nullptr && s->IsManual() && operand->shape().IsArray()) {
      ShardingOrigin origin;
      origin.kind = ShardingOrigin::Kind::kForward;
      origin.from = operand;
      origin.rule = "manual";
      bool changed = false;
      for (int64_t l = 0; l < leaves; ++l) changed |= Improve(first + l, *s, origin, false);
      return changed;
    }
  }
  const FactorRule* rule = RuleOf(inst);
  if (rule == nullptr) {
    // Unknown custom-calls stay as annotated, or replicated once anything
    // around them has a sharding.
    if (inst->opcode() != HloOpcode::kCustomCall || aggressiveness_ < 1) return false;
    bool near_sharded = false;
    for (const HloInstruction* operand : inst->operands()) {
      near_sharded |= Get(SlotOf(operand, 0)) != nullptr;
    }
    if (!near_sharded) return false;
    ShardingOrigin origin;
    origin.kind = ShardingOrigin::Kind::kRule;
    origin.rule = "unknown custom-call target: replicated";
    bool changed = false;
    for (int64_t l = 0; l < leaves; ++l) {
      if (!slots_[first + l].sharding) {
        changed |= Improve(first + l, HloSharding::Replicated(), origin, false);
      }
    }
    return changed;
  }
  if (aggressiveness_ < rule->min_aggressiveness_forward) return false;
  if (!options_.is_spmd && inst->opcode() == HloOpcode::kReverse) return false;
  std::vector<int64_t> order = rule->forward_order;
  if (order.empty()) {
    for (int64_t i = 0; i < inst->operand_count(); ++i) order.push_back(i);
  }
  int64_t related = 0;
  for (const auto& o : rule->operands) related += o.has_value();
  bool changed = false;
  for (int64_t k : order) {
    if (k >= static_cast<int64_t>(rule->operands.size()) || !rule->operands[k]) continue;
    const HloSharding* s = Get(SlotOf(inst->operand(k), 0));
    if (s == nullptr || !(s->IsTiled() || s->IsReplicated())) continue;
    if (!MayPassForward(*inst, k, *s, aggressiveness_,
                        [&](const HloInstruction* o) { return Get(SlotOf(o, 0)); })) {
      continue;
    }
    for (int64_t r = 0; r < static_cast<int64_t>(rule->results.size()) && r < leaves; ++r) {
      const int64_t want = rule->result_of_operand[k];
      if (want >= 0 && want != r) continue;
      HloSharding projected = ProjectThrough(*rule, *rule->operands[k], rule->results[r], *s);
      // XLA's non-SPMD mode has no partial tiling for reduce results.
      if (!options_.is_spmd && inst->opcode() == HloOpcode::kReduce &&
          projected.HasPartialReplication()) {
        projected = HloSharding::Replicated();
      }
      ShardingOrigin origin;
      origin.kind = ShardingOrigin::Kind::kForward;
      origin.from = inst->operand(k);
      origin.rule = rule->name;
      changed |= Improve(first + r, projected, origin,
                         /*allow_aggressive=*/related == 1 && NonRootUsers(*inst) == 1);
    }
  }
  return changed;
}

std::optional<HloSharding> Propagator::FromUserRule(const HloInstruction& user,
                                                    const FactorRule& rule, int64_t operand_index) {
  if (operand_index >= static_cast<int64_t>(rule.operands.size())) return std::nullopt;
  int64_t result = rule.result_of_operand[operand_index];
  if (result < 0) result = 0;
  const HloSharding* s = Get(SlotOf(&user, result));
  if (s == nullptr || !(s->IsTiled() || s->IsReplicated())) return std::nullopt;
  if (!rule.operands[operand_index]) {
    // Scalars and indices next to a sharded value: replicated.
    return HloSharding::Replicated();
  }
  if (result >= static_cast<int64_t>(rule.results.size())) return std::nullopt;
  HloSharding from_result =
      ProjectThrough(rule, rule.results[result], *rule.operands[operand_index], *s);
  if (operand_index >= static_cast<int64_t>(rule.merge_backward_from.size())) return from_result;
  // What the other operands imply through the shared factors (a dot's batch
  // and contracting dims), merged in when compatible.
  const bool may_combine = options_.is_spmd && aggressiveness_ > 0;
  for (int64_t j : rule.merge_backward_from[operand_index]) {
    if (j == operand_index || j >= static_cast<int64_t>(rule.operands.size()) ||
        !rule.operands[j]) {
      continue;
    }
    const HloSharding* other = Get(SlotOf(user.operand(j), 0));
    if (other == nullptr || !other->IsTiled()) continue;
    HloSharding implied =
        ProjectThrough(rule, *rule.operands[j], *rule.operands[operand_index], *other);
    if (may_combine && from_result.HasPartialReplication() && implied.HasPartialReplication()) {
      if (std::optional<HloSharding> m = MergeShardings(from_result, implied)) {
        from_result = std::move(*m);
        continue;
      }
    }
    if (IsMoreSpecific(implied, from_result)) from_result = implied;
  }
  return from_result;
}

bool Propagator::InferBackward(int64_t index) {
  HloInstruction* inst = order_[index];
  const int64_t leaves = LeafCount(index);
  const int64_t first = first_slot_[index];
  bool changed = false;
  for (const HloInstruction* user : inst->users()) {
    if (IndexOf(user) < 0) continue;
    for (int64_t k = 0; k < user->operand_count(); ++k) {
      if (user->operand(k) != inst) continue;
      switch (user->opcode()) {
        case HloOpcode::kTuple:
          // As XLA (operand_index), a value used twice takes its first
          // element's sharding.
          if (std::find(user->operands().begin(), user->operands().begin() + k, inst) ==
              user->operands().begin() + k) {
            changed |= CopyLeaves(user, ElementLeafOffset(user, k), inst, 0, leaves,
                                  ShardingOrigin::Kind::kBackward, "tuple");
          }
          continue;
        case HloOpcode::kGetTupleElement:
          changed |= CopyLeaves(user, 0, inst, ElementLeafOffset(inst, user->tuple_index()),
                                user->shape().LeafCount(), ShardingOrigin::Kind::kBackward,
                                "get-tuple-element");
          continue;
        case HloOpcode::kOptimizationBarrier:
        case HloOpcode::kWhile:
          changed |= CopyLeaves(user, 0, inst, 0, leaves, ShardingOrigin::Kind::kBackward,
                                user->opcode() == HloOpcode::kWhile ? "while" : "opt-barrier");
          continue;
        case HloOpcode::kOutfeed:
          if (k == 0) changed |= FromOutfeed(*user, index);
          continue;
        default:
          break;
      }
      if (IsStructural(user->opcode()) || IsCustomCall(*user, "SPMDFullToShardShape")) continue;
      // Manual users make their operands manual (not constants, which
      // non-manual code may share, as XLA).
      const HloSharding* us = Get(SlotOf(user, 0));
      if (us != nullptr && us->IsManual() && inst->shape().IsArray() &&
          inst->opcode() != HloOpcode::kConstant) {
        ShardingOrigin origin;
        origin.kind = ShardingOrigin::Kind::kBackward;
        origin.from = user;
        origin.rule = "manual";
        changed |= Improve(first, *us, origin, false);
        continue;
      }
      const FactorRule* rule = RuleOf(user);
      if (rule == nullptr && user->opcode() == HloOpcode::kCustomCall && aggressiveness_ >= 1 &&
          !IsCustomCall(*user, "SPMDShardToFullShape") && inst->shape().IsArray() &&
          !slots_[first].sharding && Get(SlotOf(user, 0)) != nullptr) {
        // Operands of custom-calls nobody can partition are replicated.
        ShardingOrigin origin;
        origin.kind = ShardingOrigin::Kind::kBackward;
        origin.from = user;
        origin.rule = "operand of an unknown custom-call: replicated";
        changed |= Improve(first, HloSharding::Replicated(), origin, false);
        continue;
      }
      if (rule == nullptr || aggressiveness_ < rule->min_aggressiveness_backward) continue;
      if (!rule->operands[k] && aggressiveness_ < 1) continue;
      std::optional<HloSharding> s = FromUserRule(*user, *rule, k);
      if (!s || !inst->shape().IsArray()) continue;
      ShardingOrigin origin;
      origin.kind = ShardingOrigin::Kind::kBackward;
      origin.from = user;
      origin.rule = rule->name;
      changed |= Improve(first, *s, origin, /*allow_aggressive=*/false);
    }
  }
  return changed;
}

// An outfeed's tuple sharding names its data operand's leaves first.
bool Propagator::FromOutfeed(const HloInstruction& outfeed, int64_t operand_index) {
  if (!outfeed.has_sharding() || !outfeed.sharding().IsTuple()) return false;
  const std::vector<HloSharding>& elements = outfeed.sharding().tuple_elements();
  bool changed = false;
  for (int64_t l = 0; l < LeafCount(operand_index) && l < static_cast<int64_t>(elements.size());
       ++l) {
    if (elements[l].kind() == HloSharding::Kind::kUnknown) continue;
    ShardingOrigin origin;
    origin.kind = ShardingOrigin::Kind::kBackward;
    origin.from = &outfeed;
    origin.rule = "outfeed";
    changed |= Improve(first_slot_[operand_index] + l, elements[l].Normalized(), origin, false);
  }
  return changed;
}

void Propagator::RunLevel() {
  for (size_t i = 0; i < order_.size(); ++i) {
    forward_dirty_.insert(static_cast<int64_t>(i));
    backward_dirty_.insert(static_cast<int64_t>(i));
  }
  bool groups_changed = false;
  while (!forward_dirty_.empty() || !backward_dirty_.empty() || groups_changed) {
    ++rounds_;
    // XLA takes shard-group shardings first in each iteration.
    groups_changed = InferFromShardGroups();
    // Forward in post order, then backward in reverse post order, each
    // visiting only what changed around it (XLA's sweeps, as a worklist).
    int64_t position = -1;
    for (auto it = forward_dirty_.upper_bound(position); it != forward_dirty_.end();
         it = forward_dirty_.upper_bound(position)) {
      position = *it;
      forward_dirty_.erase(it);
      if (InferForward(position)) MarkChanged(order_[position]);
    }
    position = static_cast<int64_t>(order_.size());
    for (auto it = backward_dirty_.lower_bound(position); it != backward_dirty_.begin();
         it = backward_dirty_.lower_bound(position)) {
      --it;
      position = *it;
      backward_dirty_.erase(it);
      if (InferBackward(position)) MarkChanged(order_[position]);
    }
    // What a sweep woke behind its position waits for the next round.
  }
}

// Linked values agree at the end even where improvement could not make
// them: every unannotated member takes the group's most specific sharding
// (an annotated one first).
void Propagator::FinalizeLinks() {
  for (const std::vector<int64_t>& group : links_) {
    int64_t best = -1;
    for (int64_t s : group) {
      if (!slots_[s].sharding) continue;
      if (best < 0 || (slots_[s].provided && !slots_[best].provided) ||
          (slots_[s].provided == slots_[best].provided &&
           IsMoreSpecific(*slots_[s].sharding, *slots_[best].sharding))) {
        best = s;
      }
    }
    if (best < 0) continue;
    for (int64_t s : group) {
      if (s == best || slots_[s].provided) continue;
      if (slots_[s].sharding && *slots_[s].sharding == *slots_[best].sharding) continue;
      slots_[s].sharding = slots_[best].sharding;
      slots_[s].origin.kind = ShardingOrigin::Kind::kLinked;
      const int64_t index = IndexOfSlot(best);
      slots_[s].origin.sources.clear();
      AddSources(slots_[best].origin, order_[index], &slots_[s].origin.sources);
      slots_[s].origin.from = order_[index];
      slots_[s].origin.from_leaf = best - first_slot_[index];
      slots_[s].origin.rule = "while/call/conditional values agree";
    }
  }
}

PropagationResult Propagator::WriteBack() {
  PropagationResult result;
  for (size_t i = 0; i < order_.size(); ++i) {
    HloInstruction* inst = order_[i];
    const int64_t leaves = LeafCount(i);
    const int64_t first = first_slot_[i];
    InstructionOrigins origins;
    origins.instruction = inst;
    bool any = false;
    std::vector<HloSharding> elements;
    for (int64_t l = 0; l < leaves; ++l) {
      const Slot& slot = slots_[first + l];
      origins.leaves.push_back(slot.origin);
      any |= slot.sharding.has_value();
      elements.push_back(slot.sharding ? *slot.sharding : HloSharding::Replicated());
    }
    if (any) {
      HloSharding sharding = inst->shape().IsTuple() ? HloSharding::Tuple(std::move(elements))
                                                     : std::move(elements[0]);
      if (!inst->has_sharding() || !(inst->sharding() == sharding) ||
          (original_sharded_[i] && inst->sharding().IsTuple() != sharding.IsTuple())) {
        // Keep the written form of annotations that did not change meaning.
        if (!(inst->has_sharding() && inst->sharding() == sharding)) {
          inst->set_sharding(std::move(sharding));
          result.changed = true;
        }
      }
    } else if (!inst->has_sharding()) {
      ++result.unsharded;
    }
    result.instructions.push_back(std::move(origins));
  }
  return result;
}

PropagationResult Propagator::Run() {
  for (aggressiveness_ = 0; aggressiveness_ < 4; ++aggressiveness_) RunLevel();
  aggressiveness_ = 3;
  if (!shard_groups_.empty()) {
    // As XLA: align the shard_as groups, then once more at the top level.
    AlignShardAsGroups();
    RunLevel();
  }
  FinalizeLinks();
  ReplicateUnevenEntryValues();
  PropagationResult result = WriteBack();
  result.fixed_point_rounds = rounds_;
  result.inferences = inferences_;
  return result;
}

}  // namespace xlite::spmd
