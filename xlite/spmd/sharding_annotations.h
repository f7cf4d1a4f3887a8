// What XLA's sharding annotations say beyond the sharding itself: the dims a
// `Sharding` custom-call leaves to propagation (backend_config
// "unspecified_dims=[...]") or a mesh-form sharding leaves open, and annotations XLA's CSE
// prevention left behind (to be dropped, as XLA's pass drops them).
#ifndef XLITE_SPMD_SHARDING_ANNOTATIONS_H_
#define XLITE_SPMD_SHARDING_ANNOTATIONS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/ir/instruction.h"

namespace xlite::spmd {

bool IsShardingCustomCall(const HloInstruction& inst);

// The sorted unspecified dims of a `Sharding` custom-call (empty for other
// instructions or when the backend_config names none); an error when the
// backend_config is not that form or a dim is out of range.
absl::StatusOr<std::vector<int64_t>> UnspecifiedDims(const HloInstruction& inst);

// The dims a sharding written in the mesh form leaves open (`?`, Shardy's
// open dims): propagation may still split them. Sorted; empty otherwise.
std::vector<int64_t> OpenDims(const HloSharding& sharding);

// A sharding whose only metadata is XLA's
// "_sharding_propagation_cse_prevention" marker.
bool IsCsePreventionSharding(const HloSharding& sharding);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_SHARDING_ANNOTATIONS_H_
