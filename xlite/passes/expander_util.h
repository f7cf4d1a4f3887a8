// Shared pieces of the expander passes (cbrt, erf, rsqrt, integer power,
// batch-norm, rng, total-order compare, reduce-precision): a driver that
// replaces every matching instruction in one sweep, and small builders.
#ifndef XLITE_PASSES_EXPANDER_UTIL_H_
#define XLITE_PASSES_EXPANDER_UTIL_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "xlite/ir/module.h"
#include "xlite/passes/instruction_maker.h"

namespace xlite {

// Returns the replacement of an instruction, or nullptr to leave it alone.
using ExpandFn = absl::FunctionRef<absl::StatusOr<HloInstruction*>(
    InstructionMaker&, HloComputation&, HloInstruction&)>;

// Calls `expand` on every instruction whose opcode `wanted` accepts, replaces
// its uses by the result and removes the replaced instructions (one linear
// sweep per computation). True when anything was replaced.
absl::StatusOr<bool> ExpandInstructions(HloModule& module,
                                        absl::FunctionRef<bool(HloOpcode)> wanted, ExpandFn expand);

// `value` (an integer, exact for every width) in every element of `shape`.
HloInstruction* IntSplat(InstructionMaker& make, HloComputation& c, const Shape& shape,
                         int64_t value);
// `x` reinterpreted as `type` of the same width.
HloInstruction* BitcastTo(InstructionMaker& make, HloComputation& c, HloInstruction* x,
                          PrimitiveType type);
// The signed / unsigned integer type of `bits` bits (8, 16, 32 or 64).
PrimitiveType SignedOfWidth(int bits);
PrimitiveType UnsignedOfWidth(int bits);

bool IsF16OrBF16(PrimitiveType type);

}  // namespace xlite

#endif  // XLITE_PASSES_EXPANDER_UTIL_H_
