// Memory schedulers and hlo-memory-scheduler: the orders XLA's own
// scheduler tests state (hlo_memory_scheduler_test.cc: last use first,
// aliasing through tuples, send-done early, tuple accounting), peaks worked
// out by hand, and the pass's schedule verified, printed, parsed back and
// evaluated to identical results.
#include "xlite/sched/memory_scheduler.h"

#include <algorithm>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/ir/computation.h"
#include "xlite/passes/pass_registry.h"
#include "xlite/passes/pass_test_util.h"
#include "xlite/sched/hlo_memory_scheduler.h"
#include "xlite/sched/sched_passes.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite {
namespace {

std::unique_ptr<HloModule> Parse(std::string_view text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

// The entry's order under `scheduler`, as names.
std::vector<std::string> EntryOrder(const HloModule& module, MemoryScheduler scheduler) {
  auto aliases = AliasAnalysis::Run(module);
  EXPECT_TRUE(aliases.ok()) << aliases.status();
  if (!aliases.ok()) return {};
  auto schedule = ScheduleForMemory(**aliases, scheduler);
  EXPECT_TRUE(schedule.ok()) << schedule.status();
  if (!schedule.ok()) return {};
  std::vector<std::string> names;
  for (const HloInstruction* inst : schedule->schedule.sequence(*module.entry_computation())) {
    names.push_back(inst->name());
  }
  return names;
}

bool Before(const std::vector<std::string>& order, std::string_view a, std::string_view b) {
  auto ia = std::find(order.begin(), order.end(), a);
  auto ib = std::find(order.begin(), order.end(), b);
  EXPECT_TRUE(ia != order.end() && ib != order.end()) << a << " or " << b << " missing";
  return ia < ib;
}

TEST(MemorySchedulerTest, LastUseScheduledFirst) {
  // add is the last use of ab: running it before negate frees ab.
  auto module = Parse(R"(
HloModule last_use
ENTRY e {
  param = f32[42] parameter(0)
  ab = f32[42] abs(param)
  ex = f32[42] exponential(param)
  add = f32[42] add(ab, ex)
  negate = f32[42] negate(ex)
  ROOT sub = f32[42] subtract(add, negate)
}
)");
  ASSERT_NE(module, nullptr);
  for (MemoryScheduler s : {MemoryScheduler::kBest, MemoryScheduler::kList}) {
    std::vector<std::string> order = EntryOrder(*module, s);
    ASSERT_EQ(order.size(), 6u);
    EXPECT_EQ(order.front(), "param");
    EXPECT_EQ(order.back(), "sub");
    EXPECT_TRUE(Before(order, "add", "negate")) << MemorySchedulerName(s);
  }
}

TEST(MemorySchedulerTest, ListSchedulerSeesAliasingThroughTuples) {
  // d and e are ready together; d is the last reader of p1 (through t and
  // b), so it frees 4000 bytes and goes first.
  auto module = Parse(R"(
HloModule aliasing
ENTRY root {
  param = s32[1000] parameter(0)
  p0 = s32[1000] copy(param)
  p1 = s32[1000] copy(param)
  t = (s32[1000], s32[1000]) tuple(p0, p1)
  a = s32[1000] get-tuple-element(t), index=0
  b = s32[1000] get-tuple-element(t), index=1
  c = s32[1000] add(a, b)
  d = s32[1000] add(c, b)
  e = s32[1000] add(c, c)
  f = s32[1000] add(e, e)
  ROOT result = (s32[1000], s32[1000], s32[1000]) tuple(d, e, f)
}
)");
  ASSERT_NE(module, nullptr);
  std::vector<std::string> order = EntryOrder(*module, MemoryScheduler::kList);
  ASSERT_EQ(order.size(), 11u);
  EXPECT_EQ(order.front(), "param");
  EXPECT_EQ(order.back(), "result");
  EXPECT_TRUE(Before(order, "d", "e"));
}

TEST(MemorySchedulerTest, SendDoneRunsBeforeAllocatingWork) {
  auto module = Parse(R"(
HloModule send
ENTRY entry {
  p = f32[1000,1000] parameter(0)
  token.0 = token[] after-all()
  send = (f32[1000,1000], u32[], token[]) send(p, token.0), channel_id=1, is_host_transfer=true
  n1 = f32[1000,1000] negate(p)
  n2 = f32[1000,1000] negate(n1)
  n3 = f32[1000,1000] negate(n2)
  send-done = token[] send-done(send), channel_id=1, is_host_transfer=true
  ROOT r = (f32[1000,1000], token[]) tuple(n3, send-done)
}
)");
  ASSERT_NE(module, nullptr);
  std::vector<std::string> order = EntryOrder(*module, MemoryScheduler::kList);
  EXPECT_TRUE(Before(order, "send-done", "n1"));
}

TEST(MemorySchedulerTest, TupleAllocatesAndFreesNothing) {
  // tuple only adds a table and frees nothing; abs2 frees abs_const's last
  // use... so the list scheduler runs abs2 before tuple.
  auto module = Parse(R"(
HloModule tuples
ENTRY e {
  lit = f32[6] constant({1, 1, 1, 1, 1, 1})
  abs_const = f32[6] abs(lit)
  abs_abs1 = f32[6] abs(abs_const)
  tuple = (f32[6]) tuple(abs_abs1)
  elem = f32[6] get-tuple-element(tuple), index=0
  abs_abs2 = f32[6] abs(abs_const)
  ROOT add = f32[6] add(elem, abs_abs2)
}
)");
  ASSERT_NE(module, nullptr);
  std::vector<std::string> order = EntryOrder(*module, MemoryScheduler::kList);
  EXPECT_TRUE(Before(order, "abs_abs2", "tuple"));
}

constexpr char kTwoReductions[] = R"(
HloModule two_reductions
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[] parameter(0)
  z = f32[] constant(0)
  a = f32[256] broadcast(p), dimensions={}
  b = f32[256] broadcast(p), dimensions={}
  ra = f32[] reduce(a, z), dimensions={0}, to_apply=add
  rb = f32[] reduce(b, z), dimensions={0}, to_apply=add
  ROOT t = (f32[], f32[]) tuple(ra, rb)
}
)";

TEST(MemorySchedulerTest, BestIsNoWorseThanAnyAndBeatsTextOrder) {
  auto module = Parse(kTwoReductions);
  ASSERT_NE(module, nullptr);
  auto aliases = AliasAnalysis::Run(*module);
  ASSERT_TRUE(aliases.ok());
  auto best = ScheduleForMemory(**aliases, MemoryScheduler::kBest);
  ASSERT_TRUE(best.ok()) << best.status();
  for (MemoryScheduler s : kBaseMemorySchedulers) {
    auto other = ScheduleForMemory(**aliases, s);
    ASSERT_TRUE(other.ok());
    EXPECT_LE(best->peak_bytes, other->peak_bytes) << MemorySchedulerName(s);
  }
  // One f32[256] at a time: p, z, ra, b, rb = 1040 bytes (the text order
  // holds a and b together: 2060).
  EXPECT_EQ(best->peak_bytes, 1040);
}

TEST(MemorySchedulerTest, DeepDiamondsAndHugeBuffersSaturateInsteadOfOverflowing) {
  // Each level reads the previous one twice, so the DFS scheduler's
  // subgraph sums double per level: 2^100 would overflow int64_t.
  std::string text = "HloModule diamonds\nENTRY e {\n  v0 = f32[8] parameter(0)\n";
  for (int i = 1; i <= 100; ++i) {
    text += "  v" + std::to_string(i) + " = f32[8] add(v" + std::to_string(i - 1) + ", v" +
            std::to_string(i - 1) + ")\n";
  }
  text += "  ROOT r = f32[8] negate(v100)\n}\n";
  auto deep = Parse(text);
  ASSERT_NE(deep, nullptr);
  EXPECT_EQ(EntryOrder(*deep, MemoryScheduler::kDfs).size(), 102u);
  // Two parameters of 2^62 bytes each: the peak saturates at INT64_MAX.
  auto huge = Parse(R"(
HloModule huge
ENTRY e {
  a = f32[1152921504606846976] parameter(0)
  b = f32[1152921504606846976] parameter(1)
  ROOT c = f32[1152921504606846976] add(a, b)
})");
  ASSERT_NE(huge, nullptr);
  auto aliases = AliasAnalysis::Run(*huge);
  ASSERT_TRUE(aliases.ok()) << aliases.status();
  for (MemoryScheduler s :
       {MemoryScheduler::kDfs, MemoryScheduler::kList, MemoryScheduler::kBest}) {
    auto schedule = ScheduleForMemory(**aliases, s);
    ASSERT_TRUE(schedule.ok()) << schedule.status();
    EXPECT_EQ(schedule->peak_bytes, INT64_MAX) << MemorySchedulerName(s);
  }
}

TEST(HloMemorySchedulerPassTest, SchedulesVerifiesRoundTripsAndComputesTheSame) {
  RegisterSchedulingPasses();
  auto pass = CreatePass("hlo-memory-scheduler");
  ASSERT_TRUE(pass.ok()) << pass.status();
  std::unique_ptr<HloModule> module =
      testing::RunPassAndCompare(kTwoReductions, **pass, /*expect_change=*/true);
  ASSERT_NE(module, nullptr);
  EXPECT_TRUE(module->is_scheduled());
  std::string text = PrintModule(*module);
  EXPECT_NE(text.find("is_scheduled=true"), std::string::npos);
  // The schedule is the text order: parsing it back keeps it.
  auto reparsed = ParseHloModule(text);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_TRUE((*reparsed)->is_scheduled());
  EXPECT_EQ(PrintModule(**reparsed), text);
  EXPECT_TRUE(VerifyModule(**reparsed).ok());
  // Running it again changes nothing.
  auto again = (*pass)->Run(**reparsed);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_FALSE(CreatePass("hlo-memory-scheduler{scheduler=fastest}").ok());
}

TEST(HloMemorySchedulerPassTest, NestedControlFlowStaysEquivalent) {
  RegisterSchedulingPasses();
  for (const char* spec :
       {"hlo-memory-scheduler{scheduler=list}", "hlo-memory-scheduler{scheduler=dfs}",
        "hlo-memory-scheduler{scheduler=postorder}"}) {
    auto pass = CreatePass(spec);
    ASSERT_TRUE(pass.ok()) << pass.status();
    std::unique_ptr<HloModule> module = testing::RunPassAndCompare(R"(
HloModule nested
neg_branch {
  x = f32[4] parameter(0)
  ROOT nx = f32[4] negate(x)
}
abs_branch {
  y = f32[4] parameter(0)
  e = f32[4] exponential(y)
  ROOT ay = f32[4] abs(e)
}
cond {
  cs = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(cs), index=0
  ten = s32[] constant(5)
  ROOT lt = pred[] compare(i, ten), direction=LT
}
body {
  bs = (s32[], f32[4]) parameter(0)
  j = s32[] get-tuple-element(bs), index=0
  v = f32[4] get-tuple-element(bs), index=1
  k = s32[] constant(1)
  j1 = s32[] add(j, k)
  two = s32[] constant(2)
  sel = s32[] remainder(j, two)
  w = f32[4] conditional(sel, v, v), branch_computations={neg_branch, abs_branch}
  ROOT next = (s32[], f32[4]) tuple(j1, w)
}
ENTRY e {
  p = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, p)
  loop = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(loop), index=1
}
)",
                                                                   **pass, /*expect_change=*/true);
    ASSERT_NE(module, nullptr);
    EXPECT_TRUE(module->is_scheduled());
  }
}

}  // namespace
}  // namespace xlite
