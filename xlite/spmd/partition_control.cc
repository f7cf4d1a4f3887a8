// Structure and control flow: tuple, get-tuple-element, while, call and
// conditional (their computations partitioned for the shardings of their
// state), optimization barriers, and custom-calls: `Sharding` constraints
// and the manual-region markers (SPMDFullToShardShape /
// SPMDShardToFullShape) disappear into resharding; other custom-calls run on
// replicated operands.
#include <algorithm>

#include "xlite/base/status.h"
#include "xlite/base/strings.h"
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
  XLITE_ASSIGN_OR_RETURN(
      HloComputation * new_condition,
      m.PartitionComputation(*condition, {state}, HloSharding::Replicated(), &s.c()));
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
  XLITE_ASSIGN_OR_RETURN(HloInstruction * selector,
                         s.OperandAs(inst, 0, HloSharding::Replicated(), "branch selector"));
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

absl::StatusOr<PValue> PartitionCustomCall(const HloInstruction& inst, PartitionState& s) {
  const std::string& target = inst.attrs<CustomCallAttrs>().target;
  if (target == "Sharding" || target == "xla.sdy.FuncResultSharding") {
    if (inst.operand_count() != 1) return PartitionReplicated(inst, s, "Sharding arity");
    return s.Value(inst.operand(0));  // the driver reshards it to the constraint
  }
  if (target == "SPMDFullToShardShape") {
    // The operand, sharded as it is annotated, becomes the manual shard.
    const HloInstruction* operand = inst.operand(0);
    const HloSharding sharding = s.TargetOf(*operand);
    XLITE_ASSIGN_OR_RETURN(HloInstruction * local,
                           s.OperandAs(inst, 0, sharding, "manual region entry"));
    if (!(local->shape().dimensions() == inst.shape().dimensions())) {
      return InvalidArgument("%", inst.name(), ": the shard of %", operand->name(), " under ",
                             PrintSharding(sharding), " is ", local->shape().ToString(false),
                             ", but SPMDFullToShardShape gives ", inst.shape().ToString(false));
    }
    return PValue{local, HloSharding::Manual(), inst.shape()};
  }
  if (target == "SPMDShardToFullShape") {
    const PValue& v = s.Value(inst.operand(0));
    const HloSharding sharding = s.TargetOf(inst);
    if (!v.sharding.IsManual()) {
      return InvalidArgument("%", inst.name(),
                             ": SPMDShardToFullShape of a value that is not "
                             "manual (",
                             PrintSharding(v.sharding), ")");
    }
    if (!(ShardShape(inst.shape(), sharding).dimensions() == v.local->shape().dimensions())) {
      return InvalidArgument("%", inst.name(), ": the manual shard ",
                             v.local->shape().ToString(false), " is not the shard of ",
                             inst.shape().ToString(false), " under ", PrintSharding(sharding));
    }
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
    return PValue{call, v.sharding, inst.shape()};
  }
  return PartitionReplicated(inst, s, Cat("custom-call \"", target, "\" has no partitioning rule"));
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
}

}  // namespace xlite::spmd
