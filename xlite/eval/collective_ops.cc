// (being written) Collective opcode handlers.
#include "xlite/eval/op_handlers.h"

namespace xlite::eval {

void RegisterCollectiveOps(OpHandlerTable&) {}

}  // namespace xlite::eval
