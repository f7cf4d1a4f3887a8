// Over the real modules of ../shared/corpus/hlo (skipped when absent): the
// best memory schedule's peak is no higher than post-order's, DFS's and
// list's, every schedule respects the dependences, and the buffer
// assignment's arena holds at least the peak of the buffers it places.
#include "gtest/gtest.h"
#include "tests/conformance/corpus.h"
#include "xlite/analysis/verifier.h"
#include "xlite/ir/computation.h"
#include "xlite/passes/flatten_call_graph.h"
#include "xlite/sched/buffer_assignment.h"
#include "xlite/sched/memory_scheduler.h"

namespace xlite {
namespace {

TEST(MemoryCorpusTest, BestIsNoWorseThanEachScheduler) {
  if (conformance::CorpusFiles().empty()) {
    GTEST_SKIP() << "no corpus at " << conformance::CorpusDir();
  }
  const int checked = conformance::ForEachVerifiedModule([](HloModule& module) {
    FlattenCallGraphPass flatten;
    ASSERT_TRUE(flatten.Run(module).ok());
    auto aliases = AliasAnalysis::Run(module);
    ASSERT_TRUE(aliases.ok()) << aliases.status();
    auto best = ScheduleForMemory(**aliases, MemoryScheduler::kBest);
    ASSERT_TRUE(best.ok()) << best.status();
    for (MemoryScheduler s : kBaseMemorySchedulers) {
      auto other = ScheduleForMemory(**aliases, s);
      ASSERT_TRUE(other.ok()) << other.status();
      EXPECT_LE(best->peak_bytes, other->peak_bytes) << MemorySchedulerName(s);
    }
    for (const HloComputation* c : (*aliases)->dataflow().sequential_computations()) {
      EXPECT_TRUE(VerifySequence(*c, best->schedule.sequence(*c)).ok());
    }
    auto liveness = Liveness::Run(**aliases, best->schedule);
    ASSERT_TRUE(liveness.ok()) << liveness.status();
    EXPECT_EQ((*liveness)->peak_bytes(), best->peak_bytes);
    BufferAssignment assignment = AssignBuffers(**liveness);
    EXPECT_GE(assignment.arena_bytes, assignment.peak_live_bytes);
    EXPECT_LE(assignment.peak_live_bytes, best->peak_bytes);
  });
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace xlite
