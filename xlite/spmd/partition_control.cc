// Structure and control flow: tuple, get-tuple-element, while, call and
// conditional (their computations partitioned for the shardings of their
// state), optimization barriers, and custom-calls: `Sharding` constraints
// and the manual-region markers (SPMDFullToShardShape /
// SPMDShardToFullShape) disappear into resharding; other custom-calls run on
// replicated operands, or as written when manual; TopK runs on shards of
// its batch dims. Outfeeds send each device's shard; cross-replica
// all-reduces run on shards.
#include <algorithm>

#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/ir/sharding_transforms.h"
#include "xlite/spmd/factor_rule.h"
#include "xlite/spmd/partition_util.h"
#include "xlite/spmd/partitioner_internal.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

absl::StatusOr<PValue> PartitionTuple(const HloInstruction& inst, PartitionState& s) {
  std::vector<HloInstruction*> locals;
  std::vector<HloSharding> shardings;
  std::vector<Shape> globals, shapes;
  for (const HloInstruction* operand : inst.operands()) {
    const PValue& v = s.Value(operand);
    locals.push_back(v.local);
    shardings.push_back(v.sharding);
    globals.push_back(v.global);
    shapes.push_back(v.local->shape());
  }
  HloInstruction* tuple = s.Clone(inst, locals, Shape::Tuple(std::move(shapes)));
  return PValue{tuple, TupleShardingOf(shardings, globals), inst.shape()};
}

absl::StatusOr<PValue> PartitionGetTupleElement(const HloInstruction& inst, PartitionState& s) {
  const PValue& v = s.Value(inst.operand(0));
  const int64_t index = inst.tuple_index();
  HloInstruction* gte = s.Clone(inst, {v.local}, v.local->shape().tuple_shapes(index));
  return PValue{gte, ElementSharding(v.sharding, v.global, index), inst.shape()};
}

// The sharding a callee parameter takes: its own when it has one, else
// what the caller passes.
HloSharding ParameterSharding(PartitionState& s, const HloComputation& callee, int64_t number,
                              const PValue& operand) {
  const HloInstruction* p = callee.parameter_instruction(number);
  if (p != nullptr && p->has_sharding()) return s.TargetOf(*p);
  return operand.sharding;
}

absl::StatusOr<PValue> PartitionWhile(const HloInstruction& inst, PartitionState& s) {
  const HloSharding state = s.TargetOf(inst);
  HloComputation* condition = inst.called_computations()[0];
  HloComputation* body = inst.called_computations()[1];
  ModulePartitioner& m = s.module();
  XLITE_ASSIGN_OR_RETURN(HloComputation * new_body,
                         m.PartitionComputation(*body, {state}, state, &s.c()));
  // The predicate is replicated, or manual in a manual loop.
  const HloSharding predicate =
      AllManual(state, inst.shape()) ? HloSharding::Manual() : HloSharding::Replicated();
  XLITE_ASSIGN_OR_RETURN(HloComputation * new_condition,
                         m.PartitionComputation(*condition, {state}, predicate, &s.c()));
  XLITE_ASSIGN_OR_RETURN(HloInstruction * init, s.OperandAs(inst, 0, state, "loop state"));
  HloInstruction* loop = s.Clone(inst, {init}, ShardShape(inst.shape(), state));
  loop->set_called_computation(0, new_condition);
  loop->set_called_computation(1, new_body);
  return PValue{loop, state, inst.shape()};
}

absl::StatusOr<PValue> PartitionCall(const HloInstruction& inst, PartitionState& s) {
  const HloComputation& callee = *inst.to_apply();
  const HloSharding result = s.TargetOf(inst);
  std::vector<HloSharding> parameters;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    parameters.push_back(ParameterSharding(s, callee, i, s.Value(inst.operand(i))));
  }
  XLITE_ASSIGN_OR_RETURN(HloComputation * partitioned,
                         s.module().PartitionComputation(callee, parameters, result, &s.c()));
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    XLITE_ASSIGN_OR_RETURN(HloInstruction * local, s.OperandAs(inst, i, parameters[i], "argument"));
    operands.push_back(local);
  }
  HloInstruction* call = s.Clone(inst, operands, ShardShape(inst.shape(), result));
  call->set_called_computation(0, partitioned);
  return PValue{call, result, inst.shape()};
}

absl::StatusOr<PValue> PartitionConditional(const HloInstruction& inst, PartitionState& s) {
  const HloSharding result = s.TargetOf(inst);
  std::vector<HloInstruction*> operands;
  // Every device needs the whole selector; a manual one is already its own.
  const PValue& index = s.Value(inst.operand(0));
  const HloSharding whole =
      index.sharding.IsManual() ? HloSharding::Manual() : HloSharding::Replicated();
  XLITE_ASSIGN_OR_RETURN(HloInstruction * selector, s.OperandAs(inst, 0, whole, "branch selector"));
  operands.push_back(selector);
  std::vector<HloComputation*> branches;
  for (size_t b = 0; b < inst.called_computations().size(); ++b) {
    const HloComputation& branch = *inst.called_computations()[b];
    const int64_t operand = static_cast<int64_t>(b) + 1;
    HloSharding parameter = ParameterSharding(s, branch, 0, s.Value(inst.operand(operand)));
    XLITE_ASSIGN_OR_RETURN(HloComputation * partitioned,
                           s.module().PartitionComputation(branch, {parameter}, result, &s.c()));
    XLITE_ASSIGN_OR_RETURN(HloInstruction * local,
                           s.OperandAs(inst, operand, parameter, "branch argument"));
    operands.push_back(local);
    branches.push_back(partitioned);
  }
  HloInstruction* conditional = s.Clone(inst, operands, ShardShape(inst.shape(), result));
  for (size_t b = 0; b < branches.size(); ++b) conditional->set_called_computation(b, branches[b]);
  return PValue{conditional, result, inst.shape()};
}

absl::StatusOr<PValue> PartitionOptimizationBarrier(const HloInstruction& inst, PartitionState& s) {
  const PValue& v = s.Value(inst.operand(0));
  HloInstruction* barrier = s.Clone(inst, {v.local}, v.local->shape());
  return PValue{barrier, v.sharding, inst.shape()};
}

// At an SPMD marker, `local` (a shard under the full value's `full`
// sharding) must have the shape of each device's tile of the manual side:
// the device's piece is its shard on both sides.
absl::Status CheckManualShard(const HloInstruction& inst, const HloInstruction* local,
                              const HloSharding& full, const HloSharding& manual) {
  const bool to_manual = inst.attrs<CustomCallAttrs>().target == "SPMDFullToShardShape";
  const Shape& manual_shape = to_manual ? inst.shape() : inst.operand(0)->shape();
  const Shape& full_shape = to_manual ? inst.operand(0)->shape() : inst.shape();
  const Shape expected = ShardShape(manual_shape, manual);
  if (!(ShardShape(full_shape, full).dimensions() == expected.dimensions()) ||
      !(local->shape().dimensions() == expected.dimensions())) {
    return InvalidArgument("%", inst.name(), ": the shard ", local->shape().ToString(false), " of ",
                           full_shape.ToString(false), " under ", PrintSharding(full),
                           " is not the tile of ", manual_shape.ToString(false), " under ",
                           PrintSharding(manual));
  }
  return absl::OkStatus();
}

// The full side of an SPMD marker: its annotated (or propagated) sharding
// when that gives each device its manual tile, else the one the partially
// manual sharding implies (propagation may have split the full side on a
// free axis the manual side does not split; the driver reshards between them).
HloSharding FullSide(const HloSharding& annotated, const HloSharding& manual, const Shape& full,
                     const Shape& local) {
  if (ShardShape(full, annotated).dimensions() == ShardShape(local, manual).dimensions()) {
    return annotated;
  }
  return FullSideOfManual(manual, full, local).value_or(annotated);
}

// In a partially manual region, an all-reduce over global device ids whose
// every group stays inside one tile of the free axes (its devices differ
// only in their manual coordinate, XLA's condition) combines the same piece
// of data in each manual group.
bool GroupsWithinTiles(const CollectiveAttrs& attrs, const HloSharding& sharding,
                       int64_t num_devices) {
  if (!sharding.IsManualSubgroup() || !attrs.use_global_device_ids) return false;
  const std::vector<OpShardingType> types = TrailingTileTypes(sharding);
  const size_t manual_dim =
      sharding.tile_assignment().dims().size() - types.size() +
      (std::find(types.begin(), types.end(), OpShardingType::kManual) - types.begin());
  const std::vector<std::vector<int64_t>> groups = attrs.replica_groups.Groups();
  if (groups.empty()) return false;
  for (const std::vector<int64_t>& group : groups) {
    std::vector<int64_t> first;
    for (int64_t device : group) {
      if (device < 0 || device >= num_devices) return false;
      std::vector<int64_t> index = TileIndexOf(sharding, device);
      if (manual_dim >= index.size()) return false;
      index[manual_dim] = 0;
      if (first.empty()) first = index;
      if (index != first) return false;
    }
  }
  return true;
}

// A cross-replica all-reduce (no channel id) combines each partition's
// value with the same partition's on the other replicas: elementwise on
// shards, as in XLA; so does a partially manual one whose groups stay in
// their tiles. Other cross-partition ones outside fully manual code run on
// replicated operands.
absl::StatusOr<PValue> PartitionAllReduce(const HloInstruction& inst, PartitionState& s) {
  const HloSharding target = s.TargetOf(inst);
  const CollectiveAttrs& attrs = inst.attrs<CollectiveAttrs>();
  if ((attrs.channel_id && !GroupsWithinTiles(attrs, target, s.num_partitions())) ||
      inst.operand_count() != 1 || !inst.shape().IsArray()) {
    return PartitionReplicated(inst, s, "cross-partition all-reduce outside manual code");
  }
  XLITE_ASSIGN_OR_RETURN(HloInstruction * local, s.OperandAs(inst, 0, target));
  return PValue{s.Clone(inst, {local}, local->shape()), target, inst.shape()};
}

// The TopK custom-call ((values, indices) of the k largest along the last
// dim): local on shards of the other dims; the last dim is whole. The
// operand keeps its own split or takes the result's, whichever moves fewer
// bytes.
absl::StatusOr<PValue> PartitionTopKCall(const HloInstruction& inst, PartitionState& s) {
  const Shape& in = inst.operand(0)->shape();
  if (inst.operand_count() != 1 || !inst.shape().IsTuple() || !in.IsArray() || in.rank() == 0) {
    return PartitionReplicated(inst, s, "TopK custom-call of an unexpected form");
  }
  const int64_t last = in.rank() - 1;
  const PValue& v = s.Value(inst.operand(0));
  const HloSharding target = s.TargetOf(inst);
  const HloSharding wanted = ElementSharding(target, inst.shape(), 0);
  std::optional<HloSharding> best;
  int64_t best_bytes = 0;
  for (const HloSharding& proposal : {v.sharding, wanted}) {
    const HloSharding sharding =
        proposal.IsTiled() ? ForPartitioning(PartiallyReplicateDims(proposal, {last})) : proposal;
    const HloSharding results = HloSharding::Tuple(
        std::vector<HloSharding>(static_cast<size_t>(inst.shape().LeafCount()), sharding));
    const int64_t bytes = s.ReshardBytes(v, sharding) +
                          s.ReshardBytes(PValue{nullptr, results, inst.shape()}, target);
    if (!best || bytes < best_bytes) {
      best = sharding;
      best_bytes = bytes;
    }
  }
  XLITE_ASSIGN_OR_RETURN(HloInstruction * local, s.OperandAs(inst, 0, *best, "TopK operand"));
  const HloSharding results = HloSharding::Tuple(
      std::vector<HloSharding>(static_cast<size_t>(inst.shape().LeafCount()), *best));
  HloInstruction* topk = s.Clone(inst, {local}, ShardShape(inst.shape(), results));
  return PValue{topk, results, inst.shape()};
}

absl::StatusOr<PValue> PartitionCustomCall(const HloInstruction& inst, PartitionState& s) {
  const std::string& target = inst.attrs<CustomCallAttrs>().target;
  if (target == "Sharding" || target == "xla.sdy.FuncResultSharding") {
    if (inst.operand_count() != 1) return PartitionReplicated(inst, s, "Sharding arity");
    return s.Value(inst.operand(0));  // the driver reshards it to the constraint
  }
  if (target == "SPMDFullToShardShape") {
    // The operand, sharded as it is annotated, becomes the manual shard (of
    // the result's tile where only some dims turn manual).
    const HloInstruction* operand = inst.operand(0);
    const HloSharding manual =
        s.TargetOf(inst).IsManualSubgroup() ? s.TargetOf(inst) : HloSharding::Manual();
    const HloSharding sharding =
        FullSide(s.TargetOf(*operand), manual, operand->shape(), inst.shape());
    XLITE_ASSIGN_OR_RETURN(HloInstruction * local,
                           s.OperandAs(inst, 0, sharding, "manual region entry"));
    XLITE_RETURN_IF_ERROR(CheckManualShard(inst, local, sharding, manual));
    return PValue{local, manual, inst.shape()};
  }
  if (target == "SPMDShardToFullShape") {
    const PValue& v = s.Value(inst.operand(0));
    const HloSharding sharding =
        FullSide(s.TargetOf(inst), v.sharding, inst.shape(), inst.operand(0)->shape());
    if (!v.sharding.IsManual() && !v.sharding.IsManualSubgroup()) {
      return InvalidArgument("%", inst.name(),
                             ": SPMDShardToFullShape of a value that is not "
                             "manual (",
                             PrintSharding(v.sharding), ")");
    }
    XLITE_RETURN_IF_ERROR(CheckManualShard(inst, v.local, sharding, v.sharding));
    return PValue{v.local, sharding, inst.shape()};
  }
  if (IsPassThroughCustomCall(inst) && target != "Cholesky") {
    // Elementwise-like annotations (device placement, layout) run on shards.
    const PValue& v = s.Value(inst.operand(0));
    std::vector<HloInstruction*> operands = {v.local};
    for (int64_t i = 1; i < inst.operand_count(); ++i) {
      const bool same_dims =
          inst.operand(i)->shape().dimensions() == inst.operand(0)->shape().dimensions();
      XLITE_ASSIGN_OR_RETURN(
          HloInstruction * local,
          s.OperandAs(inst, i, same_dims ? v.sharding : HloSharding::Replicated(), "operand"));
      operands.push_back(local);
    }
    HloInstruction* call = s.Clone(inst, operands, ShardShape(inst.shape(), v.sharding));
    // Layout constraints name the operands' shapes: now the local ones.
    CustomCallAttrs* attrs = call->mutable_attrs<CustomCallAttrs>();
    if (attrs->operand_layout_constraints) {
      for (size_t i = 0; i < attrs->operand_layout_constraints->size(); ++i) {
        (*attrs->operand_layout_constraints)[i].set_dimensions(operands[i]->shape().dimensions());
      }
    }
    return PValue{call, v.sharding, inst.shape()};
  }
  if (AllManual(s.TargetOf(inst), inst.shape())) return PartitionManual(inst, s);
  if (target == "TopK") return PartitionTopKCall(inst, s);
  return PartitionReplicated(inst, s, Cat("custom-call \"", target, "\" has no partitioning rule"));
}

// Gives `shape`'s leaves the dimensions of `local`'s (same tuple structure),
// keeping their layouts.
void SetLeafDimensions(Shape& shape, const Shape& local) {
  if (!shape.IsTuple()) {
    if (shape.IsArray()) shape.set_dimensions(local.dimensions());
    return;
  }
  for (int64_t i = 0; i < shape.tuple_size(); ++i) {
    SetLeafDimensions(*shape.mutable_tuple_shapes(i), local.tuple_shapes(i));
  }
}

// Every split dim of every leaf divides evenly.
bool SplitsEvenly(const HloSharding& sharding, const Shape& shape) {
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (!SplitsEvenly(ElementSharding(sharding, shape, i), shape.tuple_shapes(i))) return false;
    }
    return true;
  }
  for (int64_t d = 0; shape.IsArray() && d < shape.rank(); ++d) {
    if (shape.dimensions(d) % TilesAlong(sharding, d) != 0) return false;
  }
  return true;
}

// Each device sends its shard of the data, as in XLA (uneven shards would
// need one outfeed shape per device: not supported).
absl::StatusOr<PValue> PartitionOutfeed(const HloInstruction& inst, PartitionState& s) {
  const Shape& data = inst.operand(0)->shape();
  HloSharding sharding = ReplicatedLike(data);
  if (inst.has_sharding()) {
    std::vector<HloSharding> leaves =
        LeafShardings(inst.sharding(), OutfeedShardingShape(inst.sharding(), data));
    leaves.resize(data.LeafCount());  // the token's sharding, if given, last
    sharding = ForPartitioning(data.IsTuple() ? HloSharding::Tuple(std::move(leaves)) : leaves[0]);
  }
  if (AllManual(sharding, data)) return PartitionManual(inst, s);
  if (!SplitsEvenly(sharding, data)) {
    return Unimplemented("outfeed %", inst.name(), " of unevenly split data ",
                         PrintSharding(sharding));
  }
  XLITE_ASSIGN_OR_RETURN(HloInstruction * operand, s.OperandAs(inst, 0, sharding, "outfeed data"));
  XLITE_ASSIGN_OR_RETURN(HloInstruction * token,
                         s.OperandAs(inst, 1, HloSharding::Replicated(), "token"));
  HloInstruction* outfeed = s.Clone(inst, {operand, token}, inst.shape());
  FeedAttrs* attrs = outfeed->mutable_attrs<FeedAttrs>();
  if (attrs->outfeed_shape) SetLeafDimensions(*attrs->outfeed_shape, operand->shape());
  return PValue{outfeed, ReplicatedLike(inst.shape()), inst.shape()};
}

}  // namespace

void RegisterControlHandlers(PartitionHandlerTable& table) {
  table.Register(HloOpcode::kTuple, PartitionTuple);
  table.Register(HloOpcode::kGetTupleElement, PartitionGetTupleElement);
  table.Register(HloOpcode::kWhile, PartitionWhile);
  table.Register(HloOpcode::kCall, PartitionCall);
  table.Register(HloOpcode::kConditional, PartitionConditional);
  table.Register(HloOpcode::kOptimizationBarrier, PartitionOptimizationBarrier);
  table.Register(HloOpcode::kCustomCall, PartitionCustomCall);
  table.Register(HloOpcode::kOutfeed, PartitionOutfeed);
  table.Register(HloOpcode::kAllReduce, PartitionAllReduce);
}

}  // namespace xlite::spmd
