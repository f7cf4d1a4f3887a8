// The schedule of a scheduled module: a sequence for every non-fusion
// computation (none for fusion bodies) that lists each of its instructions
// exactly once, operands and control predecessors before their users.
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xlite/analysis/verifier.h"
#include "xlite/analysis/verifier_internal.h"

namespace xlite::verifier {
namespace {

void CheckSequence(const HloComputation& comp, absl::Span<HloInstruction* const> sequence,
                   ErrorSink& errors) {
  absl::flat_hash_map<const HloInstruction*, size_t> position;
  position.reserve(sequence.size());
  for (size_t i = 0; i < sequence.size(); ++i) {
    const HloInstruction* inst = sequence[i];
    if (inst->parent() != &comp) {
      errors.Add(comp, absl::StrCat("schedule lists %", inst->name(), " of another computation"));
    } else if (!position.emplace(inst, i).second) {
      errors.Add(*inst, "is listed twice in the schedule");
    }
  }
  int64_t missing = 0;
  for (const auto& inst : comp.instructions()) {
    if (position.contains(inst.get())) continue;
    if (missing++ == 0) errors.Add(*inst, "is missing from the schedule");
  }
  if (missing > 1) {
    errors.Add(comp, absl::StrCat("schedule misses ", missing, " instructions"));
  }
  for (size_t i = 0; i < sequence.size(); ++i) {
    const HloInstruction* inst = sequence[i];
    auto check_before = [&](const HloInstruction* earlier, absl::string_view kind) {
      auto it = position.find(earlier);
      if (it != position.end() && it->second > i) {
        errors.Add(*inst, absl::StrCat("is scheduled before its ", kind, " %", earlier->name()));
      }
    };
    auto self = position.find(inst);
    // Foreign or repeated entries were reported above.
    if (self == position.end() || self->second != i) continue;
    for (const HloInstruction* op : inst->operands()) check_before(op, "operand");
    for (const HloInstruction* pred : inst->control_predecessors()) {
      check_before(pred, "control predecessor");
    }
  }
}

}  // namespace

void CheckSchedule(const HloModule& module, ErrorSink& errors) {
  const HloSchedule& schedule = module.schedule();
  for (const auto& comp : module.computations()) {
    bool has = schedule.has_sequence(*comp);
    if (!HloSchedule::IsScheduledComputation(*comp)) {
      if (has) errors.Add(*comp, "is a fusion body but has a schedule sequence");
      continue;
    }
    if (!has) {
      errors.Add(*comp, "has no schedule sequence in a scheduled module");
      continue;
    }
    CheckSequence(*comp, schedule.sequence(*comp), errors);
  }
}

}  // namespace xlite::verifier

namespace xlite {

absl::Status VerifySequence(const HloComputation& computation,
                            absl::Span<HloInstruction* const> sequence) {
  std::vector<Violation> errors;
  verifier::ErrorSink sink(&errors);
  verifier::CheckSequence(computation, sequence, sink);
  if (errors.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(errors.front().text);
}

}  // namespace xlite
