// Which convolutions the oneDNN thunk takes, and the elementwise consumers
// of one that oneDNN computes inside the convolution call (its bias and its
// post-ops). One table, read both by the fusion pass that groups them
// (conv_fusion.h) and by the thunk that builds the primitive from the group.
#ifndef XLITE_BACKENDS_CPU_CONV_POST_OPS_H_
#define XLITE_BACKENDS_CPU_CONV_POST_OPS_H_

#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "xlite/ir/instruction.h"

namespace xlite::cpu {

// f32 throughout with static, non-empty shapes, 1 to 3 spatial dimensions,
// batch_group_count 1, no base dilation, no window reversal, non-negative
// padding; any dimension labels and feature_group_count.
bool IsOneDnnConvolution(const HloInstruction& conv);

enum class ConvPostOpKind {
  kBias,       // + a vector along the output features (oneDNN's bias)
  kSum,        // + an array of the result's shape (the sum post-op)
  kRelu,       // max(x, 0)
  kClipBelow,  // max(x, value)
  kClipAbove,  // min(x, value)
  kScale,      // x * value
  kShift,      // x + value
};

struct ConvPostOp {
  ConvPostOpKind kind;
  // The array read: the bias vector (kBias) or the summed array (kSum).
  const HloInstruction* operand = nullptr;
  double value = 0;  // the scalar of the clips, kScale and kShift
};

// What `user`, the one user of `value`, does to it as a post-op of the
// convolution `conv` (`value` is `conv` or the last of `before`, the
// post-ops already taken); nullopt where oneDNN cannot express it.
std::optional<ConvPostOp> MatchConvPostOp(const HloInstruction& user, const HloInstruction& value,
                                          const HloInstruction& conv,
                                          absl::Span<const ConvPostOp> before);

// The post-ops from `conv` up to `last`, following each value's one user
// (empty when `last` is `conv`); nullopt when the chain between them is not
// one MatchConvPostOp accepts.
std::optional<std::vector<ConvPostOp>> ConvPostOpChain(const HloInstruction& conv,
                                                       const HloInstruction& last);

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_CONV_POST_OPS_H_
