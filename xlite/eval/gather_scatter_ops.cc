// (being written) GatherScatter opcode handlers.
#include "xlite/eval/op_handlers.h"

namespace xlite::eval {

void RegisterGatherScatterOps(OpHandlerTable&) {}

}  // namespace xlite::eval
