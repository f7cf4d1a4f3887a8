#include "xlite/spmd/propagator.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "xlite/base/check.h"
#include "xlite/spmd/sharding_annotations.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

// XLA's IsSpatiallyPartitioned: tiled or replicated (not maximal, manual,
// unknown).
bool IsSpatiallyPartitioned(const HloSharding& s) { return s.IsTiled() || s.IsReplicated(); }

// The annotation of each array leaf (an outfeed's tuple sharding also
// covers its data operand: its token result takes the last element).
std::vector<HloSharding> LeafShardings(const HloInstruction& inst, int64_t leaves) {
  const HloSharding& s = inst.sharding();
  if (!s.IsTuple()) return std::vector<HloSharding>(static_cast<size_t>(leaves), s);
  const std::vector<HloSharding>& all = s.tuple_elements();
  if (static_cast<int64_t>(all.size()) <= leaves) return all;
  return std::vector<HloSharding>(all.end() - leaves, all.end());
}

// Which entry of the allow_spmd_sharding_propagation_to_parameters list
// governs leaf `leaf` of parameter `param`: the parameter number, or the
// tuple element when the entry has one tuple parameter and the list names
// its elements (as XLA).
int64_t ParameterIndexOfLeaf(const HloInstruction& param, int64_t leaf,
                             const ModuleConfig& config) {
  const auto& list = config.allow_spmd_sharding_propagation_to_parameters;
  const HloComputation* entry = param.parent();
  if (entry->parameter_instructions().size() == 1 && param.shape().IsTuple() &&
      list.size() == param.shape().tuple_shapes().size() && list.size() > 1) {
    int64_t first = 0;
    for (size_t e = 0; e < param.shape().tuple_shapes().size(); ++e) {
      const int64_t n = param.shape().tuple_shapes()[e].LeafCount();
      if (leaf < first + n) return static_cast<int64_t>(e);
      first += n;
    }
  }
  return param.parameter_number();
}

bool AllowedAt(const std::vector<bool>& list, std::optional<bool> override_all, int64_t i) {
  if (override_all) return *override_all;
  if (list.size() == 1) return list[0];
  return i >= 0 && i < static_cast<int64_t>(list.size()) && list[i];
}

// Array leaf `leaf` of `shape` (leaves in order).
const Shape* LeafShape(const Shape& shape, int64_t* leaf) {
  if (!shape.IsTuple()) return (*leaf)-- == 0 ? &shape : nullptr;
  for (const Shape& e : shape.tuple_shapes()) {
    if (const Shape* found = LeafShape(e, leaf)) return found;
  }
  return nullptr;
}

// XLA's IsSubTilingOrEqualSharding: every device's tile of `sub` lies in
// its tile of `base` (a refinement that moves no data).
bool IsSubTiling(const Shape* shape, const HloSharding& sub, const HloSharding& base) {
  if (shape == nullptr || !shape->IsArray() || !sub.IsTiled() || !base.IsTiled() ||
      sub.ManualFactor() != base.ManualFactor() ||
      sub.tile_assignment().num_elements() != base.tile_assignment().num_elements()) {
    return false;
  }
  for (int64_t device : sub.tile_assignment().Devices()) {
    auto inner = sub.TileBounds(*shape, device);
    auto outer = base.TileBounds(*shape, device);
    if (!inner.ok() || !outer.ok()) return false;
    for (size_t d = 0; d < inner->size(); ++d) {
      const auto [lo, hi] = (*inner)[d];
      if (lo < hi && (lo < (*outer)[d].first || hi > (*outer)[d].second)) return false;
    }
  }
  return true;
}

bool EvenlyDivides(const HloSharding& s, const Shape& shape) {
  if (!s.IsTiled() || !shape.IsArray()) return true;
  const std::vector<int64_t> tiles = s.DataTileDims();
  for (int64_t d = 0; d < shape.rank() && d < static_cast<int64_t>(tiles.size()); ++d) {
    if (shape.dimensions(d) % tiles[d] != 0) return false;
  }
  return true;
}

}  // namespace

Propagator::Propagator(HloModule& module, const PropagationOptions& options)
    : module_(module), options_(options) {
  CollectComputations();
  InitSlots();
  CollectShardGroups();
}

int64_t Propagator::IndexOf(const HloInstruction* inst) const {
  const int64_t id = inst->unique_id();
  if (id >= 0 && id < static_cast<int64_t>(index_by_id_.size())) {
    const int64_t index = index_by_id_[id];
    if (index >= 0 && order_[index] == inst) return index;
    if (index < 0) return -1;
  }
  auto it = index_.find(inst);
  return it == index_.end() ? -1 : it->second;
}

const FactorRule* Propagator::RuleOf(const HloInstruction* inst) {
  const int64_t index = IndexOf(inst);
  if (index < 0) return nullptr;
  if (!rule_built_[index]) {
    rules_[index] = FactorRuleOf(*inst);
    rule_built_[index] = true;
  }
  return rules_[index] ? &*rules_[index] : nullptr;
}

int64_t Propagator::ElementLeafOffset(const HloInstruction* inst, int64_t element) {
  const int64_t index = IndexOf(inst);
  std::vector<int64_t>& offsets = element_offsets_[index];
  if (offsets.empty()) {
    offsets.push_back(0);
    for (const Shape& s : inst->shape().tuple_shapes())
      offsets.push_back(offsets.back() + s.LeafCount());
  }
  return element < static_cast<int64_t>(offsets.size()) ? offsets[element] : offsets.back();
}

int64_t Propagator::SlotOf(const HloInstruction* inst, int64_t leaf) const {
  const int64_t index = IndexOf(inst);
  if (index < 0 || leaf < 0 || leaf >= LeafCount(index)) return -1;
  return first_slot_[index] + leaf;
}

int64_t Propagator::IndexOfSlot(int64_t slot) const {
  return std::upper_bound(first_slot_.begin(), first_slot_.end(), slot) - first_slot_.begin() - 1;
}

const HloSharding* Propagator::Get(int64_t slot) const {
  if (slot < 0 || !slots_[slot].sharding) return nullptr;
  return &*slots_[slot].sharding;
}

// The entry and every computation whose values are the caller's values:
// while bodies and conditions, called computations, branches, fusions.
// Reducers and comparators are scalar code and take no part.
void Propagator::CollectComputations() {
  std::vector<const HloComputation*> wanted = {module_.entry_computation()};
  absl::flat_hash_map<const HloComputation*, bool> seen;
  seen[module_.entry_computation()] = true;
  for (size_t i = 0; i < wanted.size(); ++i) {
    for (const auto& inst : wanted[i]->instructions()) {
      switch (inst->opcode()) {
        case HloOpcode::kWhile:
        case HloOpcode::kCall:
        case HloOpcode::kConditional:
        case HloOpcode::kFusion:
          for (const HloComputation* c : inst->called_computations()) {
            if (!seen[c]) {
              seen[c] = true;
              wanted.push_back(c);
            }
          }
          break;
        default:
          break;
      }
    }
  }
  for (const auto& c : module_.computations()) {
    if (seen.contains(c.get())) computations_.push_back(c.get());
  }
  int64_t max_id = -1;
  for (HloComputation* c : computations_) {
    for (HloInstruction* inst : c->MakeInstructionPostOrder()) {
      index_[inst] = static_cast<int64_t>(order_.size());
      order_.push_back(inst);
      max_id = std::max<int64_t>(max_id, inst->unique_id());
    }
  }
  index_by_id_.assign(static_cast<size_t>(max_id + 1), -1);
  for (size_t i = 0; i < order_.size(); ++i) {
    const int64_t id = order_[i]->unique_id();
    if (id >= 0) index_by_id_[id] = static_cast<int64_t>(i);
  }
  rules_.resize(order_.size());
  rule_built_.assign(order_.size(), false);
  element_offsets_.resize(order_.size());
}

void Propagator::InitSlots() {
  first_slot_.push_back(0);
  for (const HloInstruction* inst : order_) {
    first_slot_.push_back(first_slot_.back() + inst->shape().LeafCount());
  }
  slots_.resize(first_slot_.back());
  original_sharded_.assign(order_.size(), false);
  const HloComputation* entry = module_.entry_computation();
  const ModuleConfig& config = module_.config();
  for (size_t i = 0; i < order_.size(); ++i) {
    const HloInstruction* inst = order_[i];
    const int64_t leaves = LeafCount(i);
    original_sharded_[i] = inst->has_sharding();
    // Entry parameters and the entry root take shardings only where the
    // module (or the pass arguments) allow it; where allowed, their
    // annotations are a start that propagation may refine (as XLA).
    const bool entry_parameter = inst->parent() == entry && inst->opcode() == HloOpcode::kParameter;
    const bool entry_root = inst == entry->root_instruction();
    auto frozen = [&](int64_t leaf) {
      if (entry_parameter) {
        return !AllowedAt(config.allow_spmd_sharding_propagation_to_parameters,
                          options_.propagate_to_parameters,
                          ParameterIndexOfLeaf(*inst, leaf, config));
      }
      if (entry_root) {
        return !AllowedAt(config.allow_spmd_sharding_propagation_to_output,
                          options_.propagate_to_output, leaf);
      }
      return true;
    };
    std::vector<HloSharding> given;
    if (inst->has_sharding()) given = LeafShardings(*inst, leaves);
    for (int64_t l = 0; l < leaves; ++l) {
      Slot& slot = slots_[first_slot_[i] + l];
      // XLA drops what an earlier CSE-prevention run annotated.
      const bool annotated = l < static_cast<int64_t>(given.size()) &&
                             given[l].kind() != HloSharding::Kind::kUnknown &&
                             !IsCsePreventionSharding(given[l]);
      if (annotated) {
        slot.sharding = given[l].Normalized();
        slot.sharding->clear_shard_group();
        slot.origin.kind = ShardingOrigin::Kind::kAnnotation;
        absl::StatusOr<std::vector<int64_t>> open = UnspecifiedDims(*inst);
        std::vector<int64_t> dims = OpenDims(given[l]);
        if (open.ok()) dims.insert(dims.end(), open->begin(), open->end());
        std::sort(dims.begin(), dims.end());
        dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
        if (!dims.empty()) unspecified_dims_[first_slot_[i] + l] = std::move(dims);
      }
      slot.provided = (entry_parameter || entry_root) ? frozen(l) : annotated;
      if (!slot.provided && (entry_parameter || entry_root)) {
        refinable_entry_slots_.push_back(first_slot_[i] + l);
      }
    }
  }
  // Values that must agree.
  for (const HloInstruction* inst : order_) {
    const int64_t leaves = inst->shape().LeafCount();
    switch (inst->opcode()) {
      case HloOpcode::kWhile: {
        const HloComputation* cond = inst->called_computations()[0];
        const HloComputation* body = inst->called_computations()[1];
        LinkValues(inst, 0, body->root_instruction(), 0, leaves);
        if (body->parameter_instructions().size() == 1) {
          LinkValues(inst, 0, body->parameter_instruction(0), 0, leaves);
        }
        if (cond->parameter_instructions().size() == 1) {
          LinkValues(inst, 0, cond->parameter_instruction(0), 0, leaves);
        }
        break;
      }
      case HloOpcode::kCall:
      case HloOpcode::kFusion:
      case HloOpcode::kConditional: {
        const bool branches = inst->opcode() == HloOpcode::kConditional;
        for (size_t c = 0; c < inst->called_computations().size(); ++c) {
          const HloComputation* callee = inst->called_computations()[c];
          LinkValues(inst, 0, callee->root_instruction(), 0, leaves);
          const int64_t operand = branches ? static_cast<int64_t>(c) + 1 : -1;
          for (size_t p = 0; p < callee->parameter_instructions().size(); ++p) {
            const HloInstruction* param = callee->parameter_instructions()[p];
            const HloInstruction* arg =
                branches ? (operand < inst->operand_count() ? inst->operand(operand) : nullptr)
                         : (static_cast<int64_t>(p) < inst->operand_count() ? inst->operand(p)
                                                                            : nullptr);
            if (arg != nullptr && (!branches || p == 0)) {
              LinkValues(arg, 0, param, 0,
                         std::min(arg->shape().LeafCount(), param->shape().LeafCount()));
            }
          }
        }
        break;
      }
      default:
        break;
    }
  }
  // A group with an annotation starts with it everywhere (XLA does the same
  // before propagating).
  for (const std::vector<int64_t>& group : links_) {
    int64_t source = -1;
    for (int64_t s : group) {
      if (slots_[s].provided && slots_[s].sharding) {
        source = s;
        break;
      }
    }
    if (source >= 0) PropagateLinks(source);
  }
}

const Shape* Propagator::SlotShape(int64_t slot) const {
  const int64_t index = IndexOfSlot(slot);
  int64_t leaf = slot - first_slot_[index];
  return LeafShape(order_[index]->shape(), &leaf);
}

// As XLA, an entry parameter or root value whose propagated sharding does
// not divide it evenly is replicated (the caller passes whole buffers).
void Propagator::ReplicateUnevenEntryValues() {
  for (int64_t slot : refinable_entry_slots_) {
    Slot& s = slots_[slot];
    const Shape* shape = SlotShape(slot);
    if (!s.sharding || shape == nullptr || EvenlyDivides(*s.sharding, *shape)) continue;
    Conflict(slot, *s.sharding, s.origin, "entry value not evenly divided, replicated instead of");
    s.sharding = HloSharding::Replicated();
    s.origin.kind = ShardingOrigin::Kind::kRule;
    s.origin.rule = "entry value not evenly divided: replicated";
  }
}

void Propagator::AddLink(int64_t a, int64_t b) {
  if (a < 0 || b < 0 || a == b) return;
  int64_t ga = slots_[a].link, gb = slots_[b].link;
  if (ga >= 0 && ga == gb) return;
  if (ga < 0 && gb < 0) {
    slots_[a].link = slots_[b].link = static_cast<int64_t>(links_.size());
    links_.push_back({a, b});
    return;
  }
  if (ga < 0) std::swap(a, b), std::swap(ga, gb);
  if (gb < 0) {
    slots_[b].link = ga;
    links_[ga].push_back(b);
    return;
  }
  for (int64_t s : links_[gb]) {
    slots_[s].link = ga;
    links_[ga].push_back(s);
  }
  links_[gb].clear();
}

void Propagator::LinkValues(const HloInstruction* a, int64_t a_first, const HloInstruction* b,
                            int64_t b_first, int64_t count) {
  for (int64_t l = 0; l < count; ++l) AddLink(SlotOf(a, a_first + l), SlotOf(b, b_first + l));
}

void Propagator::Conflict(int64_t slot, const HloSharding& proposal, const ShardingOrigin& origin,
                          const char* reason) {
  std::vector<std::string>& conflicts = slots_[slot].origin.conflicts;
  if (conflicts.size() >= 3) return;
  std::string text = absl::StrCat(reason, ": ", PrintSharding(proposal));
  if (origin.from != nullptr) absl::StrAppend(&text, " from %", origin.from->name());
  if (!origin.rule.empty()) absl::StrAppend(&text, " via ", std::string(origin.rule));
  if (std::find(conflicts.begin(), conflicts.end(), text) == conflicts.end()) {
    conflicts.push_back(std::move(text));
  }
}

void Propagator::AddSources(const ShardingOrigin& from_origin, const HloInstruction* from,
                            std::vector<const HloInstruction*>* sources) const {
  if (from_origin.kind == ShardingOrigin::Kind::kAnnotation) {
    sources->push_back(from);
  } else {
    sources->insert(sources->end(), from_origin.sources.begin(), from_origin.sources.end());
  }
  std::sort(sources->begin(), sources->end(),
            [](const HloInstruction* a, const HloInstruction* b) { return a->name() < b->name(); });
  sources->erase(std::unique(sources->begin(), sources->end()), sources->end());
  if (sources->size() > ShardingOrigin::kMaxSources) sources->resize(ShardingOrigin::kMaxSources);
}

bool Propagator::Improve(int64_t slot, const HloSharding& proposal, ShardingOrigin origin,
                         bool allow_aggressive) {
  if (slot < 0) return false;
  Slot& s = slots_[slot];
  origin.aggressiveness = aggressiveness_;
  if (origin.from != nullptr) {
    const int64_t from_slot = SlotOf(origin.from, origin.from_leaf);
    if (from_slot >= 0) AddSources(slots_[from_slot].origin, origin.from, &origin.sources);
  }
  if (s.provided) {
    if (RefineUnspecified(slot, proposal, origin)) return true;
    // Only proposals that cannot agree with the annotation are conflicts
    // (a partial sharding of the same split is not).
    if (s.sharding && (proposal.IsTiled() || proposal.IsManual()) && !(*s.sharding == proposal) &&
        !MergeShardings(*s.sharding, proposal)) {
      Conflict(slot, proposal, origin, "annotation kept over");
    }
    return false;
  }
  if (proposal.IsManual()) {
    // Manual takes over an unsplit value (XLA: no sharding or tile-maximal).
    if (s.sharding && !s.sharding->IsReplicated()) return false;
    s.sharding = proposal;
    s.origin = std::move(origin);
    ++inferences_;
    PropagateLinks(slot);
    return true;
  }
  if (!IsSpatiallyPartitioned(proposal)) return false;
  if (!s.sharding) {
    s.sharding = proposal;
    s.origin = std::move(origin);
    ++inferences_;
    PropagateLinks(slot);
    return true;
  }
  const HloSharding& current = *s.sharding;
  if (current.IsManual() || current == proposal) return false;
  // XLA's MergeSharding: two partial shardings combine when compatible and
  // the result has more tiles than either; else the proposal must be more
  // specific.
  std::optional<HloSharding> next;
  bool merged = false;
  const bool may_combine = options_.is_spmd && aggressiveness_ > 0;
  if (may_combine && current.HasPartialReplication() && proposal.HasPartialReplication() &&
      current.tile_assignment().num_elements() == proposal.tile_assignment().num_elements()) {
    std::optional<HloSharding> m = MergeShardings(current, proposal);
    if (m && m->NumTiles() > std::max(current.NumTiles(), proposal.NumTiles())) {
      next = std::move(m);
      merged = true;
    }
  }
  if (!next && IsMoreSpecific(proposal, current)) next = proposal;
  if (!next) {
    if (proposal.IsTiled() && !MergeShardings(current, proposal)) {
      Conflict(slot, proposal, origin, "kept the first sharding over");
    }
    return false;
  }
  // Without aggressive resharding the proposal may only refine what is there.
  if (!merged && !allow_aggressive && current.IsTiled() &&
      !IsSubTiling(SlotShape(slot), *next, current)) {
    Conflict(slot, proposal, origin, "kept the first sharding over incompatible");
    return false;
  }
  origin.merged = merged;
  if (merged) AddSources(s.origin, order_[IndexOfSlot(slot)], &origin.sources);
  origin.conflicts = std::move(s.origin.conflicts);
  s.sharding = std::move(next);
  s.origin = std::move(origin);
  ++inferences_;
  PropagateLinks(slot);
  return true;
}

void Propagator::PropagateLinks(int64_t slot) {
  const int64_t group = slots_[slot].link;
  if (group < 0 || !slots_[slot].sharding) return;
  const int64_t index = IndexOfSlot(slot);
  for (int64_t other : links_[group]) {
    if (other == slot) continue;
    Slot& o = slots_[other];
    if (o.provided || (o.sharding && *o.sharding == *slots_[slot].sharding)) continue;
    if (o.sharding && !IsMoreSpecific(*slots_[slot].sharding, *o.sharding) &&
        !slots_[slot].provided) {
      continue;
    }
    o.sharding = slots_[slot].sharding;
    o.origin = ShardingOrigin{};
    o.origin.kind = ShardingOrigin::Kind::kLinked;
    o.origin.from = order_[index];
    o.origin.from_leaf = slot - first_slot_[index];
    o.origin.rule = "while/call/conditional values agree";
    o.origin.aggressiveness = aggressiveness_;
    AddSources(slots_[slot].origin, order_[index], &o.origin.sources);
    MarkChanged(order_[IndexOfSlot(other)]);
  }
}

void Propagator::MarkChanged(const HloInstruction* inst) {
  for (const HloInstruction* user : inst->users()) {
    const int64_t i = IndexOf(user);
    if (i >= 0) forward_dirty_.insert(i);
  }
  for (const HloInstruction* operand : inst->operands()) {
    const int64_t i = IndexOf(operand);
    if (i >= 0) backward_dirty_.insert(i);
  }
  const int64_t self = IndexOf(inst);
  if (self >= 0) {
    forward_dirty_.insert(self);
    backward_dirty_.insert(self);
  }
}

bool Propagator::CopyLeaves(const HloInstruction* from, int64_t from_first,
                            const HloInstruction* to, int64_t to_first, int64_t count,
                            ShardingOrigin::Kind kind, std::string_view rule,
                            bool allow_aggressive) {
  bool changed = false;
  for (int64_t l = 0; l < count; ++l) {
    const HloSharding* s = Get(SlotOf(from, from_first + l));
    if (s == nullptr) continue;
    ShardingOrigin origin;
    origin.kind = kind;
    origin.from = from;
    origin.from_leaf = from_first + l;
    origin.rule = rule;
    changed |= Improve(SlotOf(to, to_first + l), *s, origin, allow_aggressive);
  }
  return changed;
}

int64_t NonRootUsers(const HloInstruction& inst) {
  int64_t n = 0;
  for (const HloInstruction* user : inst.users()) n += user != inst.parent()->root_instruction();
  return n;
}

}  // namespace xlite::spmd
