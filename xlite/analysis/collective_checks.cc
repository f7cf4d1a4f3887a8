// Collective attributes (replica groups disjoint, non-empty and in range for
// the group mode; equal group sizes where the result shape depends on them;
// use_global_device_ids only with a channel_id; permute pairs in range) and
// the pairing of asynchronous -done/-update ops with their start.
#include <algorithm>

#include "xlite/analysis/verifier_internal.h"
#include "xlite/inference/collective_groups.h"
#include "xlite/inference/shape_inference_internal.h"

namespace xlite::verifier {
namespace {

using O = HloOpcode;

bool NeedsEqualGroups(HloOpcode op) {
  return op == O::kAllGather || op == O::kAllGatherStart || op == O::kReduceScatter ||
         op == O::kAllToAll;
}

void CheckExplicitGroups(const HloInstruction& inst, const ReplicaGroups& groups, int64_t bound,
                         ErrorSink& errors) {
  std::vector<int64_t> ids;
  for (const std::vector<int64_t>& group : groups.groups) {
    if (group.empty()) {
      errors.Add(inst, "replica_groups contains an empty group");
      return;
    }
    if (NeedsEqualGroups(inst.opcode()) && group.size() != groups.groups[0].size()) {
      errors.Add(inst, absl::StrCat("replica_groups must have equal sizes, got ",
                                    groups.groups[0].size(), " and ", group.size()));
      return;
    }
    for (int64_t id : group) {
      if (id < 0 || (bound > 1 && id >= bound)) {
        errors.Add(inst,
                   absl::StrCat("replica_groups id ", id, " is out of range [0, ", bound, ")"));
        return;
      }
      ids.push_back(id);
    }
  }
  std::sort(ids.begin(), ids.end());
  auto repeat = std::adjacent_find(ids.begin(), ids.end());
  if (repeat != ids.end()) {
    errors.Add(inst, absl::StrCat("replica_groups id ", *repeat,
                                  " appears in more than one "
                                  "place; groups must be disjoint"));
    return;
  }
  // As XLA requires, the groups name exactly the ids 0..n-1, and n is the
  // mode's count when the module states one.
  const int64_t n = static_cast<int64_t>(ids.size());
  for (int64_t i = 0; i < n; ++i) {
    if (ids[i] != i) {
      errors.Add(
          inst, absl::StrCat("replica_groups skip id ", i, "; the ", n, " ids must be 0..", n - 1));
      return;
    }
  }
  if (bound > 1 && n != bound) {
    errors.Add(inst, absl::StrCat("replica_groups name ", n, " ids, but the module has ", bound,
                                  " for this group mode"));
  }
}

void CheckIdCount(const HloInstruction& inst, const char* form, int64_t count, int64_t bound,
                  ErrorSink& errors) {
  if (bound > 1 && count > bound) {
    errors.Add(inst, absl::StrCat(form, " replica_groups address ", count, " ids, more than the ",
                                  bound, " available"));
  }
}

void CheckIotaGroups(const HloInstruction& inst, const ReplicaGroups& groups, int64_t bound,
                     ErrorSink& errors) {
  int64_t product = 1;
  for (int64_t d : groups.iota_reshape) product *= d;
  if (groups.num_groups <= 0 || groups.group_size <= 0 ||
      groups.num_groups * groups.group_size != product) {
    errors.Add(inst, absl::StrCat("iota replica_groups [", groups.num_groups, ",",
                                  groups.group_size, "] does not match its ", product, " devices"));
  } else {
    CheckIdCount(inst, "iota", product, bound, errors);
  }
}

// The parser validates meshes; a built one may still name a missing axis.
void CheckMeshGroups(const HloInstruction& inst, const ReplicaGroups& groups, int64_t bound,
                     ErrorSink& errors) {
  absl::Status valid = ValidateMeshAxisList(groups.mesh, groups.mesh_group_axes);
  if (!valid.ok()) {
    errors.Add(inst, absl::StrCat("mesh replica_groups: ", valid.message()));
    return;
  }
  CheckIdCount(inst, "mesh", groups.mesh.num_devices(), bound, errors);
}

void CheckPairsInRange(const HloInstruction& inst, int64_t bound, ErrorSink& errors) {
  for (const auto& [source, target] : inst.attrs<CollectiveAttrs>().source_target_pairs) {
    if (bound > 1 && (source >= bound || target >= bound)) {
      errors.Add(inst, absl::StrCat("source_target_pairs {", source, ",", target,
                                    "} is out of range [0, ", bound, ")"));
      return;
    }
  }
}

// The opcode a -done/-update operand must have, if `op` is one.
std::optional<HloOpcode> StartOpcodeOf(HloOpcode op) {
  switch (op) {
    case O::kAllReduceDone:
      return O::kAllReduceStart;
    case O::kAllGatherDone:
      return O::kAllGatherStart;
    case O::kCollectivePermuteDone:
      return O::kCollectivePermuteStart;
    case O::kCopyDone:
      return O::kCopyStart;
    case O::kSendDone:
      return O::kSend;
    case O::kRecvDone:
      return O::kRecv;
    case O::kAsyncUpdate:
    case O::kAsyncDone:
      return O::kAsyncStart;
    default:
      return std::nullopt;
  }
}

}  // namespace

void CheckCollective(const HloInstruction& inst, const ModuleConfig& config, ErrorSink& errors) {
  const auto& a = inst.attrs<CollectiveAttrs>();
  if (a.use_global_device_ids && !a.channel_id.has_value()) {
    errors.Add(inst, "use_global_device_ids=true requires a channel_id");
    return;
  }
  CollectiveGroupMode mode = GroupModeOf(inst);
  int64_t bound = GroupIdBound(mode, config);
  if (a.replica_groups.is_iota) {
    CheckIotaGroups(inst, a.replica_groups, bound, errors);
  } else if (a.replica_groups.is_mesh()) {
    CheckMeshGroups(inst, a.replica_groups, bound, errors);
  } else if (!a.replica_groups.groups.empty()) {
    CheckExplicitGroups(inst, a.replica_groups, bound, errors);
  } else if (mode == CollectiveGroupMode::kFlattenedId) {
    errors.Add(inst, "use_global_device_ids=true requires non-empty replica_groups");
  }
  if (!a.source_target_pairs.empty()) CheckPairsInRange(inst, bound, errors);
}

void CheckAsyncPairing(const HloInstruction& inst, ErrorSink& errors) {
  std::optional<HloOpcode> start = StartOpcodeOf(inst.opcode());
  if (!start.has_value() || inst.operand_count() != 1) return;
  const HloInstruction& op = *inst.operand(0);
  bool is_async = inst.opcode() == O::kAsyncUpdate || inst.opcode() == O::kAsyncDone;
  bool ok = op.opcode() == *start || (is_async && op.opcode() == O::kAsyncUpdate);
  // As in XLA, a pipelined send/recv reaches its -done through tuples and
  // loops: any operand of the (data, u32[], token[]) shape will do.
  bool is_transfer_done = inst.opcode() == O::kSendDone || inst.opcode() == O::kRecvDone;
  if (!ok && is_transfer_done) return;
  if (!ok) {
    errors.Add(inst,
               Cat("operand must be a ", OpcodeName(*start), is_async ? " or async-update" : "",
                   ", got %", op.name(), " (", OpcodeName(op.opcode()), ")"));
    return;
  }
  if (is_async && !inst.called_computations().empty() && !op.called_computations().empty() &&
      inst.called_computations()[0] != op.called_computations()[0]) {
    errors.Add(inst, absl::StrCat("wraps a different computation than its operand %", op.name()));
  }
  if ((inst.opcode() == O::kSendDone || inst.opcode() == O::kRecvDone) && inst.has_attrs() &&
      op.has_attrs()) {
    const auto& mine = inst.attrs<SendRecvAttrs>().channel_id;
    const auto& theirs = op.attrs<SendRecvAttrs>().channel_id;
    if (mine.has_value() && theirs.has_value() && *mine != *theirs) {
      errors.Add(inst, absl::StrCat("channel_id ", *mine, " differs from %", op.name(),
                                    "'s channel_id ", *theirs));
    }
  }
}

}  // namespace xlite::verifier
