// Registers the linear-algebra opcode families, each implemented in its own
// file (dot_ops.cc, convolution_ops.cc, fft_ops.cc, decomposition_ops.cc).
#include "xlite/eval/linalg_internal.h"
#include "xlite/eval/op_handlers.h"

namespace xlite::eval {

void RegisterLinalgOps(OpHandlerTable& table) {
  RegisterDotOps(table);
  RegisterConvolutionOps(table);
  RegisterFftOps(table);
  RegisterDecompositionOps(table);
}

}  // namespace xlite::eval
