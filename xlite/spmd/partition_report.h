// The text of the partitioning report `xlite shard --partition` prints: per
// device bytes of parameters, outputs and the largest intermediates, the
// inserted collectives by kind (count, bytes per device) and each with its
// cause, and the instructions that fell back to replicated execution.
#ifndef XLITE_SPMD_PARTITION_REPORT_H_
#define XLITE_SPMD_PARTITION_REPORT_H_

#include <string>

#include "xlite/ir/module.h"
#include "xlite/spmd/partitioner.h"

namespace xlite::spmd {

// `partitioned` is the module after PartitionModule, `entry` the shardings
// PartitionModule reported.
std::string FormatPartitionReport(const PartitionReport& report, const EntryShardings& entry,
                                  const HloModule& partitioned);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_PARTITION_REPORT_H_
