// The propagator's state and steps (internal to xlite/spmd): one sharding
// slot per array leaf of every instruction of the partitionable
// computations, linked slots (while/call/conditional values that must
// agree), the per-slot origin, and the forward/backward inference steps.
#ifndef XLITE_SPMD_PROPAGATOR_H_
#define XLITE_SPMD_PROPAGATOR_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xlite/ir/module.h"
#include "xlite/spmd/factor_rule.h"
#include "xlite/spmd/propagation.h"

namespace xlite::spmd {

// XLA's ComputeNonRootUsers: users other than the computation's root.
int64_t NonRootUsers(const HloInstruction& inst);

class Propagator {
 public:
  Propagator(HloModule& module, const PropagationOptions& options);
  // Runs the four aggressiveness levels to their fixed points and writes the
  // shardings back; returns the origins.
  PropagationResult Run();

 private:
  struct Slot {
    std::optional<HloSharding> sharding;
    bool provided = false;  // annotation (or frozen entry root/parameter)
    ShardingOrigin origin;
    int64_t link = -1;  // group in links_, or -1
  };

  int64_t IndexOf(const HloInstruction* inst) const;
  int64_t SlotOf(const HloInstruction* inst, int64_t leaf) const;
  int64_t LeafCount(int64_t index) const { return first_slot_[index + 1] - first_slot_[index]; }
  int64_t IndexOfSlot(int64_t slot) const;
  const Shape* SlotShape(int64_t slot) const;  // the array leaf's shape
  const HloSharding* Get(int64_t slot) const;
  // Joins the annotations behind `from_origin` (of `from`) into `sources`.
  void AddSources(const ShardingOrigin& from_origin, const HloInstruction* from,
                  std::vector<const HloInstruction*>* sources) const;

  void CollectComputations();
  void InitSlots();
  void AddLink(int64_t a, int64_t b);
  void LinkValues(const HloInstruction* a, int64_t a_first, const HloInstruction* b,
                  int64_t b_first, int64_t count);

  // XLA's MaybeImproveInstructionSharding on one slot; records the origin.
  bool Improve(int64_t slot, const HloSharding& proposal, ShardingOrigin origin,
               bool allow_aggressive);
  void Conflict(int64_t slot, const HloSharding& proposal, const ShardingOrigin& origin,
                const char* reason);
  void PropagateLinks(int64_t slot);
  void MarkChanged(const HloInstruction* inst);

  // The op's rule, built once per instruction.
  const FactorRule* RuleOf(const HloInstruction* inst);
  // Leaf offset of tuple element `element` of instruction `index`'s shape.
  int64_t ElementLeafOffset(const HloInstruction* inst, int64_t element);

  bool InferForward(int64_t index);
  bool InferBackward(int64_t index);
  // The sharding `user` implies for its operand `operand_index` (nullopt:
  // nothing to say at this level).
  std::optional<HloSharding> FromUserRule(const HloInstruction& user, const FactorRule& rule,
                                          int64_t operand_index);
  bool FromOutfeed(const HloInstruction& outfeed, int64_t operand_index);
  bool CopyLeaves(const HloInstruction* from, int64_t from_first, const HloInstruction* to,
                  int64_t to_first, int64_t count, ShardingOrigin::Kind kind, std::string_view rule,
                  bool allow_aggressive = false);

  void RunLevel();
  void FinalizeLinks();
  void ReplicateUnevenEntryValues();

  // Shard groups and unspecified dims (propagator_groups.cc).
  void CollectShardGroups();
  bool InferFromShardGroups();
  void AlignShardAsGroups();
  bool RefineUnspecified(int64_t slot, const HloSharding& proposal, ShardingOrigin origin);
  PropagationResult WriteBack();

  HloModule& module_;
  PropagationOptions options_;
  int aggressiveness_ = 0;
  std::vector<HloComputation*> computations_;
  std::vector<HloInstruction*> order_;
  // Index by unique id (dense in parsed modules), else by pointer.
  std::vector<int64_t> index_by_id_;
  absl::flat_hash_map<const HloInstruction*, int64_t> index_;
  std::vector<std::optional<FactorRule>> rules_;
  std::vector<bool> rule_built_;
  std::vector<std::vector<int64_t>> element_offsets_;
  std::vector<int64_t> first_slot_;
  std::vector<Slot> slots_;
  std::vector<std::vector<int64_t>> links_;
  std::set<int64_t> forward_dirty_, backward_dirty_;
  std::vector<bool> original_sharded_;
  // Entry parameter and root leaves propagation may refine.
  std::vector<int64_t> refinable_entry_slots_;
  struct ShardGroup {
    bool shard_as = false;
    std::vector<int64_t> members;  // slots
  };
  std::map<int64_t, ShardGroup> shard_groups_;  // by group id
  // Annotated `Sharding` custom-call slots and the dims they leave open.
  absl::flat_hash_map<int64_t, std::vector<int64_t>> unspecified_dims_;
  int64_t rounds_ = 0;
  int64_t inferences_ = 0;
};

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_PROPAGATOR_H_
