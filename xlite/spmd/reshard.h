// Resharding an array between two shardings with the cheapest collectives:
// a plan of steps (dynamic-slice with no communication, all-gather of a
// dim, all-to-all moving the split from one dim to another,
// collective-permute for a change of device order) and its emission. The
// plan is also the partitioner's cost model for choosing between options.
#ifndef XLITE_SPMD_RESHARD_H_
#define XLITE_SPMD_RESHARD_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "xlite/ir/sharding.h"
#include "xlite/spmd/partition_builder.h"

namespace xlite::spmd {

struct ReshardStep {
  enum class Kind : uint8_t { kSlice, kAllGather, kAllToAll, kPermute };
  Kind kind = Kind::kSlice;
  int64_t dim = -1;     // all-gather: the dim; all-to-all: the dim split before
  int64_t to_dim = -1;  // all-to-all: the dim split after
  std::vector<std::pair<int64_t, int64_t>> pairs;  // permute: source -> target
  HloSharding result;                              // the sharding after this step
  int64_t bytes = 0;                               // communicated per device
};

// The steps from `from` to `to` (both as ForPartitioning gives them) for an
// array of `global` shape on `num_devices` partitions; empty when they agree.
// Never fails: replicating everything and slicing is always possible.
std::vector<ReshardStep> PlanReshard(const HloSharding& from, const HloSharding& to,
                                     const Shape& global, int64_t num_devices);
int64_t PlanBytes(const std::vector<ReshardStep>& plan);

// True when every device's tile under `to` lies inside its tile under
// `from` (its real elements), so a local dynamic-slice gets there.
bool CanSliceLocally(const HloSharding& from, const HloSharding& to, const Shape& global,
                     int64_t num_devices);

// Emits `plan` on `local` (an array shard of `from`) in computation `c`.
HloInstruction* EmitReshard(PartitionBuilder& b, HloComputation& c, HloInstruction* local,
                            const HloSharding& from, const std::vector<ReshardStep>& plan,
                            const Shape& global, const Cause& cause);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_RESHARD_H_
