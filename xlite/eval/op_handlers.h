// The evaluator's dispatch table: one handler per opcode, registered by the
// file that implements that opcode family. An opcode with no handler is
// answered "not supported yet" naming it.
#ifndef XLITE_EVAL_OP_HANDLERS_H_
#define XLITE_EVAL_OP_HANDLERS_H_

#include <array>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/eval/eval_context.h"
#include "xlite/ir/instruction.h"
#include "xlite/ir/literal.h"

namespace xlite::eval {

// Computes `inst` from its evaluated operands (operands[i] is operand i).
// Errors need not name the instruction: the evaluator adds that.
using OpHandler = absl::StatusOr<Literal> (*)(const HloInstruction& inst,
                                              absl::Span<const Literal* const> operands,
                                              EvalContext& ctx);

class OpHandlerTable {
 public:
  void Register(HloOpcode opcode, OpHandler handler) {
    handlers_[static_cast<size_t>(opcode)] = handler;
  }
  // nullptr when no handler is registered.
  OpHandler Get(HloOpcode opcode) const { return handlers_[static_cast<size_t>(opcode)]; }

 private:
  std::array<OpHandler, kNumOpcodes> handlers_{};
};

// One registration function per opcode family (each in its own file).
void RegisterControlOps(OpHandlerTable& table);        // control_ops.cc
void RegisterElementwiseOps(OpHandlerTable& table);    // elementwise_ops.cc
void RegisterDataMovementOps(OpHandlerTable& table);   // data_movement_ops.cc
void RegisterGatherScatterOps(OpHandlerTable& table);  // gather_scatter_ops.cc
void RegisterReductionOps(OpHandlerTable& table);      // reduction_ops.cc
void RegisterLinalgOps(OpHandlerTable& table);         // linalg_ops.cc
void RegisterCollectiveOps(OpHandlerTable& table);     // collective_ops.cc
void RegisterCustomCallOps(OpHandlerTable& table);     // custom_call_ops.cc

// The table with every family registered (built once).
const OpHandlerTable& DefaultOpHandlers();

}  // namespace xlite::eval

#endif  // XLITE_EVAL_OP_HANDLERS_H_
