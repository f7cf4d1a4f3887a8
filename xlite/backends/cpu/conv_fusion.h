// Convolution fusion for the cpu backend: a convolution the oneDNN thunk
// takes and the chain of elementwise ops after it that oneDNN computes as
// its bias and post-ops (conv_post_ops.h) become one `fusion(kind=kOutput)`,
// which the thunk runs as one primitive call.
#ifndef XLITE_BACKENDS_CPU_CONV_FUSION_H_
#define XLITE_BACKENDS_CPU_CONV_FUSION_H_

#include <string_view>

#include "xlite/ir/instruction.h"
#include "xlite/passes/pass.h"

namespace xlite::cpu {

// In the entry computation: each convolution with IsOneDnnConvolution grows
// its chain through the one user of its value while MatchConvPostOp accepts
// it; a chain of at least one post-op is outlined. The fusion's operands are
// the convolution's input and kernel, then the arrays the post-ops read; the
// scalar constants and the bias broadcast are cloned into the body.
class ConvolutionFusion : public HloPass {
 public:
  std::string_view name() const override { return "cpu-conv-fusion"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

// A fusion this pass made: kind=kOutput over a convolution and its post-ops.
// Returns the body's convolution, nullptr for any other instruction.
const HloInstruction* FusedConvolution(const HloInstruction& inst);

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_CONV_FUSION_H_
