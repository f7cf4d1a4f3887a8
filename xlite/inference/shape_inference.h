// Shape inference: the result-shape rule of every opcode, from its operands'
// shapes and its attributes. Used by the parser (shapes left out of the
// text), the verifier (to check written shapes) and passes (new instructions).
#ifndef XLITE_INFERENCE_SHAPE_INFERENCE_H_
#define XLITE_INFERENCE_SHAPE_INFERENCE_H_

#include "absl/status/statusor.h"
#include "xlite/ir/instruction.h"

namespace xlite {

// The shape `inst` must have given its operands, attributes and called
// computations. Layouts are not inferred (the result has none). Opcodes whose
// shape is declared rather than derived (parameter, constant, iota, reshape,
// convert, custom-call, rng, infeed, bitcast, ...) return the declared shape
// after checking what can be checked (element counts, element types).
// Opcodes whose semantics are unpublished are checked as far as known:
// scaled-dot (dot of lhs and rhs; scales block their operands), scan (the
// scanned dimension exists in each input; declared result), shuffle (array
// operand; declared result), collective-reduce (like all-reduce, reducer
// checked when present), mulhi (integer binary op).
// The error message says what was expected, without the instruction name.
absl::StatusOr<Shape> InferShape(const HloInstruction& inst);

// The result shape of `inst` when its text left it out (the parser asks):
// InferShape's rule, for the opcodes CanOmitResultShape allows. As in XLA, a
// broadcast's shape is inferred only for a scalar operand with dimensions={}
// (the result is that scalar); any other broadcast, and every opcode that
// declares its shape, is an error. scan is not supported yet.
absl::StatusOr<Shape> InferOmittedShape(const HloInstruction& inst);

// True when `inst`'s written shape certainly is what InferShape accepts —
// parameters, and elementwise ops whose operands and result share one array
// shape — decided without building a shape (the verifier's fast path). False
// says nothing: run InferShape and compare.
bool WrittenShapeTriviallyHolds(const HloInstruction& inst);

// What the verifier accepts between a written and an inferred shape: equal
// element types and dimensions, layouts and dynamic bits ignored, an unbounded
// `?` matching any size; with `ignore_fp_precision`, any two float types.
bool ShapesCompatible(const Shape& a, const Shape& b, bool ignore_fp_precision = false);

}  // namespace xlite

#endif  // XLITE_INFERENCE_SHAPE_INFERENCE_H_
