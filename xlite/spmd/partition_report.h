// The partitioning report `xlite shard --partition` prints: per device bytes
// of parameters, outputs and the largest intermediates, the inserted
// collectives by kind (count, bytes per device, and estimated time when a
// device is given) and each with its cause, and the instructions that fell
// back to replicated execution.
#ifndef XLITE_SPMD_PARTITION_REPORT_H_
#define XLITE_SPMD_PARTITION_REPORT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "xlite/ir/module.h"
#include "xlite/spmd/partitioner.h"

namespace xlite::spmd {

struct PartitionSummary {
  struct Value {
    int64_t bytes = 0;
    std::string computation, name, shape;
  };
  struct Kind {
    std::string kind;
    int64_t count = 0, bytes = 0;
    std::optional<double> seconds;  // with a device
  };
  int64_t num_partitions = 1;
  int64_t parameter_bytes = 0, output_bytes = 0;  // per device
  std::vector<Value> largest_values;              // largest first
  std::vector<Kind> kinds;                        // by name
  std::vector<InsertedCollective> collectives;
  std::vector<std::optional<double>> collective_seconds;  // per collective, with a device
  std::vector<PartitionFallback> fallbacks;
};

// How long an instruction of the partitioned module takes on a device (the
// latency model of xlite/sched, which this layer does not depend on).
using CollectiveSeconds = std::function<std::optional<double>(const HloInstruction&)>;

// `partitioned` is the module after PartitionModule, `entry` the shardings
// PartitionModule reported; `seconds` (optional) times each collective.
PartitionSummary SummarizePartition(const PartitionReport& report, const EntryShardings& entry,
                                    const HloModule& partitioned,
                                    const CollectiveSeconds& seconds = nullptr);

std::string FormatPartitionReport(const PartitionSummary& summary);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_PARTITION_REPORT_H_
