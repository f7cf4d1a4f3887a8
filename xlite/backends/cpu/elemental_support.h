// What the cpu backend's elemental emitter covers: the element types and
// opcodes it computes (IsElementalSupported, IsReduceSupported, declared in
// kernel_emitter.h) and the libm functions it calls for the transcendental
// opcodes without an inline version.
#ifndef XLITE_BACKENDS_CPU_ELEMENTAL_SUPPORT_H_
#define XLITE_BACKENDS_CPU_ELEMENTAL_SUPPORT_H_

#include "absl/container/flat_hash_map.h"
#include "xlite/ir/opcode.h"

namespace xlite::cpu {

// The libm functions of the transcendental opcodes (f32 name, f64 name):
// the evaluator calls the same ones through <cmath>, so results are equal.
// f32 exp, log, tanh and logistic are inline instead (fast_math.h).
struct LibmNames {
  const char* f32;
  const char* f64;
};
const absl::flat_hash_map<HloOpcode, LibmNames>& LibmCalls();

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_ELEMENTAL_SUPPORT_H_
