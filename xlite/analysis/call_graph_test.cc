#include "xlite/analysis/call_graph.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xlite/analysis/test_util.h"

namespace xlite {
namespace {

using testing::Parse;

// Nested control flow: the entry runs a while whose body calls a conditional
// whose branches reduce (to_apply) and fuse; `unused` is not reachable and
// `worker` runs on another execution thread through async-start.
constexpr char kNested[] = R"(
HloModule nested

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

fused {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}

reduce_branch {
  x = f32[4] parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(x, z), dimensions={0}, to_apply=add
  ROOT b = f32[4] broadcast(r), dimensions={}
}

fuse_branch {
  y = f32[4] parameter(0)
  ROOT f = f32[4] fusion(y), kind=kLoop, calls=fused
}

inner {
  q = f32[4] parameter(0)
  ROOT c = f32[4] call(q), to_apply=reduce_branch
}

cond {
  t = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  t = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  v = f32[4] get-tuple-element(t), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  k = s32[] constant(0)
  w = f32[4] conditional(k, v, v), branch_computations={inner, fuse_branch}
  ROOT out = (s32[], f32[4]) tuple(i1, w)
}

unused {
  u = f32[] parameter(0)
  ROOT nu = f32[] negate(u)
}

worker {
  wp = f32[4] parameter(0)
  ROOT wn = f32[4] negate(wp)
}, execution_thread="side"

ENTRY main {
  v0 = f32[4] parameter(0)
  z0 = s32[] constant(0)
  t0 = (s32[], f32[4]) tuple(z0, v0)
  loop = (s32[], f32[4]) while(t0), condition=cond, body=body
  v1 = f32[4] get-tuple-element(loop), index=1
  start = ((f32[4]), f32[4], s32[]) async-start(v1), async_execution_thread="side", calls=worker
  ROOT done = f32[4] async-done(start), async_execution_thread="side", calls=worker
}
)";

std::vector<std::string> Names(const std::vector<HloComputation*>& computations) {
  std::vector<std::string> names;
  for (const HloComputation* c : computations) names.push_back(c->name());
  return names;
}

TEST(CallKindTest, OneKindPerCallingOpcode) {
  EXPECT_EQ(CallKindOf(HloOpcode::kWhile), CallKind::kControlFlow);
  EXPECT_EQ(CallKindOf(HloOpcode::kConditional), CallKind::kControlFlow);
  EXPECT_EQ(CallKindOf(HloOpcode::kCall), CallKind::kControlFlow);
  EXPECT_EQ(CallKindOf(HloOpcode::kFusion), CallKind::kFusion);
  EXPECT_EQ(CallKindOf(HloOpcode::kAsyncStart), CallKind::kAsync);
  EXPECT_EQ(CallKindOf(HloOpcode::kReduce), CallKind::kEmbedded);
  EXPECT_EQ(CallKindOf(HloOpcode::kAllReduce), CallKind::kEmbedded);
  EXPECT_EQ(CallKindName(CallKind::kFusion), "fusion");
}

TEST(CallGraphTest, SitesCarryTheirKind) {
  auto module = Parse(kNested);
  ASSERT_NE(module, nullptr);
  CallGraph graph(*module);
  const HloComputation& add = *module->GetComputation("add");
  ASSERT_EQ(graph.CallSitesOf(add).size(), 1u);
  EXPECT_EQ(graph.CallSitesOf(add)[0].kind, CallKind::kEmbedded);
  EXPECT_EQ(graph.CallSitesOf(add)[0].instruction->name(), "r");
  EXPECT_EQ(graph.CallSitesOf(add)[0].caller()->name(), "reduce_branch");
  EXPECT_TRUE(graph.IsCalledAs(add, CallKind::kEmbedded));
  EXPECT_FALSE(graph.IsCalledAs(add, CallKind::kControlFlow));

  const HloComputation& fused = *module->GetComputation("fused");
  ASSERT_EQ(graph.CallSitesOf(fused).size(), 1u);
  EXPECT_EQ(graph.CallSitesOf(fused)[0].kind, CallKind::kFusion);

  // The conditional's branches are sites 0 and 1 of one instruction.
  const HloComputation& fuse_branch = *module->GetComputation("fuse_branch");
  ASSERT_EQ(graph.CallSitesOf(fuse_branch).size(), 1u);
  EXPECT_EQ(graph.CallSitesOf(fuse_branch)[0].index, 1);
  EXPECT_EQ(graph.CallSitesOf(fuse_branch)[0].kind, CallKind::kControlFlow);
  EXPECT_EQ(graph.CallSitesOf(fuse_branch)[0].callee(), &fuse_branch);

  // async-start and async-done both name the wrapped computation.
  const HloComputation& worker = *module->GetComputation("worker");
  ASSERT_EQ(graph.CallSitesOf(worker).size(), 2u);
  EXPECT_EQ(graph.CallSitesOf(worker)[0].kind, CallKind::kAsync);
  EXPECT_EQ(Names(graph.CallersOf(worker)), std::vector<std::string>{"main"});

  const HloComputation& body = *module->GetComputation("body");
  EXPECT_EQ(Names(graph.CalleesOf(body)), (std::vector<std::string>{"inner", "fuse_branch"}));
  EXPECT_EQ(Names(graph.CalleesOf(*module->entry_computation())),
            (std::vector<std::string>{"cond", "body", "worker"}));
  EXPECT_EQ(graph.CallSitesIn(*module->entry_computation()).size(), 4u);
  EXPECT_TRUE(graph.CallSitesOf(*module->entry_computation()).empty());
}

TEST(CallGraphTest, ReachabilityAndPostOrder) {
  auto module = Parse(kNested);
  ASSERT_NE(module, nullptr);
  CallGraph graph(*module);
  EXPECT_TRUE(graph.IsReachable(*module->entry_computation()));
  EXPECT_TRUE(graph.IsReachable(*module->GetComputation("add")));
  EXPECT_TRUE(graph.IsReachable(*module->GetComputation("fused")));
  EXPECT_FALSE(graph.IsReachable(*module->GetComputation("unused")));
  // Callees first, depth first from the entry in site order, entry last.
  EXPECT_EQ(Names(graph.PostOrder()),
            (std::vector<std::string>{"cond", "add", "reduce_branch", "inner", "fused",
                                      "fuse_branch", "body", "worker", "main"}));
}

TEST(CallGraphTest, ExecutionThreads) {
  auto module = Parse(kNested);
  ASSERT_NE(module, nullptr);
  CallGraph graph(*module);
  EXPECT_EQ(graph.ExecutionThreads(), (std::vector<std::string>{"main", "side"}));
  EXPECT_EQ(Names(graph.ComputationsOnThread("side")), std::vector<std::string>{"worker"});
  EXPECT_EQ(graph.ComputationsOnThread("main").size(), 8u);
  EXPECT_TRUE(graph.ComputationsOnThread("gpu").empty());
}

TEST(CallGraphTest, SharedCalleeHasEverySite) {
  auto module = Parse(R"(
HloModule shared

f {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}

ENTRY main {
  x = f32[] parameter(0)
  a = f32[] call(x), to_apply=f
  b = f32[] call(a), to_apply=f
  c = f32[2] broadcast(b), dimensions={}
  ROOT m = f32[2] map(c), dimensions={0}, to_apply=f
}
)");
  ASSERT_NE(module, nullptr);
  CallGraph graph(*module);
  const HloComputation& f = *module->GetComputation("f");
  absl::Span<const CallSite> sites = graph.CallSitesOf(f);
  ASSERT_EQ(sites.size(), 3u);
  EXPECT_EQ(sites[0].instruction->name(), "a");
  EXPECT_EQ(sites[1].instruction->name(), "b");
  EXPECT_EQ(sites[2].kind, CallKind::kEmbedded);
  EXPECT_TRUE(graph.IsCalledAs(f, CallKind::kControlFlow));
  EXPECT_TRUE(graph.IsCalledAs(f, CallKind::kEmbedded));
  EXPECT_EQ(Names(graph.CallersOf(f)), std::vector<std::string>{"main"});
  EXPECT_EQ(Names(graph.PostOrder()), (std::vector<std::string>{"f", "main"}));
}

TEST(CallGraphTest, ModuleWithoutEntryReachesNothing) {
  HloModule module("empty");
  CallGraph graph(module);
  EXPECT_TRUE(graph.PostOrder().empty());
  EXPECT_TRUE(graph.ExecutionThreads().empty());
  HloComputation outside("outside");
  EXPECT_FALSE(graph.IsReachable(outside));
  EXPECT_TRUE(graph.CallSitesOf(outside).empty());
}

}  // namespace
}  // namespace xlite
