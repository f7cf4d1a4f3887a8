// Deterministic generated inputs for running a module without data files
// (`xlite run --random SEED` and the corpus conformance run share this):
// arguments for every entry parameter and values for elided `{...}`
// constants, with integers that feed gather/scatter/dynamic-slice indices
// kept in range of the dimension they index (and set-dimension-size sizes
// within the dimension's bound).
#ifndef XLITE_RUNTIME_RANDOM_INPUTS_H_
#define XLITE_RUNTIME_RANDOM_INPUTS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "xlite/ir/instruction.h"
#include "xlite/ir/literal.h"
#include "xlite/ir/module.h"

namespace xlite::runtime {

// The distribution per element type: floats uniform in [-1, 1), complex
// both parts so; signed integers in [-4, 4], unsigned in [0, 8); pred true
// with probability 1/2. With `index_bound`, integers are in [0, bound)
// instead (0 when bound is 0). The stream is SplitMix64 of `state`, so the
// values are the same on every platform and compiler.
Literal RandomLiteral(const Shape& shape, uint64_t& state,
                      std::optional<int64_t> index_bound = std::nullopt);

// When `value`'s elements reach (through converts, reshapes, broadcasts,
// copies, transposes, slices, concatenates, bitcasts, fusion/call
// parameters) the start indices of a gather, scatter, dynamic-slice or
// dynamic-update-slice: the smallest size of a dimension they index; when
// they reach the size operand of a set-dimension-size: its bound plus one.
std::optional<int64_t> IndexBound(const HloInstruction& value);

// One argument per entry parameter, from `seed`.
std::vector<Literal> RandomArguments(const HloModule& module, uint64_t seed);

// Fills every elided constant of `module` from `seed` (a stream separate
// from the arguments'), in computation then instruction order, and clears
// its elided mark. Returns how many were filled.
int64_t FillElidedConstants(HloModule& module, uint64_t seed);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_RANDOM_INPUTS_H_
