// The reduction family's registration: each opcode group lives in its own
// file (reduce_ops.cc, reduce_window_ops.cc, sort_ops.cc, batch_norm_ops.cc).
#include "xlite/eval/op_handlers.h"
#include "xlite/eval/reduction_internal.h"

namespace xlite::eval {

void RegisterReductionOps(OpHandlerTable& table) {
  RegisterReduceOps(table);
  RegisterReduceWindowOps(table);
  RegisterSortOps(table);
  RegisterBatchNormOps(table);
}

}  // namespace xlite::eval
