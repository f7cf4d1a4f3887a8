// Schedule constraints: the buffer edges XLA's HloScheduleGraph adds from the
// readers of a loop state element to the async start that refills it (and
// the base order made to respect them), and the async dones a call site
// holds through what it calls.
#include "xlite/sched/schedule_constraints.h"

#include <algorithm>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xlite/ir/computation.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

// A loop body where %refill writes loop state element 0 while %mix still
// reads the old element 0 through %view; %other reads nothing of it.
constexpr std::string_view kLoop = R"(HloModule m, num_partitions=2

cond {
  s = (f32[8], f32[8]) parameter(0)
  ROOT t = pred[] constant(false)
}

body {
  s = (f32[8], f32[8]) parameter(0)
  old = f32[8] get-tuple-element(s), index=0
  acc = f32[8] get-tuple-element(s), index=1
  view = f32[8] bitcast(old)
  refill = (f32[8], f32[8], u32[], u32[]) collective-permute-start(acc), source_target_pairs={{0,1},{1,0}}
  other = f32[8] negate(acc)
  mix = f32[8] multiply(view, other)
  fresh = f32[8] collective-permute-done(refill)
  ROOT next = (f32[8], f32[8]) tuple(fresh, mix)
}

ENTRY main {
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  init = (f32[8], f32[8]) tuple(a, b)
  loop = (f32[8], f32[8]) while(init), condition=cond, body=body
  ROOT r = f32[8] get-tuple-element(loop), index=1
}
)";

struct Analysed {
  std::unique_ptr<HloModule> module;
  std::unique_ptr<AliasAnalysis> aliases;
};

Analysed Analyse(std::string_view text) {
  Analysed out;
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return out;
  out.module = std::move(*module);
  auto aliases = AliasAnalysis::Run(*out.module);
  EXPECT_TRUE(aliases.ok()) << aliases.status();
  if (aliases.ok()) out.aliases = std::move(*aliases);
  return out;
}

std::vector<std::string> Names(absl::Span<HloInstruction* const> order) {
  std::vector<std::string> names;
  for (const HloInstruction* inst : order) names.push_back(inst->name());
  return names;
}

std::vector<std::string> EdgeNames(const ScheduleConstraints& constraints) {
  std::vector<std::string> names;
  for (const auto& [before, after] : constraints.edges) {
    names.push_back(before->name() + " -> " + after->name());
  }
  return names;
}

TEST(ScheduleConstraintsTest, ReadersOfTheLoopStateComeBeforeTheStartThatRefillsIt) {
  Analysed a = Analyse(kLoop);
  ASSERT_NE(a.aliases, nullptr);
  const HloComputation& body = *a.module->GetComputation("body");
  ScheduleConstraintBuilder builder(*a.aliases);
  // The text order has the start above %mix: an order XLA's would not make.
  std::vector<HloInstruction*> order = TextOrder(body);
  ScheduleConstraints constraints = builder.For(order);
  EXPECT_EQ(EdgeNames(constraints), (std::vector<std::string>{"view -> refill", "mix -> refill"}));
  EXPECT_EQ(Names(constraints.reordered),
            (std::vector<std::string>{"s", "old", "acc", "view", "other", "mix", "refill", "fresh",
                                      "next"}));
  // An order that already respects them is kept.
  EXPECT_TRUE(builder.For(constraints.reordered).reordered.empty());
  EXPECT_TRUE(constraints.callee_dones.empty());
}

TEST(ScheduleConstraintsTest, ACallSiteHoldsTheDonesOfWhatItCalls) {
  Analysed a = Analyse(kLoop);
  ASSERT_NE(a.aliases, nullptr);
  const HloComputation& entry = *a.module->entry_computation();
  ScheduleConstraintBuilder builder(*a.aliases);
  ScheduleConstraints constraints = builder.For(TextOrder(entry));
  ASSERT_EQ(constraints.callee_dones.size(), 1u);
  const auto& [site, counts] = *constraints.callee_dones.begin();
  EXPECT_EQ(site->name(), "loop");
  KindCounts expected{};
  expected[static_cast<int>(CollectiveKind::kCollectivePermute)] = 1;
  EXPECT_EQ(counts, expected);
  EXPECT_TRUE(constraints.edges.empty());
}

TEST(ScheduleConstraintsTest, EdgesClosingACycleLeaveTheOrderAlone) {
  Analysed a = Analyse(kLoop);
  ASSERT_NE(a.aliases, nullptr);
  std::vector<HloInstruction*> order = TextOrder(*a.module->GetComputation("body"));
  auto find = [&](std::string_view name) {
    return *std::find_if(order.begin(), order.end(),
                         [&](const HloInstruction* i) { return i->name() == name; });
  };
  // %fresh depends on %refill: an edge putting %fresh first closes a cycle.
  const std::vector<OrderEdge> cycle = {{find("fresh"), find("refill")}};
  EXPECT_LT(OrderWithEdges(order, cycle).size(), order.size());
}

}  // namespace
}  // namespace xlite
