// f32 convolutions through oneDNN's direct convolution_forward, built when
// the root CMakeLists found oneDNN (XLITE_HAVE_DNNL); without it every
// convolution takes the evaluator fallback. This header is the one place
// that tells the two builds apart.
#ifndef XLITE_BACKENDS_CPU_CONVOLUTION_THUNK_H_
#define XLITE_BACKENDS_CPU_CONVOLUTION_THUNK_H_

#include <memory>

#include "xlite/backends/cpu/thunks.h"
#include "xlite/ir/instruction.h"

namespace xlite::cpu {

// A thunk for `conv` (kind "conv") when it is f32 throughout with static,
// non-empty shapes, 1 to 3 spatial dimensions, batch_group_count 1, no base
// dilation, no window reversal and non-negative padding; any dimension
// labels and feature_group_count. nullptr otherwise, or when oneDNN refuses
// it. oneDNN plans its parallel split for `threads` when the primitive is made.
#if XLITE_HAVE_DNNL
std::unique_ptr<Thunk> MaybeMakeConvolutionThunk(const HloInstruction& conv, BufferRef out,
                                                 BufferRef lhs, BufferRef rhs, int threads);
#else
inline std::unique_ptr<Thunk> MaybeMakeConvolutionThunk(const HloInstruction&, BufferRef, BufferRef,
                                                        BufferRef, int) {
  return nullptr;
}
#endif

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_CONVOLUTION_THUNK_H_
