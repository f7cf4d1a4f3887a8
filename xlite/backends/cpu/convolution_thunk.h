// f32 convolutions through oneDNN's direct convolution_forward, with the
// elementwise ops that follow them fused in as bias and post-ops
// (conv_fusion.h), built when the root CMakeLists found oneDNN
// (XLITE_HAVE_DNNL); without it every convolution takes the evaluator
// fallback. This header is the one place that tells the two builds apart.
#ifndef XLITE_BACKENDS_CPU_CONVOLUTION_THUNK_H_
#define XLITE_BACKENDS_CPU_CONVOLUTION_THUNK_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "xlite/backends/cpu/thunks.h"
#include "xlite/ir/instruction.h"

namespace xlite::cpu {

// Whether the backend fuses post-ops into convolutions (cpu-conv-fusion).
#if XLITE_HAVE_DNNL
inline constexpr bool kFusesConvolutions = true;
#else
inline constexpr bool kFusesConvolutions = false;
#endif

// A thunk for `inst` (kind "conv"): a convolution with IsOneDnnConvolution,
// or a fusion FusedConvolution recognises, run as one primitive with its
// bias and post-ops. `out` and `operands` (those of `inst`) are where its
// arrays live; `constant_data[i]`, where not null, is operand i's data,
// written once for the executable's life (a constant): a kernel among them
// is reordered to the primitive's layout here, once; any other kernel is
// reordered on the first call and again only when its bytes change. oneDNN
// plans its parallel split for `threads`. nullptr when oneDNN refuses it.
#if XLITE_HAVE_DNNL
std::unique_ptr<Thunk> MaybeMakeConvolutionThunk(const HloInstruction& inst, BufferRef out,
                                                 std::vector<BufferRef> operands,
                                                 const std::vector<const uint8_t*>& constant_data,
                                                 int threads);

// Keeps in the primitive's own (blocked) layout the output of each
// convolution thunk among `thunks` that only convolution thunks read, as
// their input or summed array, and that is not `root`; those readers then
// take it in that layout, so no conversion to the logical layout and back
// happens between them.
void ChainBlockedConvolutions(absl::Span<const std::unique_ptr<Thunk>> thunks,
                              const HloInstruction& root);
#else
inline std::unique_ptr<Thunk> MaybeMakeConvolutionThunk(const HloInstruction&, BufferRef,
                                                        std::vector<BufferRef>,
                                                        const std::vector<const uint8_t*>&, int) {
  return nullptr;
}
inline void ChainBlockedConvolutions(absl::Span<const std::unique_ptr<Thunk>>,
                                     const HloInstruction&) {}
#endif

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_CONVOLUTION_THUNK_H_
