// Rematerialization: peaks worked out by hand fall under the limit, the
// rewritten module verifies (its schedule included) and computes the same
// bits; values that must not be recomputed stay; an unreachable limit is an
// error that names the peak reached.
#include "xlite/sched/rematerialization.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xlite/analysis/liveness.h"
#include "xlite/ir/computation.h"
#include "xlite/passes/pass_test_util.h"
#include "xlite/sched/hlo_memory_scheduler.h"

namespace xlite {
namespace {

// %b (4 MiB) is read at the start and again at the end: over the peak at
// %z it is live beside %q, %x and %y (the output buffer is %r's).
constexpr char kBroadcastAcrossPeak[] = R"(
HloModule remat
ENTRY %main (p: f32[1024], q: f32[1024,1024]) -> f32[1024,1024] {
  %p = f32[1024] parameter(0)
  %q = f32[1024,1024] parameter(1)
  %b = f32[1024,1024] broadcast(%p), dimensions={1}
  %x = f32[1024,1024] multiply(%q, %b)
  %y = f32[1024,1024] exponential(%x)
  %z = f32[1024,1024] tanh(%y)
  %w = f32[1024,1024] add(%z, %x)
  ROOT %r = f32[1024,1024] add(%w, %b)
})";

constexpr int64_t kMiB = 1 << 20;

int64_t Peak(const HloModule& module) {
  auto aliases = AliasAnalysis::Run(module);
  EXPECT_TRUE(aliases.ok());
  auto live = Liveness::Run(**aliases, CurrentSchedule(module));
  EXPECT_TRUE(live.ok());
  return live.ok() ? (*live)->peak_bytes() : -1;
}

TEST(RematerializationTest, RecomputesTheBroadcastLiveAcrossThePeak) {
  RematerializationPass pass(17 * kMiB);
  std::unique_ptr<HloModule> module =
      testing::RunPassAndCompare(kBroadcastAcrossPeak, pass, /*expect_change=*/true);
  ASSERT_NE(module, nullptr);
  ASSERT_TRUE(module->is_scheduled());
  // The parameters (4 MiB + 4 KiB) and three 4 MiB arrays, not four.
  EXPECT_EQ(Peak(*module), 16 * kMiB + 4096);
  // The root reads a second broadcast scheduled right before it.
  const HloInstruction* root = module->entry_computation()->root_instruction();
  const HloInstruction* again = root->operand(1);
  EXPECT_EQ(again->opcode(), HloOpcode::kBroadcast);
  EXPECT_NE(again->name(), "b");
  absl::Span<HloInstruction* const> order =
      module->schedule().sequence(*module->entry_computation());
  ASSERT_GE(order.size(), 2u);
  EXPECT_EQ(order[order.size() - 2], again);
}

TEST(RematerializationTest, NothingToDoUnderTheLimit) {
  RematerializationPass pass(64 * kMiB);
  std::unique_ptr<HloModule> module =
      testing::RunPassAndCompare(kBroadcastAcrossPeak, pass, /*expect_change=*/true);
  ASSERT_NE(module, nullptr);  // changed: it was scheduled, not rewritten
  EXPECT_EQ(module->entry_computation()->instruction_count(), 8);
}

TEST(RematerializationTest, UnreachableLimitNamesThePeakReached) {
  auto module = ParseHloModule(kBroadcastAcrossPeak);
  ASSERT_TRUE(module.ok());
  RematerializationPass pass(8 * kMiB);
  absl::StatusOr<bool> run = pass.Run(**module);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(run.status().message().find("it got to 16.0 MiB"), std::string::npos) << run.status();
  EXPECT_NE(run.status().message().find("after recomputing 1 instruction "), std::string::npos)
      << run.status();
}

TEST(RematerializationTest, SideEffectsAndInPlaceUpdatesAreNotRecomputed) {
  // %r (rng) and %u (in place into %q's copy) are live across the peak but
  // must not run twice; nothing else helps, so the limit stays out of reach.
  auto module = ParseHloModule(R"(
HloModule keep
ENTRY %main (q: f32[1024,1024], lo: f32[], hi: f32[], i: s32[]) -> (f32[1024,1024], f32[1024,1024]) {
  %q = f32[1024,1024] parameter(0)
  %lo = f32[] parameter(1)
  %hi = f32[] parameter(2)
  %i = s32[] parameter(3)
  %r = f32[1024,1024] rng(%lo, %hi), distribution=rng_uniform
  %c = f32[1024,1024] copy(%q)
  %row = f32[1,1024] slice(%r), slice={[0:1], [0:1024]}
  %u = f32[1024,1024] dynamic-update-slice(%c, %row, %i, %i)
  %e = f32[1024,1024] exponential(%u)
  %t = f32[1024,1024] tanh(%e)
  %a = f32[1024,1024] add(%t, %r)
  ROOT %out = (f32[1024,1024], f32[1024,1024]) tuple(%a, %u)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  HloMemorySchedulerPass schedule;
  ASSERT_TRUE(schedule.Run(**module).ok());
  absl::StatusOr<RematerializationResult> r = Rematerialize(**module, 1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->reached);
  for (const auto& inst : (*module)->entry_computation()->instructions()) {
    EXPECT_NE(inst->name().substr(0, 2), "r.") << "rng recomputed";
    EXPECT_NE(inst->name().substr(0, 2), "u.") << "in-place update recomputed";
  }
}

}  // namespace
}  // namespace xlite
