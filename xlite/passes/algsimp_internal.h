// The algebraic simplifier's rewrite rules, grouped by the opcodes they look
// at (algsimp_arithmetic.cc, algsimp_shapes.cc, algsimp_other.cc). Each rule
// returns the instruction that replaces `inst`, or nullptr to leave it; new
// instructions are made through the context's InstructionMaker. Every rule
// keeps results bit-identical except where XLA itself rewrites float
// identities (x + 0 -> x turns -0 into -0 rather than +0).
#ifndef XLITE_PASSES_ALGSIMP_INTERNAL_H_
#define XLITE_PASSES_ALGSIMP_INTERNAL_H_

#include <optional>

#include "xlite/passes/instruction_maker.h"

namespace xlite::algsimp {

struct Context {
  InstructionMaker& make;
  HloComputation& computation;
};

using Rule = HloInstruction* (*)(HloInstruction* inst, Context& ctx);

// The value every element of `inst` has, when `inst` is a constant (or a
// broadcast or reshape of one) with a single value; complex values only when
// their imaginary part is 0.
std::optional<double> UniformValue(const HloInstruction* inst);
bool IsUniform(const HloInstruction* inst, double value);
// Every bit set (integers), true (pred).
bool IsAllOnes(const HloInstruction* inst);
// Same element type and dimensions.
bool SameArrayShape(const Shape& a, const Shape& b);

HloInstruction* SimplifyArithmetic(HloInstruction* inst, Context& ctx);
HloInstruction* SimplifyShapes(HloInstruction* inst, Context& ctx);
HloInstruction* SimplifyOther(HloInstruction* inst, Context& ctx);

}  // namespace xlite::algsimp

#endif  // XLITE_PASSES_ALGSIMP_INTERNAL_H_
