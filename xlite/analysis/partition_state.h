// Whether a module with num_partitions > 1 still holds the global program
// that partitioning splits, or one partition's program already. HLO text
// does not say; these read the evidence: sharding annotations and split
// values on one side, collectives between partitions on the other.
#ifndef XLITE_ANALYSIS_PARTITION_STATE_H_
#define XLITE_ANALYSIS_PARTITION_STATE_H_

#include "xlite/ir/module.h"

namespace xlite {

// False for a module with num_partitions > 1 that still has the global
// shapes: a sharding-annotation custom-call, a split sharding on an
// instruction other than a parameter, or split parameters with no
// collective or partition-id to show partitioning happened. True otherwise
// (num_partitions == 1, or partitioned): its figures are per device.
bool FiguresArePerDevice(const HloModule& module);

// A cross-partition collective outside any manual region of a module with
// num_partitions > 1 and per-device figures: before partitioning only
// shard_map bodies hold such collectives, so this one shows the module was
// partitioned already. Null when there is none.
const HloInstruction* PartitionedCollective(const HloModule& module);

}  // namespace xlite

#endif  // XLITE_ANALYSIS_PARTITION_STATE_H_
