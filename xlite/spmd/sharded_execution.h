// Running a partitioned module on global values: global arguments split
// into the shard each partition holds (by the entry parameters' shardings)
// and global results assembled from the partitions' shards (by the result
// sharding). `xlite run --spmd` and the partitioner's differential test
// share these.
#ifndef XLITE_SPMD_SHARDED_EXECUTION_H_
#define XLITE_SPMD_SHARDED_EXECUTION_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/eval/evaluator.h"
#include "xlite/ir/literal.h"
#include "xlite/ir/sharding.h"
#include "xlite/passes/pipeline.h"
#include "xlite/spmd/partitioner.h"
#include "xlite/spmd/propagation.h"

namespace xlite::spmd {

// The shard of `global` that `device` holds under `sharding`: the padded
// tile of ShardShape (padding zero) for tiled shardings, the whole value
// otherwise; tuples leaf by leaf.
absl::StatusOr<Literal> ShardOf(const Literal& global, const HloSharding& sharding, int64_t device);

// The global value of `global_shape` whose shards are `shards` (one per
// device, device order) under `sharding`: every device's real tile copied
// into place; replicated values from device 0.
absl::StatusOr<Literal> AssembleFromShards(absl::Span<const Literal> shards,
                                           const HloSharding& sharding, const Shape& global_shape);

struct SpmdOptions {
  PropagationOptions propagation;
  // Called once propagation has set every sharding, before partitioning
  // (`xlite shard` explains the shardings there); an error stops the stage.
  std::function<absl::Status(const HloModule&, const PropagationResult&)> after_propagation;
};

// What the `spmd` pipeline did to a module: the entry shardings after
// propagation (how to split inputs and assemble outputs), the partitioner's
// report, and every pass it ran with its time.
struct SpmdResult {
  EntryShardings entry;
  PartitionReport report;
  PipelineReport passes;
};

// The `spmd` pipeline, the one way xlite partitions (xlite/compiler's
// partition stage and the partitioner's tests): sharding propagation, the
// partitioner, then the `spmd-cleanup` pipeline; the module must verify
// after each step (an invalid one is an error naming the step, not
// out-of-bounds reads when it runs).
absl::StatusOr<SpmdResult> PartitionForExecution(HloModule& module,
                                                 const SpmdOptions& options = {});

// The argument list of one partition from the global arguments.
absl::StatusOr<std::vector<Literal>> PartitionArguments(const EntryShardings& entry,
                                                        absl::Span<const Literal> global_args,
                                                        int64_t partition);

// One argument list per partition from the global arguments.
absl::StatusOr<std::vector<std::vector<Literal>>> SplitArguments(
    const EntryShardings& entry, absl::Span<const Literal> global_args, int64_t num_partitions);

// Runs a partitioned module (`entry` as PartitionModule filled it) on the
// global arguments, one thread per partition on the in-process
// communicator, and returns the global result.
absl::StatusOr<Literal> RunPartitioned(const HloModule& partitioned, const EntryShardings& entry,
                                       absl::Span<const Literal> global_args,
                                       const EvalOptions& options = {});

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_SHARDED_EXECUTION_H_
