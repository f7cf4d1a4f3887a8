#include "xlite/spmd/propagation.h"

#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/passes/pass_registry.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

using ::testing::HasSubstr;

struct Propagated {
  std::unique_ptr<HloModule> module;
  PropagationResult result;
};

Propagated Propagate(std::string_view text, PropagationOptions options = {}) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  Propagated out;
  if (!module.ok()) return out;
  out.module = std::move(*module);
  auto result = PropagateShardings(*out.module, options);
  EXPECT_TRUE(result.ok()) << result.status();
  if (result.ok()) out.result = std::move(*result);
  EXPECT_TRUE(VerifyModule(*out.module).ok()) << VerifyModule(*out.module);
  return out;
}

std::string ShardingOf(const Propagated& p, std::string_view name) {
  for (const auto& c : p.module->computations()) {
    for (const auto& inst : c->instructions()) {
      if (inst->name() == name)
        return inst->has_sharding() ? PrintSharding(inst->sharding()) : "none";
    }
  }
  return "missing";
}

TEST(PropagationTest, ElementwiseBothDirectionsWithOrigins) {
  Propagated p = Propagate(R"(
HloModule m, num_partitions=4
ENTRY %e (a: f32[8,4], b: f32[8,4]) -> f32[8,4] {
  %a = f32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %b = f32[8,4] parameter(1)
  %x = f32[8,4] add(%a, %b)
  ROOT %y = f32[8,4] negate(%x)
})");
  EXPECT_EQ(ShardingOf(p, "x"), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(ShardingOf(p, "b"), "none");  // entry parameters are off by default
  EXPECT_EQ(ShardingOf(p, "y"), "none");  // so is the output
  const InstructionOrigins* x = p.result.Find("x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->leaves[0].kind, ShardingOrigin::Kind::kForward);
  EXPECT_EQ(p.result.Chain(*x, 0), "forward elementwise from %a <- annotated %a");
}

TEST(PropagationTest, HeaderListsAndPassArguments) {
  constexpr std::string_view kText = R"(
HloModule m, num_partitions=2, allow_spmd_sharding_propagation_to_parameters={false,true}, allow_spmd_sharding_propagation_to_output={true}
ENTRY %e (a: f32[8,4], b: f32[8,4]) -> f32[8,4] {
  %a = f32[8,4] parameter(0)
  %b = f32[8,4] parameter(1)
  %x = f32[8,4] add(%a, %b)
  ROOT %y = f32[8,4] custom-call(%x), custom_call_target="Sharding", sharding={devices=[1,2]<=[2]}
})";
  Propagated p = Propagate(kText);
  EXPECT_EQ(ShardingOf(p, "a"), "none");
  EXPECT_EQ(ShardingOf(p, "b"), "{devices=[1,2]<=[2]}");
  Propagated all = Propagate(kText, PropagationOptions{true, std::nullopt, true});
  EXPECT_EQ(ShardingOf(all, "a"), "{devices=[1,2]<=[2]}");
  RegisterSpmdPasses();
  EXPECT_TRUE(CreatePass("sharding-propagation{is_spmd=true,propagate_to_output=true}").ok());
  EXPECT_FALSE(CreatePass("sharding-propagation{is_spmd=maybe}").ok());
  EXPECT_FALSE(CreatePass("sharding-propagation{colour=red}").ok());
}

TEST(PropagationTest, DotMergesBothOperands) {
  Propagated p = Propagate(R"(
HloModule m, num_partitions=4
ENTRY %e (a: f32[8,16], b: f32[16,32]) -> f32[8,32] {
  %a = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  %b = f32[16,32] parameter(1), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  %d = f32[8,32] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %y = f32[8,32] negate(%d)
})");
  EXPECT_EQ(ShardingOf(p, "d"), "{devices=[2,2]<=[4]}");
  EXPECT_TRUE(p.result.Find("d")->leaves[0].merged);
}

TEST(PropagationTest, AnnotationWinsAndConflictIsReported) {
  Propagated p = Propagate(R"(
HloModule m, num_partitions=2
ENTRY %e (a: f32[8,4]) -> f32[8,4] {
  %a = f32[8,4] parameter(0), sharding={devices=[2,1]<=[2]}
  %x = f32[8,4] negate(%a), sharding={devices=[1,2]<=[2]}
  ROOT %y = f32[8,4] abs(%x)
})");
  EXPECT_EQ(ShardingOf(p, "x"), "{devices=[1,2]<=[2]}");
  const InstructionOrigins* x = p.result.Find("x");
  ASSERT_FALSE(x->leaves[0].conflicts.empty());
  EXPECT_THAT(x->leaves[0].conflicts[0],
              HasSubstr("annotation kept over: {devices=[2,1]<=[2]} from %a"));
}

TEST(PropagationTest, WhileValuesAgree) {
  Propagated p = Propagate(R"(
HloModule m, num_partitions=2
%c (s: (s32[], f32[8])) -> pred[] {
  %s = (s32[], f32[8]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%b (s: (s32[], f32[8])) -> (s32[], f32[8]) {
  %s = (s32[], f32[8]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %x = f32[8] get-tuple-element(%s), index=1
  %y = f32[8] add(%x, %x)
  ROOT %r = (s32[], f32[8]) tuple(%i, %y)
}
ENTRY %e (a: f32[8]) -> f32[8] {
  %a = f32[8] parameter(0), sharding={devices=[2]<=[2]}
  %z = s32[] constant(0)
  %t = (s32[], f32[8]) tuple(%z, %a)
  %w = (s32[], f32[8]) while(%t), condition=%c, body=%b
  ROOT %o = f32[8] get-tuple-element(%w), index=1
})");
  EXPECT_EQ(ShardingOf(p, "w"), "{{replicated}, {devices=[2]<=[2]}}");
  EXPECT_EQ(ShardingOf(p, "y"), "{devices=[2]<=[2]}");
}

TEST(PropagationTest, BadAnnotationsAreErrors) {
  auto module = ParseHloModule(R"(
HloModule m, num_partitions=2
ENTRY %e (a: f32[8,4]) -> f32[8,4] {
  %a = f32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT %y = f32[8,4] negate(%a)
})");
  ASSERT_TRUE(module.ok());
  auto result = PropagateShardings(**module, {});
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("%a"));
  EXPECT_THAT(result.status().message(), HasSubstr("has 4 devices but the module has 2"));
}

}  // namespace
}  // namespace xlite::spmd

namespace xlite::spmd {
namespace {

// The real pre-partition dump: every instruction gets a sharding, the
// result verifies, and the chains end at annotations.
TEST(PropagationCorpusTest, DeepseekTrainStep) {
  std::ifstream file(XLITE_SOURCE_DIR
                     "/../shared/corpus/hlo/"
                     "xla__tools__benchmarks__hlo__nv_maxtext_deepseek_1n4g_jit_train_step_before_"
                     "optimization.hlo");
  if (!file) GTEST_SKIP() << "corpus not found next to the repository";
  std::stringstream text;
  text << file.rdbuf();
  Propagated p = Propagate(text.str());
  ASSERT_NE(p.module, nullptr);
  EXPECT_EQ(p.result.unsharded, 0);
  EXPECT_GT(p.result.instructions.size(), 10000u);
  int64_t ending_at_annotation = 0, forward_or_backward = 0;
  for (const InstructionOrigins& o : p.result.instructions) {
    const ShardingOrigin& leaf = o.leaves.empty() ? ShardingOrigin{} : o.leaves[0];
    if (leaf.kind != ShardingOrigin::Kind::kForward &&
        leaf.kind != ShardingOrigin::Kind::kBackward) {
      continue;
    }
    ++forward_or_backward;
    const std::string chain = p.result.Chain(o, 0);
    ending_at_annotation += chain.find("annotated %") != std::string::npos ||
                            chain.find("[annotations:") != std::string::npos ||
                            chain.find(" at %") != std::string::npos;
  }
  EXPECT_GT(forward_or_backward, 1000);
  EXPECT_EQ(ending_at_annotation, forward_or_backward);
}

TEST(PropagationTest, LapackCallsKeepBatchShardsAndReplicateMatrixDims) {
  // The batch dim of cholesky's operand passes to every result leaf; the
  // matrix dims, split on the way in, are not carried over.
  Propagated p = Propagate(R"(
HloModule m, num_partitions=4
ENTRY %e (a: f32[4,8,8]) -> f32[4,8,8] {
  %a = f32[4,8,8] parameter(0), sharding={devices=[2,2,1]<=[4]}
  %c = (f32[4,8,8], s32[4]) custom-call(%a), custom_call_target="lapack_spotrf_ffi", backend_config={uplo = 76 : ui8}
  ROOT %l = f32[4,8,8] get-tuple-element(%c), index=0
})");
  EXPECT_EQ(ShardingOf(p, "c"),
            "{{devices=[2,1,1,2]<=[4] last_tile_dim_replicate}, "
            "{devices=[2,2]<=[4] last_tile_dim_replicate}}");
}

}  // namespace
}  // namespace xlite::spmd
