// The partitioner's driver: computations are partitioned into new ones
// (callees on demand, per sharding of their parameters), each instruction
// by its opcode's handler, its result then resharded to the instruction's
// own sharding; the old computations are dropped at the end.
#include "xlite/spmd/partitioner.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/spmd/partition_util.h"
#include "xlite/spmd/partitioner_internal.h"
#include "xlite/spmd/reshard.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

const PartitionHandlerTable& Handlers() {
  static const PartitionHandlerTable* table = [] {
    auto* t = new PartitionHandlerTable();
    RegisterRuleHandlers(*t);
    RegisterContractionHandlers(*t);
    RegisterControlHandlers(*t);
    return t;
  }();
  return *table;
}

bool IsControlOpcode(HloOpcode op) {
  switch (op) {
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kWhile:
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kCustomCall:
      return true;
    default:
      return false;
  }
}

std::string ShardingsKey(const std::vector<HloSharding>& parameters, const HloSharding& root) {
  std::string key;
  for (const HloSharding& p : parameters) Append(&key, PrintSharding(p), ";");
  Append(&key, "->", PrintSharding(root));
  return key;
}

absl::Status CheckShardings(const HloModule& module, int64_t n) {
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) {
      if (!inst->has_sharding()) continue;
      const Shape described =
          inst->opcode() == HloOpcode::kOutfeed
              ? OutfeedShardingShape(inst->sharding(), inst->operand(0)->shape())
              : inst->shape();
      if (absl::Status valid = inst->sharding().Validate(described, n); !valid.ok()) {
        return InvalidArgument("%", inst->name(), ": sharding ", PrintSharding(inst->sharding()),
                               ": ", valid.message(), " (num_partitions in its HloModule line)");
      }
      for (const HloSharding& leaf : LeafShardings(inst->sharding(), described)) {
        if (leaf.IsTiled() && leaf.tile_assignment().num_elements() != n) {
          return InvalidArgument("%", inst->name(), ": sharding ", PrintSharding(leaf), " covers ",
                                 leaf.tile_assignment().num_elements(),
                                 " devices, but the module has ", n, " partition",
                                 n == 1 ? "" : "s", " (num_partitions in its HloModule line)");
        }
      }
    }
  }
  return absl::OkStatus();
}

void CollectLeafShapes(const Shape& shape, std::vector<const Shape*>* out) {
  if (!shape.IsTuple()) {
    out->push_back(&shape);
    return;
  }
  for (const Shape& e : shape.tuple_shapes()) CollectLeafShapes(e, out);
}

}  // namespace

bool AllManual(const HloSharding& sharding, const Shape& shape) {
  std::vector<const Shape*> shapes;
  CollectLeafShapes(shape, &shapes);
  const std::vector<HloSharding> leaves = LeafShardings(sharding, shape);
  bool any = false;
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (shapes[i]->IsToken()) continue;  // a token carries no data to split
    if (!leaves[i].IsManual()) return false;
    any = true;
  }
  return any;
}

absl::StatusOr<PValue> PartitionManual(const HloInstruction& inst, PartitionState& s) {
  std::vector<HloInstruction*> operands;
  for (const HloInstruction* operand : inst.operands()) {
    const PValue& v = s.Value(operand);
    if (!AllManual(v.sharding, v.global) && IsSplit(v.sharding)) {
      return Unimplemented("%", inst.name(), " is manual but its operand %", operand->name(),
                           " is sharded ", PrintSharding(v.sharding),
                           " (enter manual code through "
                           "SPMDFullToShardShape)");
    }
    operands.push_back(v.local);
  }
  HloInstruction* clone = s.Clone(inst, operands, inst.shape());
  return PValue{clone, s.TargetOf(inst), inst.shape()};
}

PartitionState::PartitionState(ModulePartitioner& module, const HloComputation& original,
                               HloComputation& partitioned)
    : module_(module), original_(original), partitioned_(partitioned) {}

PartitionBuilder& PartitionState::b() { return module_.builder(); }
int64_t PartitionState::num_partitions() const { return module_.builder().num_partitions(); }

HloSharding PartitionState::TargetOf(const HloInstruction& inst) const {
  // An outfeed's sharding describes its data; its result is a token.
  if (!inst.has_sharding() || inst.opcode() == HloOpcode::kOutfeed) {
    return ReplicatedLike(inst.shape());
  }
  if (inst.shape().IsTuple()) {
    return ForPartitioning(HloSharding::Tuple(LeafShardings(inst.sharding(), inst.shape())));
  }
  return ForPartitioning(inst.sharding());
}

const PValue& PartitionState::Value(const HloInstruction* original) const {
  auto it = values_.find(original);
  XLITE_CHECK(it != values_.end());
  return it->second;
}

absl::StatusOr<HloInstruction*> PartitionState::OperandAs(const HloInstruction& inst, int64_t i,
                                                          const HloSharding& target,
                                                          std::string_view reason) {
  const PValue& v = Value(inst.operand(i));
  Cause cause{inst.operand(i), v.sharding, &inst, target,
              Cat(reason, " ", i, " of ", OpcodeName(inst.opcode()))};
  XLITE_ASSIGN_OR_RETURN(PValue resharded, Reshard(v, target, cause));
  return resharded.local;
}

absl::StatusOr<PValue> PartitionState::Reshard(const PValue& value, const HloSharding& target,
                                               const Cause& cause) {
  if (value.global.IsTuple()) {
    std::vector<HloSharding> from = LeafShardings(value.sharding, value.global);
    std::vector<HloSharding> to = LeafShardings(target, value.global);
    if (from == to) return value;
    std::vector<HloInstruction*> elements;
    std::vector<Shape> shapes;
    for (int64_t i = 0; i < value.global.tuple_size(); ++i) {
      const Shape& element_global = value.global.tuple_shapes(i);
      HloInstruction* gte = b().maker().GetTupleElement(c(), value.local, i);
      PValue element{gte, ElementSharding(value.sharding, value.global, i), element_global};
      XLITE_ASSIGN_OR_RETURN(PValue moved,
                             Reshard(element, ElementSharding(target, value.global, i), cause));
      elements.push_back(moved.local);
      shapes.push_back(moved.local->shape());
    }
    HloInstruction* tuple =
        b().maker().Add(c(), HloOpcode::kTuple, Shape::Tuple(std::move(shapes)), elements);
    return PValue{tuple, HloSharding::Tuple(to), value.global};
  }
  if (!value.global.IsArray() || value.sharding == target) {
    return PValue{value.local, target, value.global};
  }
  if (target.IsManual() && value.sharding.IsReplicated()) {
    // Every device holds the whole value: it is each device's manual value.
    return PValue{value.local, target, value.global};
  }
  std::optional<HloSharding> reachable =
      ReachableInManualGroups(value.sharding, target, num_partitions());
  if (value.sharding.IsManual() != target.IsManual() || !reachable) {
    std::string where =
        cause.consumer != nullptr ? Cat(" at %", cause.consumer->name()) : std::string();
    return Unimplemented("resharding ", PrintSharding(value.sharding), " to ",
                         PrintSharding(target), where,
                         " (manual values leave manual code through SPMDShardToFullShape)");
  }
  if (value.sharding == *reachable) return PValue{value.local, *reachable, value.global};
  std::vector<ReshardStep> plan =
      PlanReshard(value.sharding, *reachable, value.global, num_partitions());
  HloInstruction* local =
      EmitReshard(b(), c(), value.local, value.sharding, plan, value.global, cause);
  return PValue{local, *reachable, value.global};
}

int64_t PartitionState::ReshardBytes(const HloSharding& from, const HloSharding& to,
                                     const Shape& global) const {
  if (!global.IsArray() || from.IsManual() || to.IsManual()) return 0;
  std::optional<HloSharding> reachable = ReachableInManualGroups(from, to, num_partitions());
  // Unreachable: never the cheaper choice.
  if (!reachable) return std::numeric_limits<int64_t>::max() / 64;
  return PlanBytes(PlanReshard(from, *reachable, global, num_partitions()));
}

int64_t PartitionState::ReshardBytes(const PValue& value, const HloSharding& target) const {
  if (value.global.IsTuple()) {
    std::vector<HloSharding> from = LeafShardings(value.sharding, value.global);
    std::vector<HloSharding> to = LeafShardings(target, value.global);
    int64_t bytes = 0;
    int64_t leaf = 0;
    // Leaves in depth-first order, matching LeafShardings.
    std::function<void(const Shape&)> visit = [&](const Shape& s) {
      if (s.IsTuple()) {
        for (const Shape& e : s.tuple_shapes()) visit(e);
        return;
      }
      bytes += ReshardBytes(from[leaf], to[leaf], s);
      ++leaf;
    };
    visit(value.global);
    return bytes;
  }
  return ReshardBytes(value.sharding, target, value.global);
}

HloInstruction* PartitionState::Clone(const HloInstruction& inst,
                                      absl::Span<HloInstruction* const> operands,
                                      const Shape& shape) {
  HloInstruction* clone = b().maker().Clone(c(), inst, operands);
  *clone->mutable_shape() = shape;
  clone->clear_sharding();
  if (module_.ClaimName(inst.name())) clone->set_name(inst.name());
  return clone;
}

absl::StatusOr<PValue> PartitionReplicated(const HloInstruction& inst, PartitionState& s,
                                           std::string reason) {
  std::vector<HloInstruction*> operands;
  bool gathered = false;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const PValue& v = s.Value(inst.operand(i));
    const HloSharding replicated = ReplicatedLike(v.global);
    for (const HloSharding& leaf : LeafShardings(v.sharding, v.global)) {
      gathered = gathered || IsSplit(leaf);
    }
    XLITE_ASSIGN_OR_RETURN(HloInstruction * local,
                           s.OperandAs(inst, i, replicated, "replicated operand"));
    operands.push_back(local);
  }
  HloInstruction* clone = s.Clone(inst, operands, inst.shape());
  const HloSharding target = s.TargetOf(inst);
  const std::vector<HloSharding> target_leaves = LeafShardings(target, inst.shape());
  const bool wanted_split = std::any_of(target_leaves.begin(), target_leaves.end(),
                                        [](const HloSharding& leaf) { return IsSplit(leaf); });
  if (gathered || wanted_split) s.b().Fallback(inst, std::move(reason));
  return PValue{clone, ReplicatedLike(inst.shape()), inst.shape()};
}

ModulePartitioner::ModulePartitioner(HloModule& module, PartitionReport* report)
    : module_(module), builder_(module, module.config().num_partitions, report) {
  for (const auto& c : module.computations()) computation_names_.insert(c->name());
}

absl::StatusOr<HloComputation*> ModulePartitioner::PartitionComputation(
    const HloComputation& original, const std::vector<HloSharding>& parameters,
    const HloSharding& root, const HloComputation* before) {
  const std::string key = Cat(original.name(), "|", ShardingsKey(parameters, root));
  if (auto it = partitioned_.find(key); it != partitioned_.end()) return it->second;
  if (in_progress_.count(&original) > 0) {
    return Unimplemented("recursive call of computation ", original.name());
  }
  in_progress_.insert(&original);
  // The first partitioned form keeps the name (the original is dropped).
  std::string name = original.name();
  if (replaced_.count(&original) > 0) {
    for (int64_t i = 1; computation_names_.count(name) > 0; ++i) {
      name = Cat(original.name(), ".", i);
    }
    computation_names_.insert(name);
  }
  HloComputation* c = module_.AddComputationBefore(std::make_unique<HloComputation>(name), before);
  replaced_.insert(&original);
  PartitionState s(*this, original, *c);
  for (HloInstruction* inst : original.MakeInstructionPostOrder()) {
    if (inst->opcode() == HloOpcode::kParameter) {
      const int64_t number = inst->parameter_number();
      const HloSharding sharding =
          number < static_cast<int64_t>(parameters.size()) ? parameters[number] : s.TargetOf(*inst);
      HloInstruction* param = s.Clone(*inst, {}, ShardShape(inst->shape(), sharding));
      s.SetValue(inst, PValue{param, sharding, inst->shape()});
      continue;
    }
    const HloSharding target = s.TargetOf(*inst);
    absl::StatusOr<PValue> value;
    if (AllManual(target, inst->shape()) && !IsControlOpcode(inst->opcode())) {
      value = PartitionManual(*inst, s);
    } else if (PartitionHandler handler = Handlers().Get(inst->opcode())) {
      value = handler(*inst, s);
    } else {
      value = PartitionReplicated(*inst, s,
                                  Cat("no partitioning rule for ", OpcodeName(inst->opcode())));
    }
    if (!value.ok()) {
      in_progress_.erase(&original);
      return value.status();
    }
    Cause cause{inst, value->sharding, inst, target, "result sharding"};
    absl::StatusOr<PValue> resharded = s.Reshard(*value, target, cause);
    if (!resharded.ok()) {
      in_progress_.erase(&original);
      return resharded.status();
    }
    s.SetValue(inst, *std::move(resharded));
  }
  const HloInstruction* old_root = original.root_instruction();
  const PValue& root_value = s.Value(old_root);
  absl::StatusOr<PValue> result = s.Reshard(
      root_value, root,
      Cause{old_root, root_value.sharding, nullptr, root, Cat("result of ", original.name())});
  in_progress_.erase(&original);
  if (!result.ok()) return result.status();
  c->set_root_instruction(result->local);
  partitioned_[key] = c;
  return c;
}

namespace {

// The sharding the partitioner reads for an entry parameter or root.
HloSharding EntrySharding(const HloInstruction& inst) {
  if (!inst.has_sharding()) return ReplicatedLike(inst.shape());
  if (inst.shape().IsTuple()) {
    return ForPartitioning(HloSharding::Tuple(LeafShardings(inst.sharding(), inst.shape())));
  }
  return ForPartitioning(inst.sharding());
}

// The flat leaves [first, first + count) of `shape` that `index` names, or
// nullopt when it names no sub-shape.
std::optional<std::pair<int64_t, int64_t>> LeafRange(const Shape& shape, const ShapeIndex& index) {
  const Shape* at = &shape;
  int64_t first = 0;
  for (int64_t i : index) {
    if (!at->IsTuple() || i < 0 || i >= static_cast<int64_t>(at->tuple_shapes().size())) {
      return std::nullopt;
    }
    for (int64_t k = 0; k < i; ++k) first += at->tuple_shapes(k).LeafCount();
    at = &at->tuple_shapes(i);
  }
  return std::make_pair(first, at->LeafCount());
}

std::string IndexText(const ShapeIndex& index) { return Cat("{", absl::StrJoin(index, ","), "}"); }

// An output that aliases a parameter shares the parameter's buffer, so it
// takes the parameter's sharding, leaf by leaf (the partitioner reshards the
// result to it): the pair keeps one per-partition shape.
absl::Status AlignAliasedOutputs(const HloModule& module, EntryShardings& out) {
  if (module.config().input_output_alias.empty()) return absl::OkStatus();
  std::vector<HloSharding> result = LeafShardings(out.result, out.result_shape);
  for (const InputOutputAlias& alias : module.config().input_output_alias) {
    if (alias.parameter < 0 || alias.parameter >= static_cast<int64_t>(out.parameters.size())) {
      return InvalidArgument("input_output_alias names parameter ", alias.parameter,
                             " of an entry with ", out.parameters.size());
    }
    const Shape& param_shape = out.parameter_shapes[alias.parameter];
    std::optional<std::pair<int64_t, int64_t>> to = LeafRange(out.result_shape, alias.output_index);
    std::optional<std::pair<int64_t, int64_t>> from = LeafRange(param_shape, alias.parameter_index);
    if (!to.has_value() || !from.has_value() || to->second != from->second) {
      return InvalidArgument("input_output_alias of output ", IndexText(alias.output_index),
                             " and parameter ", alias.parameter, " ",
                             IndexText(alias.parameter_index), " pairs values of different shapes");
    }
    std::vector<HloSharding> param = LeafShardings(out.parameters[alias.parameter], param_shape);
    for (int64_t k = 0; k < to->second; ++k) result[to->first + k] = param[from->first + k];
  }
  out.result = out.result_shape.IsTuple() ? HloSharding::Tuple(std::move(result))
                                          : std::move(result.front());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<EntryShardings> EntryShardingsOf(const HloModule& module) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return InvalidArgument("the module has no entry computation");
  EntryShardings out;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const HloInstruction* p = entry->parameter_instruction(i);
    out.parameters.push_back(EntrySharding(*p));
    out.parameter_shapes.push_back(p->shape());
  }
  out.result = EntrySharding(*entry->root_instruction());
  out.result_shape = entry->root_instruction()->shape();
  XLITE_RETURN_IF_ERROR(AlignAliasedOutputs(module, out));
  return out;
}

absl::StatusOr<PartitionReport> PartitionModule(HloModule& module, EntryShardings* entry) {
  PartitionReport report;
  const int64_t n = module.config().num_partitions;
  report.num_partitions = n;
  XLITE_ASSIGN_OR_RETURN(EntryShardings shardings, EntryShardingsOf(module));
  if (entry != nullptr) *entry = shardings;
  HloComputation* old_entry = module.entry_computation();
  const std::vector<HloSharding>& parameters = shardings.parameters;
  const HloSharding& root = shardings.result;
  // One partition runs the module whole: a tiled sharding cannot be met.
  if (n <= 1) {
    XLITE_RETURN_IF_ERROR(CheckShardings(module, 1));
    return report;
  }
  if (module.config().replica_count != 1) {
    return Unimplemented("SPMD partitioning with replica_count=", module.config().replica_count,
                         " (only num_partitions)");
  }
  XLITE_RETURN_IF_ERROR(CheckShardings(module, n));
  // An aliased output is computed in its parameter's sharding rather than
  // resharded to it at the end.
  if (!module.config().input_output_alias.empty()) {
    old_entry->root_instruction()->set_sharding(root);
  }
  ModulePartitioner partitioner(module, &report);
  XLITE_ASSIGN_OR_RETURN(HloComputation * new_entry,
                         partitioner.PartitionComputation(*old_entry, parameters, root, old_entry));
  // The entry keeps its global shardings on its parameters and root, as a
  // record of how to split inputs and assemble outputs.
  for (int64_t i = 0; i < old_entry->num_parameters(); ++i) {
    HloInstruction* p = new_entry->parameter_instruction(i);
    if (old_entry->parameter_instruction(i)->has_sharding()) {
      p->set_sharding(old_entry->parameter_instruction(i)->sharding());
    }
  }
  module.set_entry_computation(new_entry);
  // Drop the replaced computations nothing calls any more.
  std::set<const HloComputation*> reachable;
  std::vector<const HloComputation*> stack = {new_entry};
  while (!stack.empty()) {
    const HloComputation* c = stack.back();
    stack.pop_back();
    if (!reachable.insert(c).second) continue;
    for (const auto& inst : c->instructions()) {
      for (const HloComputation* called : inst->called_computations()) stack.push_back(called);
    }
  }
  const std::set<const HloComputation*>& replaced = partitioner.replaced();
  module.RemoveComputationsIf(
      [&](const HloComputation* c) { return replaced.count(c) > 0 && reachable.count(c) == 0; });
  partitioner.builder().maker().Finish();
  module.config().entry_parameter_layouts.reset();
  module.config().entry_result_layout.reset();
  module.clear_schedule();
  return report;
}

absl::StatusOr<bool> SpmdPartitionerPass::Run(HloModule& module) {
  if (module.config().num_partitions <= 1) return false;
  XLITE_ASSIGN_OR_RETURN(report_, PartitionModule(module));
  return true;
}

}  // namespace xlite::spmd
