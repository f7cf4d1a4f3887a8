// Recognises the reducers that are one associative binary op of their two
// scalar parameters (add, multiply, maximum, minimum, and, or, xor) and gives
// each op's identity value: the one IR query algsimp, the evaluator's reduce
// and collectives, the SPMD partitioner and the CPU emitter all ask.
#ifndef XLITE_ANALYSIS_REDUCTION_KIND_H_
#define XLITE_ANALYSIS_REDUCTION_KIND_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "xlite/ir/computation.h"
#include "xlite/ir/literal.h"
#include "xlite/ir/reduction_kind.h"

namespace xlite {

// The kind of a reducer whose root is one add / multiply / maximum / minimum
// / and / or / xor of its two scalar parameters (either order), all of one
// element type; the root may also be a one-element tuple of that op (a
// variadic-style reducer with N = 1). nullopt for anything else.
std::optional<ReductionKind> MatchReductionKind(const HloComputation& computation);

// The elementwise opcode of a kind, and back (nullopt for other opcodes).
HloOpcode ReductionOpcode(ReductionKind kind);
std::optional<ReductionKind> ReductionKindOf(HloOpcode opcode);
std::string_view ReductionKindName(ReductionKind kind);

// op(x, x) == x: maximum, minimum, and, or.
bool IsIdempotent(ReductionKind kind);

// The scalar e of `type` with op(x, e) == x for every x: 0 for add, or and
// xor, 1 for multiply, all ones for and (true for pred), the lowest value of
// the type for maximum (-inf where the type has it) and the highest for
// minimum. nullopt where the op does not apply to the type (and/or/xor of
// floats or complex, maximum/minimum of complex, non-array types).
std::optional<Literal> ReductionIdentity(ReductionKind kind, PrimitiveType type);

}  // namespace xlite

#endif  // XLITE_ANALYSIS_REDUCTION_KIND_H_
