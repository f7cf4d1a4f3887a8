// (being written) CustomCall opcode handlers.
#include "xlite/eval/op_handlers.h"

namespace xlite::eval {

void RegisterCustomCallOps(OpHandlerTable&) {}

}  // namespace xlite::eval
