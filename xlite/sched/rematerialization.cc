#include "xlite/sched/rematerialization.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xlite/analysis/alias_analysis.h"
#include "xlite/analysis/liveness.h"
#include "xlite/base/byte_text.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/passes/instruction_maker.h"
#include "xlite/sched/hlo_memory_scheduler.h"

namespace xlite {
namespace {

// Recomputing these costs about as much as reading their result once.
bool IsCheapToRecompute(HloOpcode op) {
  if (IsElementwiseOpcode(op)) return true;
  switch (op) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kConcatenate:
    case HloOpcode::kPad:
    case HloOpcode::kReverse:
    case HloOpcode::kCopy:
      return true;
    default:
      return false;
  }
}

// A second evaluation gives the same array and nothing else happens: no side
// effect, no control edges, no computation run as a sequence of its own (a
// clone would need its own copy of it), no in-place update, no communication.
bool MayRecompute(const HloInstruction& inst) {
  if (!inst.shape().IsArray() || inst.HasSideEffectNoRecurse()) return false;
  if (!inst.control_predecessors().empty() || !inst.control_successors().empty()) return false;
  const HloOpcode op = inst.opcode();
  if (IsCollectiveOpcode(op) || IsAsyncOpcode(op)) return false;
  switch (op) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
    case HloOpcode::kCustomCall:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kScatter:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
      return false;
    default:
      return true;
  }
}

struct Candidate {
  HloInstruction* inst = nullptr;
  int64_t net_bytes = 0;  // bytes the peak step loses
  bool cheap = false;
};

// The recomputation that lowers the bytes live at `peak_step` the most,
// cheap ops first; nullopt when none lowers them.
std::optional<Candidate> PickCandidate(const HloComputation& entry,
                                       absl::Span<HloInstruction* const> sequence,
                                       const AliasAnalysis& aliases, const Liveness& live,
                                       int64_t peak_step,
                                       const absl::flat_hash_set<const HloInstruction*>& made) {
  const HloInstruction* at_peak = live.timeline()[peak_step];
  std::optional<Candidate> best;
  for (HloInstruction* inst : sequence) {
    // A recomputation is not recomputed again: moving the same value from
    // peak to peak would never end.
    if (live.StepOf(*inst) >= peak_step || !MayRecompute(*inst) || made.contains(inst)) continue;
    std::vector<int32_t> own = aliases.BuffersAt(*inst);
    if (own.size() != 1) continue;
    const HloBuffer& buffer = aliases.buffer(own[0]);
    if (buffer.kind != BufferKind::kTemporary || buffer.values.size() != 1 ||
        aliases.dataflow().value(buffer.values[0]).instruction != inst) {
      continue;  // shared with another value (in place, aliased): not its own
    }
    const LiveRange& range = live.BufferRange(buffer.id);
    if (range.end <= peak_step) continue;  // dead by the peak, or read there
    bool read_at_peak = false;
    for (const HloInstruction* user : inst->users()) read_at_peak |= user == at_peak;
    if (read_at_peak || inst == entry.root_instruction()) continue;
    // Operands dead at the peak would now live across it.
    int64_t extended = 0;
    std::vector<int32_t> counted;
    for (const HloInstruction* operand : inst->operands()) {
      for (int32_t b : aliases.BuffersAt(*operand)) {
        if (live.BufferRange(b).end >= peak_step) continue;
        if (std::find(counted.begin(), counted.end(), b) != counted.end()) continue;
        counted.push_back(b);
        extended += aliases.buffer(b).bytes;
      }
    }
    Candidate c{inst, buffer.bytes - extended, IsCheapToRecompute(inst->opcode())};
    if (c.net_bytes <= 0) continue;
    // Sequence order breaks ties, so the choice is deterministic.
    if (!best ||
        std::make_tuple(c.cheap, c.net_bytes) > std::make_tuple(best->cheap, best->net_bytes)) {
      best = c;
    }
  }
  return best;
}

// Gives the users of `inst` scheduled after `peak_step` a recomputation of
// it, which it returns.
HloInstruction* RecomputeForLaterUsers(HloModule& module, HloInstruction* inst,
                                       const Liveness& live, int64_t peak_step) {
  HloComputation& entry = *module.entry_computation();
  InstructionMaker make(module);
  std::vector<HloInstruction*> operands(inst->operands().begin(), inst->operands().end());
  HloInstruction* again = make.Clone(entry, *inst, operands);
  std::vector<HloInstruction*> later;
  for (HloInstruction* user : inst->users()) {
    if (user != again && live.StepOf(*user) > peak_step) later.push_back(user);
  }
  for (HloInstruction* user : later) {
    for (int64_t i = 0; i < user->operand_count(); ++i) {
      if (user->operand(i) == inst) user->ReplaceOperandWith(i, again);
    }
  }
  make.Finish();  // the schedule places `again` just before its first user
  if (inst->user_count() == 0) entry.RemoveInstruction(inst);
  return again;
}

// Rounds in a row without a lower peak after which the search gives up.
constexpr int64_t kRoundsWithoutProgress = 64;

}  // namespace

absl::StatusOr<RematerializationResult> Rematerialize(HloModule& module, int64_t memory_limit_bytes,
                                                      int64_t max_rematerializations) {
  if (!module.is_scheduled() || module.entry_computation() == nullptr) {
    return absl::FailedPreconditionError("rematerialization needs a scheduled module");
  }
  RematerializationResult result;
  absl::flat_hash_set<const HloInstruction*> made;  // looked up only
  int64_t lowest = std::numeric_limits<int64_t>::max(), lowest_round = 0;
  for (int64_t round = 0;; ++round) {
    XLITE_ASSIGN_OR_RETURN(std::unique_ptr<AliasAnalysis> aliases, AliasAnalysis::Run(module));
    XLITE_ASSIGN_OR_RETURN(std::unique_ptr<Liveness> live,
                           Liveness::Run(*aliases, module.schedule()));
    if (round == 0) result.peak_before = live->peak_bytes();
    result.peak_after = live->peak_bytes();
    result.reached = result.peak_after <= memory_limit_bytes;
    if (result.peak_after < lowest) {
      lowest = result.peak_after;
      lowest_round = round;
    }
    if (result.reached || round >= max_rematerializations ||
        round - lowest_round >= kRoundsWithoutProgress) {
      break;
    }
    const HloComputation& entry = *module.entry_computation();
    std::optional<Candidate> pick = PickCandidate(entry, module.schedule().sequence(entry),
                                                  *aliases, *live, live->peak_step(), made);
    if (!pick) break;
    made.insert(RecomputeForLaterUsers(module, pick->inst, *live, live->peak_step()));
    ++result.rematerialized;
  }
  return result;
}

absl::StatusOr<RematerializationResult> RematerializeToFit(HloModule& module,
                                                           int64_t memory_limit_bytes) {
  XLITE_ASSIGN_OR_RETURN(RematerializationResult r, Rematerialize(module, memory_limit_bytes));
  if (!r.reached) {
    return absl::ResourceExhaustedError(
        Cat("rematerialization: cannot bring the peak of ", BytesText(r.peak_before),
            " under the memory limit of ", BytesText(memory_limit_bytes), ": it got to ",
            BytesText(r.peak_after), " after recomputing ", r.rematerialized, " instruction",
            r.rematerialized == 1 ? "" : "s",
            " (what stays live across the peak is parameters, outputs, in-place or not "
            "recomputable)"));
  }
  return r;
}

absl::StatusOr<bool> RematerializationPass::Run(HloModule& module) {
  if (module.entry_computation() == nullptr) return false;
  bool changed = false;
  if (!module.is_scheduled()) {
    HloMemorySchedulerPass schedule;
    XLITE_ASSIGN_OR_RETURN(changed, schedule.Run(module));
  }
  XLITE_ASSIGN_OR_RETURN(RematerializationResult r,
                         RematerializeToFit(module, memory_limit_bytes_));
  return changed || r.rematerialized > 0;
}

}  // namespace xlite
