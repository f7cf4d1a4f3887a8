// (being written) Reduction opcode handlers.
#include "xlite/eval/op_handlers.h"

namespace xlite::eval {

void RegisterReductionOps(OpHandlerTable&) {}

}  // namespace xlite::eval
