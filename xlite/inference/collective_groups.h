// What a collective's replica_groups mean: the group mode (per
// xla_data.proto's CollectiveOpGroupMode), the bound on the ids, and the
// number of participants per group. Shared by shape inference (all-gather,
// reduce-scatter sizes) and the verifier's replica-group checks.
#ifndef XLITE_INFERENCE_COLLECTIVE_GROUPS_H_
#define XLITE_INFERENCE_COLLECTIVE_GROUPS_H_

#include <cstdint>
#include <optional>

#include "xlite/ir/module.h"

namespace xlite {

enum class CollectiveGroupMode : uint8_t {
  kCrossReplica,              // no channel_id: ids are replica ids
  kCrossPartition,            // channel_id, op without use_global_device_ids
  kCrossReplicaAndPartition,  // channel_id, use_global_device_ids=false
  kFlattenedId,               // channel_id, use_global_device_ids=true
};

// `inst` must carry CollectiveAttrs.
CollectiveGroupMode GroupModeOf(const HloInstruction& inst);

// Ids in replica_groups lie in [0, bound) for `mode`. A bound of 1 may only
// mean the dump did not write the counts, so callers treat it as unknown.
int64_t GroupIdBound(CollectiveGroupMode mode, const ModuleConfig& config);

// The module config of `inst`, when it sits in a module.
const ModuleConfig* ConfigOf(const HloInstruction& inst);

// Participants per group; nullopt when it cannot be known (empty groups with
// no module, or the flattened-id mode without groups).
std::optional<int64_t> GroupSizeOf(const HloInstruction& inst);

// The in-place form of collective-permute(-start): (input buffer, output
// buffer, input offsets, output offsets) with slice_sizes. Offsets are tuples,
// so a 4-operand permute without slice_sizes whose third operand is a tuple
// is one too (older dumps); four arrays are the combined form.
bool IsInPlaceCollectivePermute(const HloInstruction& inst);

// The first parameter of a collective's two-parameter reducer when it is a
// whole array, (T[n], T[n]) -> T[n] (XLA's verifier allows it; its tests use
// it); null for the usual scalar reducer.
const Shape* WholeArrayReducerParameter(const HloComputation& reducer);

}  // namespace xlite

#endif  // XLITE_INFERENCE_COLLECTIVE_GROUPS_H_
