// Internal to the SPMD partitioner: the partitioned value (local
// instruction, global sharding, global shape), the state of one computation
// being partitioned, and the per-opcode handler table that the family files
// (partition_rules.cc, partition_contraction.cc, partition_control.cc) fill.
#ifndef XLITE_SPMD_PARTITIONER_INTERNAL_H_
#define XLITE_SPMD_PARTITIONER_INTERNAL_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "xlite/ir/module.h"
#include "xlite/spmd/partition_builder.h"

namespace xlite::spmd {

// A value of the global program as one partition holds it: `local` has the
// shard shape of `global` under `sharding` (ForPartitioning form); the
// padding of uneven shards holds unspecified values.
struct PValue {
  HloInstruction* local = nullptr;
  HloSharding sharding;
  Shape global;
};

class ModulePartitioner;

// Partitions one computation into a new one.
class PartitionState {
 public:
  PartitionState(ModulePartitioner& module, const HloComputation& original,
                 HloComputation& partitioned);

  PartitionBuilder& b();
  ModulePartitioner& module() { return module_; }
  HloComputation& c() { return partitioned_; }
  const HloComputation& original() const { return original_; }
  int64_t num_partitions() const;

  // The sharding `inst` must end up with (replicated when it has none).
  HloSharding TargetOf(const HloInstruction& inst) const;
  const PValue& Value(const HloInstruction* original) const;
  void SetValue(const HloInstruction* original, PValue value) {
    values_[original] = std::move(value);
  }
  // Operand `i` of `inst`, resharded to `target` (cause: `inst` needed it).
  absl::StatusOr<HloInstruction*> OperandAs(const HloInstruction& inst, int64_t i,
                                            const HloSharding& target,
                                            std::string_view reason = "operand");
  // `value` resharded to `target` (tuples leaf by leaf).
  absl::StatusOr<PValue> Reshard(const PValue& value, const HloSharding& target,
                                 const Cause& cause);
  // Bytes a reshard of `value` to `target` communicates per device.
  int64_t ReshardBytes(const PValue& value, const HloSharding& target) const;
  int64_t ReshardBytes(const HloSharding& from, const HloSharding& to, const Shape& global) const;

  // A copy of `inst` on `operands` with shape `shape`, named like `inst`
  // (its own name when still free), without a sharding.
  HloInstruction* Clone(const HloInstruction& inst, absl::Span<HloInstruction* const> operands,
                        const Shape& shape);

 private:
  ModulePartitioner& module_;
  const HloComputation& original_;
  HloComputation& partitioned_;
  absl::flat_hash_map<const HloInstruction*, PValue> values_;
};

// Computes the partitioned value of `inst`; its sharding need not be the
// target (the driver reshards the result).
using PartitionHandler = absl::StatusOr<PValue> (*)(const HloInstruction& inst, PartitionState& s);

// Pad, slice, reduce-window and select-and-scatter on split dims by halo
// exchange (partition_windowed.cc); nullopt when the op does not fit it, so
// the rule-based handler takes over.
std::optional<absl::StatusOr<PValue>> PartitionByHalo(const HloInstruction& inst,
                                                      PartitionState& s);

// Every leaf that holds data (tokens aside) is manual, and there is one.
bool AllManual(const HloSharding& sharding, const Shape& shape);

// Ops inside a manual region run as written, on the per-device values
// (operands must be manual or unsplit).
absl::StatusOr<PValue> PartitionManual(const HloInstruction& inst, PartitionState& s);

// Gather from an operand split along dims it indexes with slice size 1
// (partition_gather.cc): a local lookup per shard, masked, and an
// all-reduce; nullopt when it does not apply or gathering the operand is
// cheaper.
std::optional<absl::StatusOr<PValue>> PartitionGatherByMasking(const HloInstruction& inst,
                                                               PartitionState& s);

class PartitionHandlerTable {
 public:
  void Register(HloOpcode opcode, PartitionHandler handler) {
    handlers_[static_cast<size_t>(opcode)] = handler;
  }
  PartitionHandler Get(HloOpcode opcode) const { return handlers_[static_cast<size_t>(opcode)]; }

 private:
  std::array<PartitionHandler, kNumOpcodes> handlers_{};
};

void RegisterRuleHandlers(PartitionHandlerTable& table);         // partition_rules.cc
void RegisterContractionHandlers(PartitionHandlerTable& table);  // partition_contraction.cc
void RegisterControlHandlers(PartitionHandlerTable& table);      // partition_control.cc

// Runs `inst` on replicated operands (all-gathered first) and reports it:
// the result is replicated. For ops without a rule, custom-calls, and cases
// a rule cannot split exactly.
absl::StatusOr<PValue> PartitionReplicated(const HloInstruction& inst, PartitionState& s,
                                           std::string reason);

// The module-wide side: the builder, partitioned callees, final names.
class ModulePartitioner {
 public:
  ModulePartitioner(HloModule& module, PartitionReport* report);
  PartitionBuilder& builder() { return builder_; }
  HloModule& module() { return module_; }

  // Partitions `original` with its parameters sharded as `parameters` and
  // its root resharded to `root`; new computations go before `before`.
  // Cached per (computation, shardings).
  absl::StatusOr<HloComputation*> PartitionComputation(const HloComputation& original,
                                                       const std::vector<HloSharding>& parameters,
                                                       const HloSharding& root,
                                                       const HloComputation* before);
  // Claims `name` for a partitioned instruction (false when taken).
  bool ClaimName(const std::string& name) { return final_names_.insert(name).second; }
  // Old computations replaced by partitioned ones.
  const std::set<const HloComputation*>& replaced() const { return replaced_; }

 private:
  HloModule& module_;
  PartitionBuilder builder_;
  std::map<std::string, HloComputation*> partitioned_;
  std::set<std::string> computation_names_;
  std::set<std::string> final_names_;
  std::set<const HloComputation*> replaced_;
  std::set<const HloComputation*> in_progress_;
};

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_PARTITIONER_INTERNAL_H_
