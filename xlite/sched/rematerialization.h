// Rematerialization (XLA's HloRematerialization, simplified): lowers the
// peak of live bytes of a scheduled module below a limit by recomputing
// values just before their later uses instead of keeping them live across
// the peak. Cheap ops (elementwise, broadcast, iota, data movement) are
// tried first; other side-effect-free ops only when no cheap one helps.
#ifndef XLITE_SCHED_REMATERIALIZATION_H_
#define XLITE_SCHED_REMATERIALIZATION_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "xlite/ir/module.h"
#include "xlite/passes/pass.h"

namespace xlite {

struct RematerializationResult {
  int64_t peak_before = 0;  // bytes, liveness peak of the incoming schedule
  int64_t peak_after = 0;
  int64_t rematerialized = 0;  // instructions recomputed (clones added)
  bool reached = false;        // peak_after <= the limit
};

// Works on the entry computation of a scheduled module (the schedule is kept
// valid: each recomputation sits just before its first later user). Stops
// when the peak fits `memory_limit_bytes` or when no recomputation lowers
// it; `reached` says which. `max_rematerializations` bounds the work.
absl::StatusOr<RematerializationResult> Rematerialize(HloModule& module, int64_t memory_limit_bytes,
                                                      int64_t max_rematerializations = 1000);

// Rematerialize, with an error naming the peak it got to when the limit is
// out of reach.
absl::StatusOr<RematerializationResult> RematerializeToFit(HloModule& module,
                                                           int64_t memory_limit_bytes);

// The pass (`rematerialization{memory_limit=BYTES}`): schedules the module
// for memory first when it is not scheduled; an unreachable limit is an error
// naming the peak it got to.
class RematerializationPass : public HloPass {
 public:
  explicit RematerializationPass(int64_t memory_limit_bytes)
      : memory_limit_bytes_(memory_limit_bytes) {}
  std::string_view name() const override { return "rematerialization"; }
  absl::StatusOr<bool> Run(HloModule& module) override;

 private:
  int64_t memory_limit_bytes_;
};

}  // namespace xlite

#endif  // XLITE_SCHED_REMATERIALIZATION_H_
