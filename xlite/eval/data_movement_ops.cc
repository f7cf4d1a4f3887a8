// (being written) DataMovement opcode handlers.
#include "xlite/eval/op_handlers.h"

namespace xlite::eval {

void RegisterDataMovementOps(OpHandlerTable&) {}

}  // namespace xlite::eval
