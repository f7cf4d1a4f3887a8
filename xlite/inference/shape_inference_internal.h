// Shared helpers of the shape-inference files and the per-family entry points
// that InferShape dispatches to. Internal to xlite/inference and the
// verifier's rule files in xlite/analysis: error texts here never name the
// instruction (the verifier adds that).
#ifndef XLITE_INFERENCE_SHAPE_INFERENCE_INTERNAL_H_
#define XLITE_INFERENCE_SHAPE_INFERENCE_INTERNAL_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/ir/instruction.h"

namespace xlite::inference {

// Shape text without layout, for messages.
inline std::string Str(const Shape& s) { return s.ToString(/*print_layout=*/false); }

inline const Shape& OperandShape(const HloInstruction& inst, int64_t i) {
  return inst.operand(i)->shape();
}

// Equal element types and dimensions (dynamic bits and layouts ignored; an
// unbounded `?` matches any size); tuples element by element. With
// `ignore_fp_precision`, two floating-point element types also match.
bool Compatible(const Shape& a, const Shape& b, bool ignore_fp_precision = false);

// Equal array dimensions (element types not compared; `?` matches any size).
bool CompatibleDimensions(const Shape& a, const Shape& b);

absl::Status ExpectArray(const Shape& s, absl::string_view what);
// `dims` lie in [0, bound), without repeats; sorted when `sorted`.
absl::Status CheckDimensionList(absl::Span<const int64_t> dims, int64_t bound,
                                absl::string_view what, bool sorted);
// `comp` takes exactly `params` (compatible shapes) and returns `result`.
// `fp_params` lists parameter positions whose float precision may differ;
// `fp_result`: the result's too.
absl::Status CheckSignature(const HloComputation* comp, absl::string_view role,
                            absl::Span<const Shape> params, const Shape* result,
                            absl::Span<const int64_t> fp_params = {}, bool fp_result = false);
// `comp` takes exactly the shapes of `inst`'s operands (no copies made).
absl::Status CheckTakesOperands(const HloComputation* comp, absl::string_view role,
                                const HloInstruction& inst);
// The i-th called computation, or an error saying `role` is missing.
absl::StatusOr<const HloComputation*> Called(const HloInstruction& inst, size_t i,
                                             absl::string_view role);
// The root shape of `comp`, or an error when it has no root.
absl::StatusOr<Shape> RootShape(const HloComputation* comp);

// One shape for N results: the shape itself when N == 1, else a tuple.
Shape MaybeTuple(std::vector<Shape> shapes);
// Comma-separated list, for messages.
std::string ListStr(absl::Span<const int64_t> values);

// Output size of one window dimension over an input dimension of `size`.
absl::StatusOr<int64_t> WindowOutputSize(int64_t size, const WindowDimension& w,
                                         bool allow_negative_padding);
absl::Status CheckWindowDimension(const WindowDimension& w, int64_t index);

// Per-family inference (each handles the opcodes it is named after).
absl::StatusOr<Shape> InferElementwise(const HloInstruction& inst);
// True for an elementwise op whose operands and result are arrays of one
// element type and dimensions the opcode accepts: exactly the cases where
// InferElementwise returns a shape compatible with the written one without
// changing the type (checked without building a shape).
bool SameTypeElementwiseHolds(const HloInstruction& inst);
absl::StatusOr<Shape> InferDataMovement(const HloInstruction& inst);
absl::StatusOr<Shape> InferGatherScatter(const HloInstruction& inst);
absl::StatusOr<Shape> InferReduction(const HloInstruction& inst);
absl::StatusOr<Shape> InferLinalg(const HloInstruction& inst);
absl::StatusOr<Shape> InferConvolution(const HloInstruction& inst);
absl::StatusOr<Shape> InferControl(const HloInstruction& inst);
absl::StatusOr<Shape> InferCollective(const HloInstruction& inst);
absl::StatusOr<Shape> InferAsyncAndIo(const HloInstruction& inst);

}  // namespace xlite::inference

#endif  // XLITE_INFERENCE_SHAPE_INFERENCE_INTERNAL_H_
