// Declarations shared by the evaluator's data-movement handler files (not a
// public interface): the handler operand type and the sub-family
// registrations RegisterDataMovementOps / RegisterGatherScatterOps call.
#ifndef XLITE_EVAL_DATA_MOVEMENT_INTERNAL_H_
#define XLITE_EVAL_DATA_MOVEMENT_INTERNAL_H_

#include "absl/types/span.h"
#include "xlite/eval/op_handlers.h"
#include "xlite/ir/literal.h"

namespace xlite::eval {

using Operands = absl::Span<const Literal* const>;

void RegisterDynamicSliceOps(OpHandlerTable& table);  // dynamic_slice_ops.cc
void RegisterScatterOps(OpHandlerTable& table);       // scatter_ops.cc

}  // namespace xlite::eval

#endif  // XLITE_EVAL_DATA_MOVEMENT_INTERNAL_H_
