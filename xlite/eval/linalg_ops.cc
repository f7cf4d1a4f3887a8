// (being written) Linalg opcode handlers.
#include "xlite/eval/op_handlers.h"

namespace xlite::eval {

void RegisterLinalgOps(OpHandlerTable&) {}

}  // namespace xlite::eval
