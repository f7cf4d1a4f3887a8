#include "xlite/text/async_sugar.h"

#include "absl/container/flat_hash_map.h"
#include "xlite/ir/computation.h"

namespace xlite::printer_internal {
namespace {

bool HasNoSharedAttributes(const HloInstruction& inst) {
  return !inst.has_sharding() && inst.metadata().empty() && inst.frontend_attributes().empty() &&
         inst.backend_config().empty() && inst.statistics() == nullptr && inst.origin().empty() &&
         inst.control_predecessors().empty() && inst.control_successors().empty();
}

// `op-start`, `op-update` and `op-done` must read back as sugar for `op`,
// not as an opcode of their own (all-reduce-start, copy-done, ...).
bool SugarNamesAreFree(HloOpcode op) {
  switch (op) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return false;
    default:
      break;
  }
  std::string name(OpcodeName(op));
  for (std::string_view suffix : {"-start", "-update", "-done"}) {
    if (OpcodeFromName(name + std::string(suffix))) return false;
  }
  return true;
}

// Whether the parser, reading `start` as sugar, rebuilds `c` as it is.
bool RebuildsFromSugar(const HloInstruction& start, const HloComputation& c) {
  const HloInstruction* root = c.root_instruction();
  const auto& async = start.attrs<AsyncAttrs>();
  if (root == nullptr || c.is_entry() || !SugarNamesAreFree(root->opcode()) ||
      !async.output_to_operand_aliasing.empty() || c.execution_thread() != async.execution_thread ||
      !HasNoSharedAttributes(*root)) {
    return false;
  }
  const Shape& shape = start.shape();
  const int64_t n = start.operand_count();
  if (!shape.IsTuple() || shape.tuple_size() < 2 || !(root->shape() == shape.tuple_shapes(1)) ||
      c.instruction_count() != n + 1 || c.num_parameters() != n || root->operand_count() != n) {
    return false;
  }
  for (int64_t i = 0; i < n; ++i) {
    const HloInstruction* param = c.parameter_instruction(i);
    if (param == nullptr || root->operand(i) != param ||
        !(param->shape() == start.operand(i)->shape()) || !HasNoSharedAttributes(*param) ||
        param->attrs<ParameterAttrs>().replication.has_value()) {
      return false;
    }
  }
  return true;
}

}  // namespace

AsyncSugarSet SugaredAsyncComputations(const HloModule& module) {
  // Per computation: its async-start (null when called by two), or absent
  // when something other than an async op calls it.
  absl::flat_hash_map<const HloComputation*, const HloInstruction*> start_of;
  AsyncSugarSet excluded;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) {
      for (const HloComputation* callee : inst->called_computations()) {
        switch (inst->opcode()) {
          case HloOpcode::kAsyncStart: {
            auto [it, inserted] = start_of.try_emplace(callee, inst.get());
            if (!inserted) excluded.insert(callee);
            break;
          }
          case HloOpcode::kAsyncUpdate:
          case HloOpcode::kAsyncDone:
            break;
          default:
            excluded.insert(callee);
        }
      }
    }
  }
  AsyncSugarSet sugared;
  for (const auto& [callee, start] : start_of) {
    if (!excluded.contains(callee) && start->called_computations().size() == 1 &&
        RebuildsFromSugar(*start, *callee)) {
      sugared.insert(callee);
    }
  }
  return sugared;
}

}  // namespace xlite::printer_internal
