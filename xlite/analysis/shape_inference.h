// Shape inference: the result-shape rule of every opcode, from its operands'
// shapes and its attributes. Used by the verifier (to check written shapes)
// and by the builder and passes (to make new instructions).
#ifndef XLITE_ANALYSIS_SHAPE_INFERENCE_H_
#define XLITE_ANALYSIS_SHAPE_INFERENCE_H_

#include "absl/status/statusor.h"
#include "xlite/ir/instruction.h"

namespace xlite {

// The shape `inst` must have given its operands, attributes and called
// computations. Layouts are not inferred (the result has none). Opcodes whose
// shape is declared rather than derived (parameter, constant, iota, reshape,
// convert, custom-call, rng, infeed, bitcast, ...) return the declared shape
// after checking what can be checked (element counts, element types).
// The error message says what was expected, without the instruction name.
absl::StatusOr<Shape> InferShape(const HloInstruction& inst);

}  // namespace xlite

#endif  // XLITE_ANALYSIS_SHAPE_INFERENCE_H_
