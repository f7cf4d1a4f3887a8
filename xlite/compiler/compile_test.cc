#include "xlite/compiler/compile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "xlite/analysis/verifier.h"
#include "xlite/eval/eval_test_util.h"
#include "xlite/ir/computation.h"
#include "xlite/passes/pass_registry.h"
#include "xlite/text/parser.h"

namespace xlite::compiler {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

// The user's repro: the output aliases a row-split parameter but is computed
// from a replicated one; unaligned, partitioning paired f32[8,4] with f32[4,4].
constexpr char kAliasedOutput[] = R"(
HloModule alias, input_output_alias={ {0}: (0, {}, may-alias) }, num_partitions=2

ENTRY %main (p: f32[8,4], q: f32[8,4]) -> (f32[8,4]) {
  %p = f32[8,4] parameter(0), sharding={devices=[2,1]0,1}
  %q = f32[8,4] parameter(1), sharding={replicated}
  %n = f32[8,4] negate(%q)
  ROOT %t = (f32[8,4]) tuple(%n), sharding={{replicated}}
}
)";

TEST(CompileTest, AnAliasedOutputTakesItsParametersSharding) {
  std::unique_ptr<HloModule> module = Parse(kAliasedOutput);
  ASSERT_NE(module, nullptr);
  CompileOptions options;
  options.partition = true;
  absl::StatusOr<CompileResult> result = Compile(*module, options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(VerifyModule(*module).ok());
  const HloComputation& entry = *module->entry_computation();
  EXPECT_EQ(entry.root_instruction()->shape().tuple_shapes(0),
            entry.parameter_instruction(0)->shape());
  EXPECT_EQ(entry.parameter_instruction(0)->shape().dimensions(0), 4);
  ASSERT_TRUE(result->entry.has_value());
  EXPECT_TRUE(result->entry->result.tuple_elements().at(0).IsTiled());
}

TEST(CompileTest, TheNamedSpmdPipelineIsThePartitionStage) {
  std::unique_ptr<HloModule> module = Parse(kAliasedOutput);
  ASSERT_NE(module, nullptr);
  CompileOptions options;
  options.passes = "spmd";
  absl::StatusOr<CompileResult> result = Compile(*module, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->partition.has_value());
  ASSERT_GE(result->pipeline.passes.size(), 2u);
  EXPECT_EQ(result->pipeline.passes[0].pass, "sharding-propagation");
  EXPECT_EQ(result->pipeline.passes[1].pass, "spmd-partitioner");
}

// Gives the root a shape its operands cannot produce.
class BreakRootShapePass : public HloPass {
 public:
  std::string_view name() const override { return "test-break-root-shape"; }
  absl::StatusOr<bool> Run(HloModule& module) override {
    module.entry_computation()->root_instruction()->mutable_shape()->set_dimension(0, 3);
    return true;
  }
};

TEST(CompileTest, AnInvalidResultIsAnErrorNamingThePass) {
  RegisterPass(PassInfo{"test-break-root-shape", "breaks the module (compile_test)",
                        [](PassArgs&) -> absl::StatusOr<std::unique_ptr<HloPass>> {
                          return std::make_unique<BreakRootShapePass>();
                        }});
  std::unique_ptr<HloModule> module = Parse(R"(
HloModule broken

ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8] parameter(0)
  ROOT %n = f32[8] negate(%x)
}
)");
  ASSERT_NE(module, nullptr);
  CompileOptions options;
  options.passes = "dce,test-break-root-shape,dce";
  absl::StatusOr<CompileResult> result = Compile(*module, options);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("test-break-root-shape"));
}

constexpr char kPartitionedAlready[] = R"(
HloModule partitioned, num_partitions=2

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  ROOT %r = f32[4] all-reduce(%x), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=%add%SHARDING%
}
)";

std::string WithSharding(const std::string& sharding) {
  std::string text = kPartitionedAlready;
  text.replace(text.find("%SHARDING%"), 10, sharding);
  return text;
}

TEST(CompileTest, WarnsWhenTheModuleIsPartitionedAlready) {
  std::unique_ptr<HloModule> module = Parse(WithSharding(""));
  ASSERT_NE(module, nullptr);
  CompileOptions options;
  options.partition = true;
  absl::StatusOr<CompileResult> result = Compile(*module, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->warnings.size(), 1u);
  EXPECT_THAT(result->warnings[0], HasSubstr("%r"));
  EXPECT_THAT(result->warnings[0], HasSubstr("partitioned already"));
}

TEST(CompileTest, ACollectiveInAManualRegionIsNoSignOfPartitioning) {
  std::unique_ptr<HloModule> module = Parse(WithSharding(", sharding={manual}"));
  ASSERT_NE(module, nullptr);
  EXPECT_FALSE(AlreadyPartitionedWarning(*module).has_value());
}

constexpr char kOneDevice[] = R"(
HloModule one_device

ENTRY %main (x: f32[4], y: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  %y = f32[4] parameter(1)
  %a = f32[4] add(%x, %y)
  ROOT %n = f32[4] negate(%a)
}
)";

TEST(CompileTest, TheBackendStageBuildsAnExecutableOfTheCompiledModule) {
  std::unique_ptr<HloModule> module = Parse(kOneDevice);
  ASSERT_NE(module, nullptr);
  CompileOptions options;
  options.passes = "dce";
  options.backend = "interpreter";
  options.build_executable = true;
  absl::StatusOr<CompileResult> result = Compile(*module, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_NE(result->executable, nullptr);
  EXPECT_FALSE(result->memory.has_value());
  std::vector<Literal> args;
  args.push_back(eval::testing::MakeLiteral("f32[4]", {1, 2, 3, 4}));
  args.push_back(eval::testing::MakeLiteral("f32[4]", {10, 20, 30, 40}));
  absl::StatusOr<Literal> out = result->executable->Execute(args, runtime::ExecuteOptions());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(eval::testing::ToDoubles(*out), (std::vector<double>{-11, -22, -33, -44}));
}

TEST(CompileTest, TheBackendStageRefusesWhatItCannotCompile) {
  std::unique_ptr<HloModule> module = Parse(kOneDevice);
  ASSERT_NE(module, nullptr);
  CompileOptions unknown;
  unknown.backend = "tpu";
  absl::StatusOr<CompileResult> result = Compile(*module, unknown);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr("unknown backend 'tpu' (available: interpreter"));

  CompileOptions memory;
  memory.backend = "interpreter";
  memory.analyze_memory = true;
  result = Compile(*module, memory);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("plans no arena"));

  std::unique_ptr<HloModule> two = Parse(WithSharding(""));
  ASSERT_NE(two, nullptr);
  CompileOptions interpreter;
  interpreter.backend = "interpreter";
  result = Compile(*two, interpreter);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("2-device module"));
}

}  // namespace
}  // namespace xlite::compiler
