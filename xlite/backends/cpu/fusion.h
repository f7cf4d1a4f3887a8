// Loop and reduction fusion for the cpu backend: chains of elementwise ops
// with the broadcasts, reshapes, transposes, slices, converts, iotas and
// small constants between them become one `fusion(kind=kLoop)`, and such a
// chain feeding a reduce becomes `fusion(kind=kInput)` rooted at the reduce;
// the kernel emitter computes either in one pass over memory.
#ifndef XLITE_BACKENDS_CPU_FUSION_H_
#define XLITE_BACKENDS_CPU_FUSION_H_

#include <string_view>

#include "xlite/passes/pass.h"

namespace xlite::cpu {

// Fuses in the entry computation only (loop bodies and branches run through
// the evaluator). A producer joins its consumer's fusion only when every
// user of it is in that fusion, so nothing is computed twice; dot,
// convolution and every op the emitter cannot compute stay outside, and a
// reduce is only ever a fusion's root. Existing fusions are left as they are.
class LoopFusion : public HloPass {
 public:
  std::string_view name() const override { return "cpu-loop-fusion"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

// Registers cpu-loop-fusion and cpu-conv-fusion (conv_fusion.h) with the
// pass registry, so that `xlite opt --passes=...` shows what the backend
// fuses (idempotent).
void RegisterCpuPasses();

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_FUSION_H_
