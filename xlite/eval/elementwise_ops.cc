// (being written) Elementwise opcode handlers.
#include "xlite/eval/op_handlers.h"

namespace xlite::eval {

void RegisterElementwiseOps(OpHandlerTable&) {}

}  // namespace xlite::eval
