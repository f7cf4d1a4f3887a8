#include "xlite/passes/flatten_call_graph.h"

#include "absl/container/flat_hash_map.h"
#include "gtest/gtest.h"
#include "xlite/passes/pass_test_util.h"

namespace xlite {
namespace {

using testing::RunPassAndCompare;

// How many call/while/conditional sites name each computation.
absl::flat_hash_map<const HloComputation*, int> ControlFlowSites(const HloModule& module) {
  absl::flat_hash_map<const HloComputation*, int> sites;
  for (const auto& c : module.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->opcode() != HloOpcode::kCall && i->opcode() != HloOpcode::kWhile &&
          i->opcode() != HloOpcode::kConditional) {
        continue;
      }
      for (const HloComputation* called : i->called_computations()) ++sites[called];
    }
  }
  return sites;
}

// Callees must come before their callers in the module.
void ExpectCalleesFirst(const HloModule& module) {
  absl::flat_hash_map<const HloComputation*, size_t> position;
  for (size_t p = 0; p < module.computations().size(); ++p) {
    position[module.computations()[p].get()] = p;
  }
  for (const auto& c : module.computations()) {
    for (const auto& i : c->instructions()) {
      for (const HloComputation* called : i->called_computations()) {
        EXPECT_LT(position.at(called), position.at(c.get())) << called->name();
      }
    }
  }
}

constexpr std::string_view kShared = R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
twice {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(p, z), dimensions={0}, to_apply=add
  b = f32[4] broadcast(r), dimensions={}
  ROOT d = f32[4] add(p, b)
}
outer {
  q = f32[4] parameter(0)
  c1 = f32[4] call(q), to_apply=twice
  ROOT c2 = f32[4] call(c1), to_apply=twice
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
  j = s32[] add(i, one)
  w = f32[4] call(v), to_apply=outer
  ROOT o = (s32[], f32[4]) tuple(j, w)
}
ENTRY e {
  a = f32[4] parameter(0)
  k = s32[] constant(0)
  t0 = (s32[], f32[4]) tuple(k, a)
  l1 = (s32[], f32[4]) while(t0), condition=cond, body=body
  l2 = (s32[], f32[4]) while(l1), condition=cond, body=body
  x = f32[4] get-tuple-element(l2), index=1
  y = f32[4] call(x), to_apply=outer
  k2 = f32[] constant(0)
  ROOT s = f32[] reduce(y, k2), dimensions={0}, to_apply=add
})";

TEST(FlattenCallGraph, EveryControlFlowCalleeGetsOneCaller) {
  FlattenCallGraphPass pass;
  auto module = RunPassAndCompare(kShared, pass, true);
  ASSERT_NE(module, nullptr);
  for (const auto& [callee, count] : ControlFlowSites(*module)) {
    EXPECT_EQ(count, 1) << callee->name();
  }
  ExpectCalleesFirst(*module);
  // cond x2, body x2, outer x3 (two from the body copies, one from entry),
  // twice x2 per outer: 2 + 2 + 3 + 6 + add + entry.
  EXPECT_EQ(module->computations().size(), 15u);
  // The reducer stays shared.
  EXPECT_NE(module->GetComputation("add"), nullptr);
  EXPECT_EQ(module->GetComputation("add.clone"), nullptr);
}

TEST(FlattenCallGraph, AlreadyFlatModulesAreLeftAlone) {
  FlattenCallGraphPass pass;
  RunPassAndCompare(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
f {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}
ENTRY e {
  a = f32[4] parameter(0)
  z = f32[] constant(0)
  c = f32[] call(a), to_apply=f
  r = f32[] reduce(a, z), dimensions={0}, to_apply=add
  ROOT s = f32[] add(c, r)
})",
                    pass, false);
}

}  // namespace
}  // namespace xlite
