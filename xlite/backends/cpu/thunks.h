// The steps a compiled cpu executable runs in order, over buffers of one
// arena planned at compile time: JIT kernels, library dots (OpenBLAS) and
// convolutions (oneDNN, convolution_thunk.h), f32 reduces, and a fallback
// that evaluates any other instruction through the reference evaluator.
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
  uint8_t* const* slots = nullptr;      // slot 0 the arena, 1 + p argument p
  ThreadPool* pool = nullptr;
  EvalOptions eval_options;             // rng seed and deadline of this call
  std::unique_ptr<Evaluator> evaluator;  // made by the first fallback
};

class Thunk {
 public:
  explicit Thunk(const HloInstruction& inst) : inst_(inst) {}
  virtual ~Thunk() = default;
  virtual absl::Status Run(ThunkContext& ctx) = 0;
  // "jit", "dot", "conv", "reduce" or "fallback", for --profile.
  virtual std::string_view kind() const = 0;
  const HloInstruction& instruction() const { return inst_; }

 private:
  const HloInstruction& inst_;
};

// A JIT kernel writing `buffers[0]` from `buffers[1..]`; rows of the outermost dimension go to the pool's threads
// when the output is large enough to pay for them.
std::unique_ptr<Thunk> MakeKernelThunk(const HloInstruction& inst, KernelFn fn,
                                       std::vector<BufferRef> buffers);

// An f32/f64 dot through cblas_?gemm when its dimensions have the canonical
// form [batch..., M, K] x [batch..., K, N] up to a transpose of either
// matrix (batch dims leading, one contracting dim); nullptr otherwise.
std::unique_ptr<Thunk> MaybeMakeDotThunk(const HloInstruction& dot, BufferRef out,
                                         BufferRef lhs, BufferRef rhs);

// A single-operand f32 reduce whose reducer analysis/reduction_kind
// recognises as add, maximum or minimum; nullptr otherwise. Sums use eight
// interleaved partial sums along the innermost reduced dimension, so they
// may differ from the evaluator's sequential order by rounding.
std::unique_ptr<Thunk> MaybeMakeReduceThunk(const HloInstruction& reduce, BufferRef out,
                                            BufferRef input, BufferRef init);

// Evaluates `inst` alone through Evaluator::EvaluateInstruction on its
// operands read from their buffers, with the call's deadline.
std::unique_ptr<Thunk> MakeFallbackThunk(const HloInstruction& inst,
                                         std::vector<BufferTree> operands, BufferTree result);

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_THUNKS_H_
