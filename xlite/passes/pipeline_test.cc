#include "xlite/passes/pipeline.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/passes/pass_registry.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<HloModule> Parse(std::string_view text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return std::move(module).value();
}

constexpr std::string_view kModule = R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  t = (f32[4]) tuple(x)
  g = f32[4] get-tuple-element(t), index=0
  ROOT n = f32[4] negate(g)
})";

// Claims a change every time: the fixed-point cap must stop it.
class AlwaysChanges : public HloPass {
 public:
  std::string_view name() const override { return "always-changes"; }
  absl::StatusOr<bool> Run(HloModule&) override { return true; }
};

TEST(Pipeline, FixedPointGroupStopsAtItsCapAndSaysSo) {
  PassPipeline pipeline("test");
  pipeline.AddFixedPointGroup("loop").AddPass(std::make_unique<AlwaysChanges>());
  auto module = Parse(kModule);
  PipelineOptions options;
  options.max_fixed_point_iterations = 3;
  PipelineReport report;
  auto changed = pipeline.Run(*module, options, &report);
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(*changed);
  EXPECT_EQ(report.passes.size(), 3u);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_THAT(report.warnings[0], HasSubstr("stopped after 3 iterations"));
}

TEST(Pipeline, FixedPointGroupRunsUntilNothingChanges) {
  auto pipeline = ParsePipelineSpec("fixed-point(tuple-simplifier,dce)");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  auto module = Parse(kModule);
  PipelineReport report;
  auto changed = pipeline->Run(*module, PipelineOptions(), &report);
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(*changed);
  // Round 1 changes (both passes), round 2 confirms the fixed point.
  ASSERT_EQ(report.passes.size(), 4u);
  EXPECT_TRUE(report.passes[0].changed);
  EXPECT_FALSE(report.passes[2].changed);
  EXPECT_FALSE(report.passes[3].changed);
  EXPECT_TRUE(report.warnings.empty());
  EXPECT_EQ(module->entry_computation()->instruction_count(), 2);
  EXPECT_THAT(report.StatsTable(), HasSubstr("tuple-simplifier"));
}

TEST(Pipeline, SpecErrors) {
  EXPECT_THAT(ParsePipelineSpec("dce,,cse").status().message(), HasSubstr("empty pass name"));
  EXPECT_THAT(ParsePipelineSpec("nope").status().message(), HasSubstr("unknown pass 'nope'"));
  EXPECT_THAT(ParsePipelineSpec("dce{a}").status().message(), HasSubstr("not key=value"));
  EXPECT_THAT(ParsePipelineSpec("fixed-point(dce").status().message(), HasSubstr("unbalanced"));
}

TEST(PassRegistry, EveryPassIsCreatableByItsNameAndNamesItself) {
  for (const PassInfo& info : RegisteredPasses()) {
    auto pass = CreatePass(info.name);
    ASSERT_TRUE(pass.ok()) << info.name << ": " << pass.status();
    EXPECT_EQ((*pass)->name(), info.name);
    EXPECT_FALSE(info.summary.empty());
  }
}

}  // namespace
}  // namespace xlite
