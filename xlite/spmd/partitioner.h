// The SPMD partitioner (XLA's `spmd-partitioner`): rewrites a module whose
// instructions carry shardings (after sharding-propagation) into the program
// every partition runs — shard shapes, partition-id-driven offsets, and the
// collectives that move data between shardings — and reports what it
// inserted, why, and what it could only run replicated.
#ifndef XLITE_SPMD_PARTITIONER_H_
#define XLITE_SPMD_PARTITIONER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/ir/module.h"
#include "xlite/passes/pass.h"

namespace xlite::spmd {

// One collective the partitioner inserted, with its cause: the value
// `producer` had `producer_sharding`; `consumer` needed `needed_sharding`.
struct InsertedCollective {
  std::string kind;  // all-gather, all-reduce, reduce-scatter, all-to-all, collective-permute
  std::string computation;  // where it sits (original computation name)
  std::string name;         // the inserted instruction
  int64_t bytes = 0;        // per device: the larger of its operand and result
  std::string producer, producer_sharding, consumer, needed_sharding;
  std::string reason;  // e.g. "operand of dot", "contracting dims split", "result"
};

// An instruction the partitioner could not split: it ran on replicated
// operands (all-gathered before, sliced after), or a value was replicated.
struct PartitionFallback {
  std::string computation, instruction, opcode;
  std::string reason;
};

struct PartitionReport {
  int64_t num_partitions = 1;
  std::vector<InsertedCollective> collectives;
  std::vector<PartitionFallback> fallbacks;
};

// The global shardings of the entry's parameters and results, as the
// partitioner used them (needed to split inputs and assemble outputs).
struct EntryShardings {
  std::vector<HloSharding> parameters;  // one per entry parameter
  HloSharding result;                   // of the entry result (tuple sharding for tuples)
  std::vector<Shape> parameter_shapes;  // global shapes
  Shape result_shape;
};

// The entry shardings of a (not yet partitioned) module as the partitioner
// reads them: unannotated parameters and results are replicated.
absl::StatusOr<EntryShardings> EntryShardingsOf(const HloModule& module);

// Partitions `module` in place into its per-partition program; a module
// with num_partitions == 1 is left as it is. Instructions without a
// sharding are treated as replicated. Errors say what is not supported yet.
absl::StatusOr<PartitionReport> PartitionModule(HloModule& module, EntryShardings* entry = nullptr);

class SpmdPartitionerPass : public HloPass {
 public:
  std::string_view name() const override { return "spmd-partitioner"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
  const PartitionReport& report() const { return report_; }

 private:
  PartitionReport report_;
};

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_PARTITIONER_H_
