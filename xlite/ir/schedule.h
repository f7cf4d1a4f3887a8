// HloSchedule: the order each computation of a scheduled module runs in, one
// instruction sequence per non-fusion computation. The parser sets it from
// the text of an is_scheduled=true module, schedulers set it, the printer
// lists instructions in it, passes keep it (Update), the verifier checks it.
#ifndef XLITE_IR_SCHEDULE_H_
#define XLITE_IR_SCHEDULE_H_

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "xlite/ir/computation.h"

namespace xlite {

class HloModule;

class HloSchedule {
 public:
  using Sequence = std::vector<HloInstruction*>;

  // Every non-fusion computation of `module` in its definition order (what
  // an is_scheduled=true text means; the verifier rejects a text whose
  // order is not a valid schedule).
  static HloSchedule FromDefinitionOrder(const HloModule& module);

  // The computations a schedule of `module` covers: all but fusion bodies.
  static bool IsScheduledComputation(const HloComputation& computation);

  bool has_sequence(const HloComputation& computation) const;
  // The sequence of `computation` (empty when it has none).
  absl::Span<HloInstruction* const> sequence(const HloComputation& computation) const;
  // Replaces the sequence of `computation`; the verifier checks it.
  void set_sequence(const HloComputation& computation, Sequence sequence);

  // Drops instructions or computations about to be deleted (HloComputation
  // and HloModule call these, so no sequence ever names a deleted one).
  void RemoveInstructions(const HloComputation& computation,
                          absl::Span<HloInstruction* const> dead);
  void RemoveComputation(const HloComputation& computation);

  // Brings the schedule in step with `module` after a pass: every sequence
  // keeps its order where it is still a valid one; an instruction not yet
  // sequenced goes just before its first sequenced user (after its operands;
  // at the end when nothing sequenced uses it); an operand a pass moved
  // after its new user moves just before it. A scheduled computation
  // without a sequence (a pass added it) gets its definition order.
  void Update(const HloModule& module);

 private:
  // Looked up only, never iterated: output follows the module's order.
  absl::flat_hash_map<const HloComputation*, Sequence> sequences_;
};

// The order the text format lists the instructions of `computation`: its
// sequence when its module is scheduled (repaired as Update would, should a
// pass have left it stale), else the definition order. The printer and the
// module comparison use it.
std::vector<HloInstruction*> TextOrder(const HloComputation& computation);

}  // namespace xlite

#endif  // XLITE_IR_SCHEDULE_H_
