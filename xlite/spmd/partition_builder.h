// The instruction-making side of the SPMD partitioner: partition-id and the
// per-partition offset tables built on it, padding masks, and the one
// builder of every collective the partitioner inserts, which records each
// collective (kind, bytes per device) with its cause in the report.
#ifndef XLITE_SPMD_PARTITION_BUILDER_H_
#define XLITE_SPMD_PARTITION_BUILDER_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xlite/ir/module.h"
#include "xlite/ir/reduction_kind.h"
#include "xlite/passes/instruction_maker.h"
#include "xlite/spmd/partitioner.h"

namespace xlite::spmd {

// Why a collective (or a fallback) was needed: the value `producer` had
// sharding `from`; `consumer` needed it as `needed`.
struct Cause {
  const HloInstruction* producer = nullptr;
  HloSharding from;
  const HloInstruction* consumer = nullptr;
  HloSharding needed;
  std::string reason;
};

using DeviceGroups = std::vector<std::vector<int64_t>>;

class PartitionBuilder {
 public:
  PartitionBuilder(HloModule& module, int64_t num_partitions, PartitionReport* report);

  HloModule& module() { return module_; }
  InstructionMaker& maker() { return maker_; }
  int64_t num_partitions() const { return num_partitions_; }
  PartitionReport& report() { return *report_; }

  // u32 partition-id of computation `c` (one per computation).
  HloInstruction* PartitionId(HloComputation& c);
  // An s32 scalar holding per_partition[partition-id]: a constant when all
  // entries agree, else a lookup in a constant table.
  HloInstruction* Offset(HloComputation& c, const std::vector<int64_t>& per_partition);

  // `x` with `high[d]` elements appended along each dim (value: zero).
  HloInstruction* PadHigh(HloComputation& c, HloInstruction* x, const std::vector<int64_t>& high);
  // The leading `sizes` of `x` (a static slice from 0).
  HloInstruction* SliceTo(HloComputation& c, HloInstruction* x, const std::vector<int64_t>& sizes);
  HloInstruction* DynamicSlice(HloComputation& c, HloInstruction* x,
                               const std::vector<HloInstruction*>& starts,
                               const std::vector<int64_t>& sizes);
  // Elements of `x` whose global index along `dim` (local index plus
  // `offset`, an s32 scalar) is `limit` or more are replaced by `value` (a
  // scalar literal of x's type).
  HloInstruction* MaskBeyond(HloComputation& c, HloInstruction* x, int64_t dim,
                             HloInstruction* offset, int64_t limit, const Literal& value);
  // The same for global indices outside [low, high), filled with the scalar
  // instruction `fill`.
  HloInstruction* MaskOutside(HloComputation& c, HloInstruction* x, int64_t dim,
                              HloInstruction* offset, int64_t low, int64_t high,
                              HloInstruction* fill);

  // Collectives over partition ids (channel ids, global device ids). Each is
  // recorded in the report with `cause`.
  HloInstruction* AllGather(HloComputation& c, HloInstruction* x, int64_t dim,
                            const DeviceGroups& groups, const Cause& cause);
  HloInstruction* AllReduce(HloComputation& c, HloInstruction* x, const DeviceGroups& groups,
                            HloComputation* reducer, const Cause& cause);
  HloInstruction* ReduceScatter(HloComputation& c, HloInstruction* x, int64_t dim,
                                const DeviceGroups& groups, HloComputation* reducer,
                                const Cause& cause);
  HloInstruction* AllToAll(HloComputation& c, HloInstruction* x, int64_t dim,
                           const DeviceGroups& groups, const Cause& cause);
  HloInstruction* CollectivePermute(HloComputation& c, HloInstruction* x,
                                    const std::vector<std::pair<int64_t, int64_t>>& pairs,
                                    const Cause& cause);

  // A scalar reducer computation of `kind` over `type` (one per pair).
  HloComputation* Reducer(ReductionKind kind, PrimitiveType type);

  // Records that `inst` ran on replicated operands (or otherwise fell back).
  void Fallback(const HloInstruction& inst, std::string reason);

 private:
  HloInstruction* Collective(HloComputation& c, HloOpcode opcode, Shape shape, HloInstruction* x,
                             const DeviceGroups* groups, const Cause& cause);

  HloModule& module_;
  int64_t num_partitions_;
  PartitionReport* report_;
  InstructionMaker maker_;
  int64_t next_channel_id_ = 1;
  absl::flat_hash_map<const HloComputation*, HloInstruction*> partition_ids_;
  absl::flat_hash_map<const HloComputation*, std::map<std::vector<int64_t>, HloInstruction*>>
      offsets_;
  std::map<std::pair<int, int>, HloComputation*> reducers_;
};

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_PARTITION_BUILDER_H_
