// Memory schedulers: an order for every sequential computation that keeps
// few bytes live — post-order, DFS (XLA's DFSMemoryScheduler), list (greedy
// by bytes freed, XLA's ListMemoryScheduler) and best, which keeps whichever
// of the three gives the lowest module peak (XLA's DefaultMemoryScheduler).
#ifndef XLITE_SCHED_MEMORY_SCHEDULER_H_
#define XLITE_SCHED_MEMORY_SCHEDULER_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/analysis/liveness.h"

namespace xlite {

enum class MemoryScheduler : uint8_t { kPostOrder, kDfs, kList, kBest };
std::string_view MemorySchedulerName(MemoryScheduler scheduler);
std::optional<MemoryScheduler> MemorySchedulerFromName(std::string_view name);
// The three base schedulers, in the order best prefers them on ties.
inline constexpr MemoryScheduler kBaseMemorySchedulers[] = {
    MemoryScheduler::kList, MemoryScheduler::kDfs, MemoryScheduler::kPostOrder};

struct MemorySchedule {
  HloSchedule schedule;
  MemoryScheduler scheduler = MemoryScheduler::kPostOrder;  // best: the winner
  int64_t peak_bytes = 0;                                   // the liveness peak of `schedule`
};

// Orders every sequential computation of the analysed module.
absl::StatusOr<MemorySchedule> ScheduleForMemory(const AliasAnalysis& aliases,
                                                 MemoryScheduler scheduler);

// The order one base scheduler gives one sequential computation.
HloSchedule::Sequence ScheduleComputation(const AliasAnalysis& aliases,
                                          const HloComputation& computation,
                                          MemoryScheduler scheduler);

}  // namespace xlite

#endif  // XLITE_SCHED_MEMORY_SCHEDULER_H_
