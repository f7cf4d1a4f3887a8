// Internals shared by the evaluator's linear-algebra handlers (dot,
// convolution, fft, cholesky, triangular-solve): the one blocked f32 matmul
// kernel, operand conversion, typed multiply-accumulate, and the dot and
// convolution entry points with a switch that forces the generic path (tests).
#ifndef XLITE_EVAL_LINALG_INTERNAL_H_
#define XLITE_EVAL_LINALG_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/eval/element_types.h"
#include "xlite/eval/op_handlers.h"
#include "xlite/ir/attributes.h"
#include "xlite/ir/literal.h"

namespace xlite::eval {

void RegisterDotOps(OpHandlerTable& table);            // dot_ops.cc
void RegisterConvolutionOps(OpHandlerTable& table);    // convolution_ops.cc
void RegisterFftOps(OpHandlerTable& table);            // fft_ops.cc
void RegisterDecompositionOps(OpHandlerTable& table);  // decomposition_ops.cc

// c[m,n] = a[m,k] * b[k,n] for row-major f32 matrices with leading
// dimensions lda/ldb/ldc (c is overwritten). Cache-blocked, with a small
// register-tiled inner kernel the compiler vectorises; single-threaded.
void MatMulF32(int64_t m, int64_t k, int64_t n, const float* a, int64_t lda, const float* b,
               int64_t ldb, float* c, int64_t ldc);

// A float buffer of n elements (contents unspecified) for the fast paths,
// taken from a per-thread slot that keeps its memory between evaluations:
// otherwise glibc returns the pages after each call and every evaluation
// page-faults them back, which dominates small products on virtual machines.
// Buffers above 64 MiB are not kept. Nested users take distinct slots.
enum class ScratchSlot { kPackedB, kLhs, kRhs, kProducts, kCount };
class Scratch {
 public:
  Scratch(ScratchSlot slot, int64_t n) {
    static thread_local std::vector<float> slots[static_cast<int>(ScratchSlot::kCount)];
    std::vector<float>& buffer = n <= kKeep ? slots[static_cast<int>(slot)] : own_;
    if (static_cast<int64_t>(buffer.size()) < n) buffer.resize(n);
    data_ = buffer.data();
  }
  float* data() const { return data_; }

 private:
  static constexpr int64_t kKeep = int64_t{16} << 20;
  std::vector<float> own_;
  float* data_ = nullptr;
};

// The operand as the result's element type (XLA converts dot and
// convolution operands to the preferred element type before multiplying);
// no copy when it already is.
class ConvertedOperand {
 public:
  static absl::StatusOr<ConvertedOperand> Make(const Literal& operand, PrimitiveType type) {
    ConvertedOperand c;
    if (operand.shape().element_type() == type) {
      c.ptr_ = &operand;
    } else {
      XLITE_ASSIGN_OR_RETURN(Literal converted, operand.Convert(type));
      c.owned_ = std::move(converted);
    }
    return c;
  }
  // For the float fast paths: the operand rounded to the float result type
  // `type` (f32, bf16, f16, f8...), then widened exactly to f32.
  static absl::StatusOr<ConvertedOperand> MakeF32(const Literal& operand, PrimitiveType type) {
    XLITE_ASSIGN_OR_RETURN(ConvertedOperand rounded, Make(operand, type));
    if (type == PrimitiveType::F32) return rounded;
    XLITE_ASSIGN_OR_RETURN(Literal wide, rounded.get().Convert(PrimitiveType::F32));
    ConvertedOperand c;
    c.owned_ = std::move(wide);
    return c;
  }
  const Literal& get() const { return owned_.has_value() ? *owned_ : *ptr_; }

 private:
  const Literal* ptr_ = nullptr;
  std::optional<Literal> owned_;
};

// Element i of an f32 literal's storage.
inline float F32At(const uint8_t* data, int64_t i) {
  return LoadElement<PrimitiveType::F32>(data, i);
}

// A literal of the float `shape` whose values fill(float* out) writes (every
// element, row-major): in place for f32, else into a buffer and rounded once.
template <typename Fill>
Literal FloatResult(const Shape& shape, Fill&& fill) {
  Literal out(shape);
  if (shape.element_type() == PrimitiveType::F32) {
    // Literal storage comes from operator new, so it is aligned for float.
    fill(reinterpret_cast<float*>(out.mutable_raw_data().data()));
    return out;
  }
  std::vector<float> values(out.element_count());
  fill(values.data());
  for (int64_t i = 0; i < out.element_count(); ++i) out.SetDouble(i, values[i]);
  return out;
}

// Every element of `l` (of element type PT) in its native compute type.
template <PrimitiveType PT>
std::vector<NativeT<PT>> LoadAll(const Literal& l) {
  std::vector<NativeT<PT>> out(l.element_count());
  const uint8_t* data = l.raw_data().data();
  for (int64_t i = 0; i < static_cast<int64_t>(out.size()); ++i) out[i] = LoadElement<PT>(data, i);
  return out;
}

// acc + a * b in the accumulation type: integers wrap (computed unsigned, so
// overflow is defined), pred is or-of-and, floats and complex are native.
template <typename T>
inline T MulAdd(T acc, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return acc || (a && b);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(acc) +
                          static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return acc + a * b;
  }
}

// True when the result type computes in float (f32, bf16, f16, f8, f4): such
// dots and convolutions take the blocked f32 kernel and round once at the end.
constexpr bool ComputesInFloat(PrimitiveType t) {
  return t == PrimitiveType::F32 || IsNarrowFloat(t);
}

// dot on evaluated operands; `allow_fast` = false forces the generic path
// (tests compare the two).
absl::StatusOr<Literal> EvaluateDot(const Literal& lhs, const Literal& rhs,
                                    const DotDimensions& dims, const Shape& result_shape,
                                    bool allow_fast = true);

// convolution on evaluated operands; `allow_fast` as for EvaluateDot.
absl::StatusOr<Literal> EvaluateConvolution(const Literal& lhs, const Literal& rhs,
                                            const ConvolutionAttrs& attrs,
                                            const Shape& result_shape, bool allow_fast = true);

}  // namespace xlite::eval

#endif  // XLITE_EVAL_LINALG_INTERNAL_H_
