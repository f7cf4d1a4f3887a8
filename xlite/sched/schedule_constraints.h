// What the latency hiding scheduler must respect in one computation beyond
// operands and control edges, as XLA's HloScheduleGraph and AsyncTracker:
// an async start may not run before an instruction that still uses a buffer
// its done writes into (the loop state a while body's collective updates, an
// in-place output), and a call site (while, call, conditional) occupies as
// many resources of each kind as there are async dones in what it calls.
#ifndef XLITE_SCHED_SCHEDULE_CONSTRAINTS_H_
#define XLITE_SCHED_SCHEDULE_CONSTRAINTS_H_

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "xlite/analysis/alias_analysis.h"
#include "xlite/ir/schedule.h"
#include "xlite/sched/async_pairs.h"

namespace xlite {

using KindCounts = std::array<int32_t, kNumCollectiveKinds>;

using OrderEdge = std::pair<const HloInstruction*, const HloInstruction*>;  // (before, after)

struct ScheduleConstraints {
  // `after` is an async start, `before` a use of the buffer its done writes.
  std::vector<OrderEdge> edges;
  // Call site -> async dones of each kind in the computations it calls (only
  // call sites that have any).
  absl::flat_hash_map<const HloInstruction*, KindCounts> callee_dones;
  // The order given, reordered where an edge's `before` came after its
  // `after` there; empty when no edge needs it.
  HloSchedule::Sequence reordered;
};

class ScheduleConstraintBuilder {
 public:
  explicit ScheduleConstraintBuilder(const AliasAnalysis& aliases) : aliases_(aliases) {}

  // The constraints of the computation `order` (a valid schedule) sequences.
  // Edges that would close a cycle with the dependences are dropped.
  ScheduleConstraints For(absl::Span<HloInstruction* const> order);

 private:
  // Async dones of each kind in `c` and everything it calls.
  const KindCounts& DonesIn(const HloComputation& c);

  const AliasAnalysis& aliases_;
  absl::flat_hash_map<const HloComputation*, KindCounts> dones_in_;
};

// `order` (a valid schedule of its computation) reordered, as little as a
// stable topological sort does, so that every edge's `before` comes first;
// shorter than `order` when the edges close a cycle with the dependences.
HloSchedule::Sequence OrderWithEdges(absl::Span<HloInstruction* const> order,
                                     absl::Span<const OrderEdge> edges);

}  // namespace xlite

#endif  // XLITE_SCHED_SCHEDULE_CONSTRAINTS_H_
