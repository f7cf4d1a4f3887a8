// The steps a compiled cpu executable runs in order, over buffers of one
// arena planned at compile time: JIT kernels (elementwise, reduce and
// fusions), library dots (OpenBLAS) and convolutions (oneDNN,
// convolution_thunk.h), and a fallback that evaluates any other instruction
// through the reference evaluator.
#ifndef XLITE_BACKENDS_CPU_THUNKS_H_
#define XLITE_BACKENDS_CPU_THUNKS_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "xlite/backends/cpu/kernel_emitter.h"
#include "xlite/backends/cpu/thread_pool.h"
#include "xlite/eval/evaluator.h"
#include "xlite/ir/instruction.h"
#include "xlite/ir/literal.h"

namespace xlite::cpu {

// Where a value lives: an array at byte `offset` of base `slot` (0: the
// arena; 1 + p: the argument of entry parameter p, read in place and never
// written; after those, an array of the result literal, computed in place),
// or a tuple's elements (tuples and get-tuple-element share their
// elements' buffers; tokens and zero-sized arrays take no bytes).
struct BufferTree {
  Shape shape;
  int64_t offset = 0;
  std::vector<BufferTree> elements;
  int32_t slot = 0;
};

// An array's address, resolved against the bases of one execution.
struct BufferRef {
  int32_t slot = 0;
  int64_t offset = 0;
};
inline uint8_t* Resolve(BufferRef ref, uint8_t* const* slots) {
  return slots[ref.slot] + ref.offset;
}
inline BufferRef RefOf(const BufferTree& tree) { return {tree.slot, tree.offset}; }

// Copies between literals and buffers (never into an argument). FillLiteral
// copies into a literal of the tree's shape, skipping arrays already there.
void FillLiteral(const BufferTree& tree, Literal& literal, uint8_t* const* slots);
Literal ReadLiteral(const BufferTree& tree, uint8_t* const* slots);
void WriteLiteral(const Literal& literal, const BufferTree& tree, uint8_t* const* slots);

// What one execution gives every thunk.
struct ThunkContext {
  uint8_t* const* slots = nullptr;  // slot 0 the arena, 1 + p argument p
  ThreadPool* pool = nullptr;
  EvalOptions eval_options;              // rng seed and deadline of this call
  std::unique_ptr<Evaluator> evaluator;  // made by the first fallback
  uint8_t* scratch = nullptr;            // the largest scratch_bytes() of any thunk
};

class Thunk {
 public:
  explicit Thunk(const HloInstruction& inst) : inst_(inst) {}
  virtual ~Thunk() = default;
  virtual absl::Status Run(ThunkContext& ctx) = 0;
  // "jit", "dot", "conv" or "fallback", for --profile.
  virtual std::string_view kind() const = 0;
  // Working memory the thunk needs during Run only (ThunkContext::scratch,
  // shared by every thunk: they run one after another).
  virtual int64_t scratch_bytes() const { return 0; }
  const HloInstruction& instruction() const { return inst_; }

 private:
  const HloInstruction& inst_;
};

// A JIT kernel writing `buffers[0]` from `buffers[1..]` in `tiles` tiles
// (TilingOf its spec), which go to the pool's threads when the kernel
// touches `work` elements or more (enough to pay for waking them).
std::unique_ptr<Thunk> MakeKernelThunk(const HloInstruction& inst, KernelFn fn,
                                       std::vector<BufferRef> buffers, int64_t work, int64_t tiles);

// An f32/f64 dot through cblas_?gemm, one call per batch element: batch
// dimensions anywhere, one contracting dimension, the free dimensions of
// each operand adjacent, and of each operand's matrix either the row or the
// column dimension contiguous (a transposed gemm then); nullptr otherwise.
std::unique_ptr<Thunk> MaybeMakeDotThunk(const HloInstruction& dot, BufferRef out, BufferRef lhs,
                                         BufferRef rhs);

// Evaluates `inst` alone through Evaluator::EvaluateInstruction on its
// operands read from their buffers, with the call's deadline.
std::unique_ptr<Thunk> MakeFallbackThunk(const HloInstruction& inst,
                                         std::vector<BufferTree> operands, BufferTree result);

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_THUNKS_H_
