#include "xlite/spmd/autoshard/auto_sharding.h"

#include <cmath>
#include <random>
#include <string>
#include <string_view>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/analysis/alias_analysis.h"
#include "xlite/analysis/collective_model.h"
#include "xlite/analysis/liveness.h"
#include "xlite/analysis/verifier.h"
#include "xlite/spmd/autoshard/auto_sharding_graph.h"
#include "xlite/spmd/autoshard/auto_sharding_ilp.h"
#include "xlite/spmd/autoshard/auto_sharding_problem.h"
#include "xlite/spmd/autoshard/auto_sharding_strategies.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

using ::testing::HasSubstr;

// The reducer both modules' reduces apply.
constexpr char kSum[] = R"(
%sum (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %add = f32[] add(%x, %y)
}

)";

constexpr char kMlp[] = R"(
HloModule mlp

ENTRY %main (input: f32[8,16], w1: f32[16,32], b1: f32[32], w2: f32[32,4]) -> (f32[8,4], f32[]) {
  %input = f32[8,16] parameter(0)
  %w1 = f32[16,32] parameter(1)
  %b1 = f32[32] parameter(2)
  %w2 = f32[32,4] parameter(3)
  %dot.1 = f32[8,32] dot(%input, %w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %broadcast.1 = f32[8,32] broadcast(%b1), dimensions={1}
  %add.1 = f32[8,32] add(%dot.1, %broadcast.1)
  %zero = f32[] constant(0)
  %broadcast.2 = f32[8,32] broadcast(%zero), dimensions={}
  %relu = f32[8,32] maximum(%add.1, %broadcast.2)
  %dot.2 = f32[8,4] dot(%relu, %w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %reduce = f32[] reduce(%dot.2, %zero), dimensions={0,1}, to_apply=%sum
  ROOT %tuple = (f32[8,4], f32[]) tuple(%dot.2, %reduce)
}
)";

// `entry_text` (a module without its computations) with kSum added.
std::unique_ptr<HloModule> Parse(std::string_view entry_text) {
  const size_t entry = entry_text.find("ENTRY");
  const std::string text =
      std::string(entry_text.substr(0, entry)) + kSum + std::string(entry_text.substr(entry));
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

const HloInstruction& Find(const HloModule& m, std::string_view name) {
  for (const auto& inst : m.entry_computation()->instructions()) {
    if (inst->name() == name) return *inst;
  }
  ADD_FAILURE() << "no " << name;
  return *m.entry_computation()->root_instruction();
}

DeviceSpec H100() { return *LoadDeviceSpec("h100"); }

TEST(AutoShardingMesh, ParsesShapesAndNames) {
  absl::StatusOr<DeviceMesh> mesh = ParseMesh("2x4:data,model");
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->num_devices(), 8);
  EXPECT_EQ(mesh->ToString(), "2x4:data,model");
  EXPECT_EQ(ParseMesh("8")->ToString(), "8:a0");
  for (const char* bad : {"", "2x", "0x4", "2xfour", "2x4:data", "2x4:a,a", "2x4:a,"}) {
    EXPECT_FALSE(ParseMesh(bad).ok()) << bad;
  }
}

TEST(AutoShardingMesh, ShardingOfAxesPerDim) {
  const DeviceMesh mesh = *ParseMesh("2x4:data,model");
  EXPECT_EQ(PrintSharding(MeshSharding(mesh, {{0}, {1}})), "{devices=[2,4]<=[8]}");
  EXPECT_EQ(PrintSharding(MeshSharding(mesh, {{1}, {0}})), "{devices=[4,2]<=[2,4]T(1,0)}");
  EXPECT_EQ(PrintSharding(MeshSharding(mesh, {{}, {1}})),
            "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(PrintSharding(MeshSharding(mesh, {{0, 1}, {}})), "{devices=[8,1]<=[8]}");
  EXPECT_TRUE(MeshSharding(mesh, {{}, {}}).IsReplicated());
}

TEST(AutoShardingStrategies, DotSplitsBatchFreeAndContractingDims) {
  auto m = Parse(kMlp);
  const DeviceMesh mesh = *ParseMesh("2x4:data,model");
  const DeviceSpec device = H100();
  CostAnalysis costs;
  std::vector<ShardingStrategy> s = StrategiesOf(Find(*m, "dot.1"), mesh, device, costs);
  // Factors M(8), K(16), N(32): each axis on one of them or on none.
  ASSERT_EQ(s.size(), 16u);
  EXPECT_EQ(s[0].description, "replicated");
  const double whole = s[0].compute_seconds;
  bool saw_k_split = false, saw_megatron = false;
  for (const ShardingStrategy& st : s) {
    int64_t devices = 1;
    for (size_t a = 0; a < st.axis_factor.size(); ++a) {
      if (st.axis_factor[a] >= 0) devices *= mesh.sizes[a];
    }
    // Never better than a perfect split, never worse than no split.
    EXPECT_GE(st.compute_seconds, whole / devices * (1 - 1e-12)) << st.description;
    EXPECT_LE(st.compute_seconds, whole * (1 + 1e-12)) << st.description;
    const bool partial = st.description.find("+sum") != std::string::npos;
    EXPECT_EQ(partial, st.communication_seconds > 0) << st.description;
    if (st.description == "[data,_] x [_,model] -> [data,model]") {
      saw_megatron = true;
      EXPECT_EQ(PrintSharding(st.result), "{devices=[2,4]<=[8]}");
    }
    if (st.description == "[_,model] x [model,_] -> [_,_] +sum(model)") {
      saw_k_split = true;
      EXPECT_TRUE(st.result.IsReplicated());
      // The partial sums of the per-device result, all-reduced over 4.
      EXPECT_DOUBLE_EQ(
          st.communication_seconds,
          AlphaBeta(CollectiveKind::kAllReduce, 8 * 32 * 4, 4, device.interconnect_latency_seconds,
                    device.interconnect_bandwidth_bytes_per_second)
              .seconds);
    }
  }
  EXPECT_TRUE(saw_k_split);
  EXPECT_TRUE(saw_megatron);
}

TEST(AutoShardingStrategies, ElementwiseOperandsFollowTheResult) {
  auto m = Parse(kMlp);
  const DeviceMesh mesh = *ParseMesh("2x4:data,model");
  CostAnalysis costs;
  std::vector<ShardingStrategy> s = StrategiesOf(Find(*m, "add.1"), mesh, H100(), costs);
  ASSERT_EQ(s.size(), 9u);  // two dims, two axes: 3 x 3
  for (const ShardingStrategy& st : s) {
    EXPECT_EQ(st.communication_seconds, 0);
    ASSERT_EQ(st.operands.size(), 2u);
    EXPECT_EQ(*st.operands[0], st.result);
    EXPECT_EQ(*st.operands[1], st.result);
  }
}

TEST(AutoShardingStrategies, ReduceSplitsLeavePartialSums) {
  auto m = Parse(kMlp);
  const DeviceMesh mesh = *ParseMesh("2x4:data,model");
  CostAnalysis costs;
  std::vector<ShardingStrategy> s = StrategiesOf(Find(*m, "reduce"), mesh, H100(), costs);
  // Reduced dims 8 and 4, each axis on one or none: 3 x 3, less both axes
  // (8 devices) on the dim of 4.
  ASSERT_EQ(s.size(), 8u);
  for (size_t i = 1; i < s.size(); ++i) {
    EXPECT_TRUE(s[i].result.IsReplicated());
    EXPECT_GT(s[i].communication_seconds, 0);
    EXPECT_THAT(s[i].description, HasSubstr("+sum("));
    // The init value is replicated whatever the split.
    EXPECT_TRUE(s[i].operands[1]->IsReplicated());
  }
}

TEST(AutoShardingStrategies, UnevenSplitsAreNotCandidates) {
  auto m = Parse(kMlp);
  const DeviceMesh mesh = *ParseMesh("3");
  CostAnalysis costs;
  // No dim of 8x32 divides by 3.
  EXPECT_EQ(StrategiesOf(Find(*m, "add.1"), mesh, H100(), costs).size(), 1u);
}

// The dim a dynamic-slice indexes is not split (the partitioner would
// gather the operand); the dims it keeps whole are.
TEST(AutoShardingStrategies, DynamicSliceKeepsItsIndexedDimWhole) {
  auto m = Parse(R"(
HloModule ds
ENTRY %main (w: f32[8,16,32], i: s32[]) -> f32[1,16,32] {
  %w = f32[8,16,32] parameter(0)
  %i = s32[] parameter(1)
  %zero = s32[] constant(0)
  ROOT %slice = f32[1,16,32] dynamic-slice(%w, %i, %zero, %zero), dynamic_slice_sizes={1,16,32}
}
)");
  CostAnalysis costs;
  const std::vector<ShardingStrategy> strategies =
      StrategiesOf(Find(*m, "slice"), *ParseMesh("2"), H100(), costs);
  ASSERT_EQ(strategies.size(), 3u);  // replicated, dim 1, dim 2
  for (const ShardingStrategy& s : strategies) {
    EXPECT_TRUE(s.operands[0]->IsReplicated() || s.operands[0]->tile_assignment().dims()[0] == 1)
        << s.description;
  }
}

TEST(AutoShardingCosts, ReshardIsFreeToSliceAndAnAllGatherBack) {
  const DeviceMesh mesh = *ParseMesh("2x4:data,model");
  const DeviceSpec device = H100();
  ReshardPricer pricer(device, mesh.num_devices());
  const Shape shape = Shape(PrimitiveType::F32, {8, 32});
  const HloSharding split = MeshSharding(mesh, {{0}, {}});
  EXPECT_EQ(pricer.Seconds(HloSharding::Replicated(), split, shape), 0);
  // Gathering dim 0 over the 2 devices of `data`: the full 8x32 f32 array.
  EXPECT_DOUBLE_EQ(
      pricer.Seconds(split, HloSharding::Replicated(), shape),
      AlphaBeta(CollectiveKind::kAllGather, 8 * 32 * 4, 2, device.interconnect_latency_seconds,
                device.interconnect_bandwidth_bytes_per_second)
          .seconds);
}

TEST(AutoSharding, MemoryLimitForcesShardedParameters) {
  const DeviceSpec device = H100();
  AutoShardOptions options;
  options.mesh = *ParseMesh("2x4:data,model");
  {
    auto m = Parse(kMlp);
    absl::StatusOr<AutoShardResult> r = AutoShard(*m, device, options);
    ASSERT_TRUE(r.ok()) << r.status();
    // Tiny arrays: communication latency outweighs any split.
    EXPECT_DOUBLE_EQ(r->plan.seconds, r->replicated.seconds);
    // Replicated, the peak is the liveness analysis' own.
    auto aliases = AliasAnalysis::Run(*m);
    ASSERT_TRUE(aliases.ok());
    auto liveness = Liveness::Run(**aliases, CurrentSchedule(*m));
    ASSERT_TRUE(liveness.ok());
    EXPECT_EQ(r->plan.memory_bytes, (*liveness)->peak_bytes());
    EXPECT_EQ(r->plan.peak_at, (*liveness)->timeline()[(*liveness)->peak_step()]->name());
  }
  auto m = Parse(kMlp);
  options.memory_limit = 1000;
  absl::StatusOr<AutoShardResult> r = AutoShard(*m, device, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->plan.memory_bytes, 1000);
  EXPECT_TRUE(r->plan.fits);
  EXPECT_FALSE(r->replicated.fits);
  EXPECT_GT(r->plan.seconds, r->replicated.seconds);
  EXPECT_EQ(m->config().num_partitions, 8);
  EXPECT_TRUE(Find(*m, "w1").sharding().IsTiled());
  EXPECT_TRUE(VerifyModule(*m).ok());
  // Every array instruction is annotated; those that matter are reported
  // with an alternative.
  for (const auto& inst : m->entry_computation()->instructions()) {
    EXPECT_EQ(inst->has_sharding(), inst->shape().IsArray()) << inst->name();
  }
  EXPECT_EQ(r->annotated, 12);
  ASSERT_EQ(r->choices.size(), 7u);
  for (const ShardingChoice& c : r->choices) EXPECT_TRUE(c.rejected.has_value()) << c.instruction;

  auto too_small = Parse(kMlp);
  options.memory_limit = 100;
  absl::StatusOr<AutoShardResult> none = AutoShard(*too_small, device, options);
  EXPECT_TRUE(absl::IsResourceExhausted(none.status())) << none.status();
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("fits the memory limit"));
}

// Tiny parameters, one large intermediate: only counting the activations
// at the peak shows that it must be split.
TEST(AutoSharding, MemoryLimitCountsActivations) {
  constexpr char kWide[] = R"(
HloModule wide

ENTRY %main (p: f32[64]) -> f32[64] {
  %p = f32[64] parameter(0)
  %wide = f32[64,1024] broadcast(%p), dimensions={0}
  %zero = f32[] constant(0)
  ROOT %r = f32[64] reduce(%wide, %zero), dimensions={1}, to_apply=%sum
}
)";
  auto m = Parse(kWide);
  AutoShardOptions options;
  options.mesh = *ParseMesh("8");
  options.memory_limit = 100000;  // the replicated f32[64,1024] alone is 256 KiB
  absl::StatusOr<AutoShardResult> r = AutoShard(*m, H100(), options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->replicated.fits);
  EXPECT_EQ(r->replicated.peak_at, "r");  // where %wide is read
  EXPECT_TRUE(r->plan.fits);
  EXPECT_LE(r->plan.memory_bytes, 100000);
  EXPECT_TRUE(Find(*m, "wide").sharding().IsTiled());
  EXPECT_TRUE(VerifyModule(*m).ok());
}

// A loop over stacked layers: its state elements are nodes shared by the
// get-tuple-elements of the loop, body and condition, and its body's
// instructions are priced once per iteration.
// A loop over three stacked layers.
constexpr char kLoop[] = R"(
HloModule loop

%body (s: (s32[], f32[8,16], f32[3,16,16])) -> (s32[], f32[8,16], f32[3,16,16]) {
  %s = (s32[], f32[8,16], f32[3,16,16]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %x = f32[8,16] get-tuple-element(%s), index=1
  %w = f32[3,16,16] get-tuple-element(%s), index=2
  %zero = s32[] constant(0)
  %slice = f32[1,16,16] dynamic-slice(%w, %i, %zero, %zero), dynamic_slice_sizes={1,16,16}
  %layer = f32[16,16] reshape(%slice)
  %y = f32[8,16] dot(%x, %layer), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  ROOT %out = (s32[], f32[8,16], f32[3,16,16]) tuple(%next, %y, %w)
}

%cond (s: (s32[], f32[8,16], f32[3,16,16])) -> pred[] {
  %s = (s32[], f32[8,16], f32[3,16,16]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

ENTRY %main (x: f32[8,16], w: f32[3,16,16]) -> f32[8,16] {
  %x = f32[8,16] parameter(0)
  %w = f32[3,16,16] parameter(1)
  %zero = s32[] constant(0)
  %init = (s32[], f32[8,16], f32[3,16,16]) tuple(%zero, %x, %w)
  %loop = (s32[], f32[8,16], f32[3,16,16]) while(%init), condition=%cond, body=%body
  ROOT %r = f32[8,16] get-tuple-element(%loop), index=1
}
)";

TEST(AutoShardingGraph, LoopStateAndBodyAreModelled) {
  auto m = Parse(kLoop);
  const DeviceSpec device = H100();
  const DeviceMesh mesh = *ParseMesh("2");
  absl::StatusOr<StrategyGraph> graph =
      BuildStrategyGraph(*m, mesh, device, INFINITY, /*keep_annotations=*/false);
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_EQ(graph->loops.size(), 1u);
  const ModelledLoop& loop = graph->loops[0];
  ASSERT_EQ(loop.state.size(), 3u);
  // The stacked weights' element: the body's and nothing else's (the
  // condition reads only the counter); the activations' also the result.
  const ShardingNode& weights = graph->nodes[loop.state[2]];
  ASSERT_EQ(weights.members.size(), 1u);
  EXPECT_EQ(weights.members[0]->parent()->name(), "body");
  EXPECT_EQ(graph->nodes[loop.state[1]].members.size(), 2u);
  EXPECT_EQ(graph->nodes[loop.state[0]].members.size(), 2u);
  EXPECT_EQ(graph->index.at(&Find(*m, "r")), loop.state[1]);
  // The body's dot runs three times.
  const HloInstruction* dot = nullptr;
  for (const auto& inst : m->GetComputation("body")->instructions()) {
    if (inst->name() == "y") dot = inst.get();
  }
  ASSERT_NE(dot, nullptr);
  CostAnalysis costs;
  const double once = StrategiesOf(*dot, mesh, device, costs)[0].compute_seconds;
  EXPECT_DOUBLE_EQ(graph->nodes[graph->index.at(dot)].strategies[0].compute_seconds, 3 * once);
}

// Token ids reach the embedding gather through the index wrapping JAX
// writes (compare, add, select) and a reshape: they are the batch, the
// table a weight.
TEST(AutoSharding, DataParallelFindsTheBatchOfAnEmbeddingLookup) {
  auto m = Parse(R"(
HloModule embed
ENTRY %main (table: f32[64,32], tokens: s32[8,4]) -> f32[8,4,32] {
  %table = f32[64,32] parameter(0)
  %tokens = s32[8,4] parameter(1)
  %zero = s32[] constant(0)
  %zeros = s32[8,4] broadcast(%zero), dimensions={}
  %negative = pred[8,4] compare(%tokens, %zeros), direction=LT
  %size = s32[] constant(64)
  %sizes = s32[8,4] broadcast(%size), dimensions={}
  %wrapped = s32[8,4] add(%tokens, %sizes)
  %ids = s32[8,4] select(%negative, %wrapped, %tokens)
  %indices = s32[8,4,1] reshape(%ids)
  ROOT %rows = f32[8,4,32] gather(%table, %indices), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,32}
}
)");
  AutoShardOptions options;
  options.mesh = *ParseMesh("4");
  absl::StatusOr<AutoShardResult> r = AutoShard(*m, H100(), options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->data_parallel.has_value()) << r->data_parallel_note;
  EXPECT_THAT(r->data_parallel_note, HasSubstr("leading dim 8"));
}

TEST(AutoSharding, MeshMustMatchThePartitionCount) {
  auto m = Parse(kMlp);
  m->config().num_partitions = 4;
  AutoShardOptions options;
  options.mesh = *ParseMesh("2x4");
  absl::StatusOr<AutoShardResult> r = AutoShard(*m, H100(), options);
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("num_partitions=4"));
}

// Gives instruction `name` of the entry the sharding `text`.
void Annotate(HloModule& m, std::string_view name, std::string_view text) {
  absl::StatusOr<HloSharding> sharding = ParseSharding(text);
  ASSERT_TRUE(sharding.ok()) << sharding.status();
  for (const auto& inst : m.entry_computation()->instructions()) {
    if (inst->name() == name) inst->set_sharding(*sharding);
  }
}

// kMlp with Megatron-style shardings on 2x4:data,model: the batch on data,
// w1 and b1 by columns and w2 by rows on model.
std::unique_ptr<HloModule> MegatronMlp() {
  auto m = Parse(kMlp);
  const std::pair<const char*, const char*> shardings[] = {
      {"input", "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"},
      {"w1", "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"},
      {"b1", "{devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"},
      {"w2", "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}"},
      {"dot.1", "{devices=[2,4]<=[8]}"},
  };
  for (const auto& [name, text] : shardings) Annotate(*m, name, text);
  return m;
}

TEST(AutoSharding, TheModulesOwnShardingsAreABaseline) {
  AutoShardOptions options;
  options.mesh = *ParseMesh("2x4:data,model");
  auto plain = Parse(kMlp);
  absl::StatusOr<AutoShardResult> none = AutoShard(*plain, H100(), options);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->user_plan.has_value());

  auto m = MegatronMlp();
  absl::StatusOr<AutoShardResult> free = AutoShard(*m, H100(), options);
  ASSERT_TRUE(free.ok()) << free.status();
  ASSERT_TRUE(free->user_plan.has_value());
  EXPECT_THAT(free->user_plan_note, HasSubstr("5 annotated instructions kept their sharding"));
  // The search starts from the user's plan too: never worse.
  EXPECT_LE(free->plan.seconds, free->user_plan->seconds);
  // Splitting tiny arrays costs collectives the replicated plan avoids.
  EXPECT_GT(free->user_plan->communication_seconds, 0);

  // Pinned to the same shardings, the plan is the user's.
  auto kept = MegatronMlp();
  options.keep_annotations = true;
  absl::StatusOr<AutoShardResult> pinned = AutoShard(*kept, H100(), options);
  ASSERT_TRUE(pinned.ok()) << pinned.status();
  ASSERT_TRUE(pinned->user_plan.has_value());
  EXPECT_NEAR(pinned->plan.seconds, free->user_plan->seconds, 1e-12);
  EXPECT_NEAR(pinned->user_plan->seconds, free->user_plan->seconds, 1e-12);
  EXPECT_EQ(pinned->plan.memory_bytes, free->user_plan->memory_bytes);
  EXPECT_EQ(Find(*kept, "w1").sharding(), Find(*MegatronMlp(), "w1").sharding());
}

TEST(AutoSharding, AnAnnotationTheMeshCannotExpressIsLeftFree) {
  auto m = MegatronMlp();
  // Dim 0 over 4 devices that are half of model within each data row: no
  // assignment of whole mesh axes gives it.
  Annotate(*m, "relu", "{devices=[4,1,2]<=[8] last_tile_dim_replicate}");
  AutoShardOptions options;
  options.mesh = *ParseMesh("2x4:data,model");
  absl::StatusOr<AutoShardResult> r = AutoShard(*m, H100(), options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->user_plan.has_value());
  EXPECT_THAT(r->user_plan_note, HasSubstr("5 annotated instructions kept their sharding"));
  EXPECT_THAT(r->user_plan_note,
              HasSubstr("left free (the mesh cannot express their annotation): %relu"));
}

TEST(AutoSharding, TheUsersLoopStateShardingsArePinned) {
  auto m = Parse(kLoop);
  Annotate(*m, "loop", "{{replicated}, {devices=[2,1]<=[2]}, {replicated}}");
  const DeviceMesh mesh = *ParseMesh("2");
  absl::StatusOr<StrategyGraph> graph =
      BuildStrategyGraph(*m, mesh, H100(), INFINITY, /*keep_annotations=*/false);
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_EQ(graph->loops.size(), 1u);
  const ShardingNode& activations = graph->nodes[graph->loops[0].state[1]];
  ASSERT_TRUE(activations.annotation.has_value());
  EXPECT_EQ(PrintSharding(*activations.annotation), "{devices=[2,1]<=[2]}");

  AutoShardOptions options;
  options.mesh = mesh;
  absl::StatusOr<AutoShardResult> r = AutoShard(*m, H100(), options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->user_plan.has_value());
  // The three state elements; the while's tuple itself is no choice.
  EXPECT_THAT(r->user_plan_note, HasSubstr("3 annotated instructions kept their sharding"));
  EXPECT_THAT(r->user_plan_note, ::testing::Not(HasSubstr("left free")));
}

// A random problem, small enough to enumerate, with one memory row of every
// node or two overlapping rows with fixed bytes.
ShardingProblem RandomProblem(uint32_t seed, bool two_rows = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> cost(0, 10), memory(0, 5);
  ShardingProblem p;
  for (int v = 0; v < 5; ++v) {
    ShardingProblem::Node node;
    for (int s = 0; s < 3; ++s) {
      node.cost.push_back(cost(rng));
      node.memory.push_back(memory(rng));
    }
    p.nodes.push_back(node);
  }
  for (auto [a, b] :
       std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {0, 2}, {2, 3}, {3, 4}, {1, 4}}) {
    ShardingProblem::Edge e{a, b, {}};
    for (int i = 0; i < 9; ++i) e.cost.push_back(cost(rng));
    p.edges.push_back(e);
  }
  p.memory_limit = 12;
  if (two_rows) {
    p.memory_rows = {{{0, 1, 2}, 2.0}, {{2, 3, 4}, 1.0}};
    p.memory_limit = 8;
  }
  return p;
}

double BruteForce(const ShardingProblem& p) {
  double best = INFINITY;
  std::vector<int64_t> choice(p.nodes.size(), 0);
  for (int code = 0; code < 243; ++code) {
    for (int v = 0, c = code; v < 5; ++v, c /= 3) choice[v] = c % 3;
    if (PlanMemory(p, choice) <= p.memory_limit) best = std::min(best, PlanObjective(p, choice));
  }
  return best;
}

TEST(AutoShardingSolver, HeuristicIsFeasibleAndTheIlpOptimal) {
  for (uint32_t seed = 1; seed <= 16; ++seed) {
    const ShardingProblem p = RandomProblem(seed, /*two_rows=*/seed > 8);
    if (MinimumMemory(p) > p.memory_limit) continue;
    const double optimum = BruteForce(p);
    absl::StatusOr<SolvedPlan> heuristic = SolveHeuristic(p);
    ASSERT_TRUE(heuristic.ok()) << heuristic.status();
    EXPECT_LE(heuristic->memory, p.memory_limit);
    EXPECT_GE(heuristic->objective, optimum - 1e-9);
    // Simplification keeps every plan's objective.
    EXPECT_NEAR(PlanObjective(Simplified(p), heuristic->choice), heuristic->objective, 1e-9);
    absl::StatusOr<SolvedPlan> exact = SolveIlp(p, *heuristic, 10);
    if (!HaveIlpSolver()) {
      EXPECT_TRUE(absl::IsUnimplemented(exact.status()));
      continue;
    }
    ASSERT_TRUE(exact.ok()) << exact.status();
    EXPECT_TRUE(exact->optimal);
    EXPECT_NEAR(exact->objective, optimum, 1e-6) << "seed " << seed;
    EXPECT_LE(exact->memory, p.memory_limit + 1e-9);
  }
}

TEST(AutoShardingSolver, NothingFitsIsAnError) {
  ShardingProblem p = RandomProblem(3);
  p.memory_limit = MinimumMemory(p) * 0.99;
  EXPECT_TRUE(absl::IsResourceExhausted(SolveHeuristic(p).status()));
}

}  // namespace
}  // namespace xlite::spmd
