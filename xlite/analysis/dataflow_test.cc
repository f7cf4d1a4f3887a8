// Dataflow, alias analysis and liveness on small modules with tuples, nested
// while/conditional/call, in-place updates and entry aliasing; every expected
// set, buffer and byte count is worked out by hand beside it.
#include "xlite/analysis/dataflow.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xlite/analysis/alias_analysis.h"
#include "xlite/analysis/liveness.h"
#include "xlite/analysis/test_util.h"
#include "xlite/ir/computation.h"

namespace xlite {
namespace {

using testing::Parse;

HloInstruction* Find(const HloModule& module, std::string_view name) {
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) {
      if (inst->name() == name) return inst.get();
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

// The names of the instructions defining the values at (name, index).
std::string DefinersAt(const DataflowAnalysis& df, std::string_view name, ShapeIndex index) {
  std::string out;
  for (int32_t id : df.ValueSetAt(*Find(df.module(), name), index)) {
    const HloValue& v = df.value(id);
    if (!out.empty()) out += ",";
    out += v.instruction->name();
    for (int64_t i : v.index) out += "." + std::to_string(i);
  }
  return out;
}

constexpr char kTuples[] = R"(
HloModule tuples
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[8] parameter(1)
  n = f32[4] negate(p)
  inner = (f32[8], f32[4]) tuple(q, n)
  t = (f32[4], (f32[8], f32[4])) tuple(p, inner)
  g = (f32[8], f32[4]) get-tuple-element(t), index=1
  g1 = f32[4] get-tuple-element(g), index=1
  b = f32[2,2] bitcast(g1)
  ROOT r = f32[2,2] add(b, b)
}
)";

TEST(DataflowTest, TuplesGteAndBitcastForward) {
  std::unique_ptr<HloModule> module = Parse(kTuples);
  ASSERT_NE(module, nullptr);
  auto df = DataflowAnalysis::Run(*module);
  ASSERT_TRUE(df.ok()) << df.status();
  // A tuple defines only its pointer table; its leaves come from operands.
  EXPECT_EQ(DefinersAt(**df, "t", {}), "t");
  EXPECT_EQ(DefinersAt(**df, "t", {0}), "p");
  EXPECT_EQ(DefinersAt(**df, "t", {1}), "inner");
  EXPECT_EQ(DefinersAt(**df, "t", {1, 0}), "q");
  EXPECT_EQ(DefinersAt(**df, "g", {1}), "n");
  EXPECT_EQ(DefinersAt(**df, "b", {}), "n");
  EXPECT_EQ(DefinersAt(**df, "r", {}), "r");
  EXPECT_EQ((*df)->ValueDefinedAt(*Find(*module, "b"), {}), -1);
  // p, q, n, r arrays; t and inner tables.
  EXPECT_EQ((*df)->values().size(), 6u);
}

constexpr char kNested[] = R"(
HloModule nested
add_one {
  a = f32[4] parameter(0)
  one = f32[] constant(1)
  ones = f32[4] broadcast(one), dimensions={}
  ROOT s = f32[4] add(a, ones)
}
neg_branch {
  x = f32[4] parameter(0)
  ROOT nx = f32[4] negate(x)
}
call_branch {
  y = f32[4] parameter(0)
  ROOT c = f32[4] call(y), to_apply=add_one
}
cond {
  cs = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(cs), index=0
  ten = s32[] constant(10)
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
  w = f32[4] conditional(sel, v, v), branch_computations={neg_branch, call_branch}
  ROOT next = (s32[], f32[4]) tuple(j1, w)
}
ENTRY e {
  p = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, p)
  loop = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(loop), index=1
}
)";

TEST(DataflowTest, WhileConditionalAndCallNest) {
  std::unique_ptr<HloModule> module = Parse(kNested);
  ASSERT_NE(module, nullptr);
  auto df = DataflowAnalysis::Run(*module);
  ASSERT_TRUE(df.ok()) << df.status();
  // The loop state holds the init's or the body result's values; the body
  // result is the conditional's, which forwards either branch's root (nx,
  // or s through the call). Sets list values by id: callees come first.
  EXPECT_EQ(DefinersAt(**df, "loop", {1}), "s,nx,p");
  EXPECT_EQ(DefinersAt(**df, "bs", {1}), "s,nx,p");
  EXPECT_EQ(DefinersAt(**df, "cs", {0}), "j1,zero");
  EXPECT_EQ(DefinersAt(**df, "loop", {}), "next,init");
  EXPECT_EQ(DefinersAt(**df, "out", {}), "s,nx,p");
  EXPECT_EQ(DefinersAt(**df, "w", {}), "s,nx");
  EXPECT_EQ(DefinersAt(**df, "c", {}), "s");
  EXPECT_EQ(DefinersAt(**df, "x", {}), "s,nx,p");
  EXPECT_EQ(DefinersAt(**df, "a", {}), "s,nx,p");
  EXPECT_EQ((*df)->ValueDefinedAt(*Find(*module, "w"), {}), -1);
  EXPECT_EQ((*df)->CallSiteOf(*module->GetComputation("add_one")), Find(*module, "c"));
  EXPECT_EQ((*df)->CallSiteOf(*module->entry_computation()), nullptr);
  EXPECT_EQ((*df)->sequential_computations().size(), 6u);

  auto aliases = AliasAnalysis::Run(*module);
  ASSERT_TRUE(aliases.ok()) << aliases.status();
  // p, nx and s all meet in the loop state: one (parameter) buffer.
  const DataflowAnalysis& d = (*aliases)->dataflow();
  auto buffer_of = [&](std::string_view name) {
    return (*aliases)->BufferOfValue(d.ValueDefinedAt(*Find(*module, name), {}));
  };
  EXPECT_EQ(buffer_of("p"), buffer_of("nx"));
  EXPECT_EQ(buffer_of("p"), buffer_of("s"));
  EXPECT_EQ(buffer_of("zero"), buffer_of("j1"));
  EXPECT_NE(buffer_of("p"), buffer_of("ones"));
  EXPECT_EQ((*aliases)->buffer(buffer_of("p")).kind, BufferKind::kEntryParameter);
  EXPECT_EQ((*aliases)->buffer(buffer_of("zero")).kind, BufferKind::kConstant);
  EXPECT_EQ((*aliases)->buffer(buffer_of("ones")).kind, BufferKind::kTemporary);
}

TEST(DataflowTest, SeveralCallSitesNeedFlattening) {
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule twice
f {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
ENTRY e {
  p = f32[] parameter(0)
  c1 = f32[] call(p), to_apply=f
  ROOT c2 = f32[] call(c1), to_apply=f
}
)");
  ASSERT_NE(module, nullptr);
  auto df = DataflowAnalysis::Run(*module);
  ASSERT_FALSE(df.ok());
  EXPECT_NE(df.status().message().find("flatten-call-graph"), std::string::npos) << df.status();
}

TEST(DataflowTest, AsyncPairsForward) {
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule async, num_partitions=2
ENTRY e {
  p = f32[4] parameter(0)
  ags = (f32[4], f32[8]) all-gather-start(p), replica_groups={{0,1}}, dimensions={0}, channel_id=1, use_global_device_ids=true
  agd = f32[8] all-gather-done(ags)
  cps = (f32[8], f32[8], u32[], u32[]) collective-permute-start(agd), channel_id=2, source_target_pairs={{0,1},{1,0}}
  ROOT cpd = f32[8] collective-permute-done(cps)
}
)");
  ASSERT_NE(module, nullptr);
  auto df = DataflowAnalysis::Run(*module);
  ASSERT_TRUE(df.ok()) << df.status();
  EXPECT_EQ(DefinersAt(**df, "ags", {0}), "p");
  EXPECT_EQ(DefinersAt(**df, "agd", {}), "ags.1");
  EXPECT_EQ(DefinersAt(**df, "cps", {0}), "ags.1");
  EXPECT_EQ(DefinersAt(**df, "cpd", {}), "cps.1");
}

TEST(AliasAnalysisTest, InPlaceUpdateSharesOnlyWhenOperandDies) {
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule dus, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  p = f32[8] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  z = f32[] constant(0)
  b = f32[8] broadcast(z), dimensions={}
  d1 = f32[8] dynamic-update-slice(b, u, i)
  d2 = f32[8] dynamic-update-slice(d1, u, i)
  n = f32[8] negate(d2)
  d3 = f32[8] dynamic-update-slice(n, u, i)
  d4 = f32[8] dynamic-update-slice(p, u, i)
  s = f32[8] add(d3, n)
  ROOT r = f32[8] add(s, d4)
}
)");
  ASSERT_NE(module, nullptr);
  auto aliases = AliasAnalysis::Run(*module);
  ASSERT_TRUE(aliases.ok()) << aliases.status();
  const DataflowAnalysis& df = (*aliases)->dataflow();
  auto buffer_of = [&](std::string_view name) {
    return (*aliases)->BufferOfValue(df.ValueDefinedAt(*Find(*module, name), {}));
  };
  // b dies into d1, d1 into d2: one buffer.
  EXPECT_EQ(buffer_of("b"), buffer_of("d1"));
  EXPECT_EQ(buffer_of("d1"), buffer_of("d2"));
  // n is read again by s, p is an entry parameter: both need new buffers.
  EXPECT_NE(buffer_of("n"), buffer_of("d3"));
  EXPECT_NE(buffer_of("p"), buffer_of("d4"));
  // The output aliases parameter 0.
  EXPECT_EQ(buffer_of("p"), buffer_of("r"));
  EXPECT_TRUE((*aliases)->buffer(buffer_of("p")).donated);
  EXPECT_EQ((*aliases)->buffer(buffer_of("p")).kind, BufferKind::kEntryParameter);
}

TEST(LivenessTest, PeakOfChainAndOrderMatters) {
  // Two ways to order independent branches: the text order keeps both
  // f32[256] temporaries (1 KiB each) live at once.
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule chain
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
)");
  ASSERT_NE(module, nullptr);
  auto aliases = AliasAnalysis::Run(*module);
  ASSERT_TRUE(aliases.ok()) << aliases.status();
  auto live = Liveness::Run(**aliases, CurrentSchedule(*module));
  ASSERT_TRUE(live.ok()) << live.status();
  // At ra: p 4 + z 4 + a 1024 + b 1024 + ra 4 = 2060.
  EXPECT_EQ((*live)->peak_bytes(), 2060);
  EXPECT_EQ((*live)->timeline()[(*live)->peak_step()]->name(), "ra");
  // Temporaries only (ra and rb are outputs): a + b.
  EXPECT_EQ((*live)->temp_peak_bytes(), 2048);

  // Reduce a before making b: one f32[256] at a time.
  const HloComputation* entry = module->entry_computation();
  std::vector<HloInstruction*> better;
  for (std::string_view name : {"p", "z", "a", "ra", "b", "rb", "t"}) {
    better.push_back(Find(*module, name));
  }
  HloSchedule schedule = HloSchedule::FromDefinitionOrder(*module);
  schedule.set_sequence(*entry, better);
  auto live2 = Liveness::Run(**aliases, schedule);
  ASSERT_TRUE(live2.ok()) << live2.status();
  // At rb: p, z, ra, b, rb = 4 + 4 + 4 + 1024 + 4.
  EXPECT_EQ((*live2)->peak_bytes(), 1040);

  // An order that reads a value before it is written is refused.
  std::swap(better[2], better[3]);
  schedule.set_sequence(*entry, better);
  EXPECT_FALSE(Liveness::Run(**aliases, schedule).ok());
}

TEST(LivenessTest, LoopBodyWorkingSetCountsAtTheCallSite) {
  std::unique_ptr<HloModule> module = Parse(kNested);
  ASSERT_NE(module, nullptr);
  auto aliases = AliasAnalysis::Run(*module);
  ASSERT_TRUE(aliases.ok()) << aliases.status();
  auto live = Liveness::Run(**aliases, CurrentSchedule(*module));
  ASSERT_TRUE(live.ok()) << live.status();
  // The body's broadcast `ones` (16 bytes) is live inside the loop, whose
  // steps come before the while itself on the timeline.
  const int64_t ones = (*live)->StepOf(*Find(*module, "ones"));
  const int64_t loop = (*live)->StepOf(*Find(*module, "loop"));
  EXPECT_LT(ones, loop);
  // Live at `s` (add_one's root, in the call in the conditional in the
  // loop): at least the loop state (16), `ones` (16) and the counter (4).
  const int64_t s = (*live)->StepOf(*Find(*module, "s"));
  EXPECT_GE((*live)->bytes_at_step()[s], 16 + 16 + 4);
  bool ones_live = false;
  for (int32_t b : (*live)->BuffersLiveAt(s)) {
    ones_live |= (*aliases)->RepresentativeValue(b).instruction->name() == "ones";
  }
  EXPECT_TRUE(ones_live);
}

}  // namespace
}  // namespace xlite
