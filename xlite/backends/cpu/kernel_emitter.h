// The elemental kernel emitter of the cpu backend: LLVM IR for loop nests
// that compute an elementwise op, a data-movement op, a reduce or a whole
// loop or input fusion one output element at a time, compiled through jit.h. This header keeps
// LLVM out of its users; only kernel_emitter.cc and jit.cc include it.
#ifndef XLITE_BACKENDS_CPU_KERNEL_EMITTER_H_
#define XLITE_BACKENDS_CPU_KERNEL_EMITTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/ir/instruction.h"

namespace xlite::cpu {

// Whether the emitter computes `inst` elementally: array result and operands
// of element types pred, s8-s64, u8-u64, f32, f64, and an opcode of the
// emitter's table for those types (elementwise arithmetic, shifts, compare,
// select, clamp, convert, bitcast-convert between equal widths, copy,
// broadcast, reshape, transpose, slice, reverse, pad, dynamic-slice,
// concatenate of up to kMaxConcatenateOperands, iota, constants up to
// kMaxFusedConstantElements). The one predicate fusion and the thunk
// builder ask.
bool IsElementalSupported(const HloInstruction& inst);
// Whether the emitter computes `inst` as a reduce kernel (alone or as the
// root of a kInput fusion): one operand and init of a supported type, and a
// reducer that analysis/reduction_kind recognises with an op of the table.
bool IsReduceSupported(const HloInstruction& inst);
inline constexpr int64_t kMaxFusedConstantElements = 4096;
// Concatenates with more operands run in the evaluator (copies of boxes).
inline constexpr int64_t kMaxConcatenateOperands = 8;

// How a kernel's output is cut into tiles that threads share: each row (an
// index of every dimension but the last) in `chunks` runs of at most `chunk`
// elements of the last dimension, so that an output with few rows ([1,512,
// 3072], or a reduce to [1,512] or [96]) still splits; tile t is row t /
// chunks, chunk t % chunks. A scalar is one tile. A chunk holds at least 256
// elements' worth of work, `work_per_element` being the operand elements
// each output element reads (a reduce's reduced count; 1 otherwise).
struct KernelTiling {
  int64_t rows = 1;
  int64_t last = 1;    // size of the last dimension (1 for a scalar)
  int64_t chunk = 1;   // elements of the last dimension per tile
  int64_t chunks = 1;  // tiles per row
  int64_t tiles() const { return rows * chunks; }
};
KernelTiling TilingOf(const Shape& output, int64_t work_per_element);

// A compiled kernel: writes the output elements of the tiles in [begin, end)
// (TilingOf its output); buffers[0] is the output (buffers[1] the side
// output when there is one), then input i, all dense row-major.
using KernelFn = void (*)(void* const* buffers, int64_t begin, int64_t end);

// One kernel to emit: `root` computed from `inputs` (a fusion's parameters
// by number, or a lone instruction's operands). `side`, when set, is the
// operand of a reduce root, stored as the kernel's second output while the
// reduce reads it (a multi-output fusion: softmax's exp and its sum in one
// pass); the output buffers come before the inputs.
struct KernelSpec {
  const HloInstruction* root = nullptr;
  const HloInstruction* side = nullptr;
  std::vector<const HloInstruction*> inputs;
  // Inputs whose buffer is the output's (the buffer assignment let the
  // kernel write over them): read through the output's pointer, so the
  // vectoriser sees one array read and written at the same index instead of
  // two that overlap (whose run-time check would take the scalar loop).
  std::vector<int64_t> in_place_inputs;
  int64_t outputs() const { return side != nullptr ? 2 : 1; }
};
// The elements a kernel touches per run: its output's, or for a reduce
// root its operand's (what decides whether threads pay).
int64_t KernelWork(const KernelSpec& spec);
// The tiling of the spec's output (the emitter's and the thunk's one source).
KernelTiling TilingOf(const KernelSpec& spec);
// The spec of a fusion instruction (its body's root over its parameters; a
// root tuple(reduce, the reduce's operand) gives the side output) or of a
// lone elemental instruction (over its operands).
KernelSpec SpecFor(const HloInstruction& inst);

struct CompiledKernels {
  std::vector<KernelFn> kernels;  // one per spec, in order
  double compile_ms = 0;          // 0 when the cache had them
  bool cached = false;
  std::shared_ptr<void> owner;  // keeps the JIT's code alive
};

// Emits every spec into one LLVM module, optimises it for the host CPU and
// compiles it, or takes it from the in-process cache (keyed by the module's
// IR text and the host target).
absl::StatusOr<CompiledKernels> CompileKernels(const std::vector<KernelSpec>& specs);

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_KERNEL_EMITTER_H_
