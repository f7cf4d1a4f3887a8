#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "xlite/eval/custom_call_registry.h"
#include "xlite/eval/eval_test_util.h"

namespace xlite::eval {
namespace {

using ::testing::ElementsAre;
using testing::EvaluateText;
using ::testing::HasSubstr;
using testing::MakeLiteral;
using testing::ToDoubles;

TEST(CustomCallTest, ShardingMarkersAreIdentity) {
  const char* text = R"(
HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  s = f32[3] custom-call(x), custom_call_target="Sharding", sharding={replicated}
  h = f32[3] custom-call(s), custom_call_target="MoveToHost"
  ROOT d = f32[3] custom-call(h), custom_call_target="MoveToDevice"
})";
  absl::StatusOr<Literal> out = EvaluateText(text, {MakeLiteral("f32[3]", {1, -2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(ToDoubles(*out), ElementsAre(1, -2, 3));
}

TEST(CustomCallTest, UnknownTargetIsNamed) {
  const char* text = R"(
HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  ROOT c = f32[3] custom-call(x), custom_call_target="my_kernel"
})";
  absl::StatusOr<Literal> out = EvaluateText(text, {MakeLiteral("f32[3]", {1, 2, 3})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(out.status().message(), HasSubstr("custom-call target \"my_kernel\""));
  EXPECT_THAT(out.status().message(), HasSubstr("TopK"));  // lists what is known
}

TEST(CustomCallTest, TopKLargestFirstWithLowerIndexOnTies) {
  const char* text = R"(
HloModule m
ENTRY e {
  x = f32[2,5] parameter(0)
  ROOT t = (f32[2,3], s32[2,3]) custom-call(x), custom_call_target="TopK"
})";
  absl::StatusOr<Literal> out =
      EvaluateText(text, {MakeLiteral("f32[2,5]", {3, 1, 4, 1, 5, 2, 7, 1, 8, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(ToDoubles(out->tuple_elements()[0]), ElementsAre(5, 4, 3, 8, 7, 2));
  EXPECT_THAT(ToDoubles(out->tuple_elements()[1]), ElementsAre(4, 2, 0, 3, 1, 0));
}

TEST(CustomCallTest, TopKTotalOrderPutsNanFirstAndPositiveZeroAboveNegative) {
  const char* text = R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ROOT t = (f32[4], s32[4]) custom-call(x), custom_call_target="TopK"
})";
  absl::StatusOr<Literal> out = EvaluateText(text, {MakeLiteral("f32[4]", {-0.0, NAN, 1, 0.0})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(ToDoubles(out->tuple_elements()[1]), ElementsAre(1, 2, 3, 0));
  EXPECT_TRUE(std::isnan(out->tuple_elements()[0].GetDouble(0)));
  EXPECT_TRUE(std::signbit(out->tuple_elements()[0].GetDouble(3)));
}

TEST(CustomCallTest, TopKRejectsABadResultShape) {
  const char* text = R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ROOT t = (f32[2], s64[2]) custom-call(x), custom_call_target="TopK"
})";
  absl::StatusOr<Literal> out = EvaluateText(text, {MakeLiteral("f32[4]", {1, 2, 3, 4})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("(values, s32 indices)"));
}

// Full f32[4,2] split in two along rows: partition 1 owns rows 2 and 3.
constexpr char kFullToShard[] = R"(
HloModule m, num_partitions=2
ENTRY e {
  x = f32[4,2] parameter(0)
  s = f32[4,2] custom-call(x), custom_call_target="Sharding", sharding={devices=[2,1]0,1}
  ROOT m = f32[2,2] custom-call(s), custom_call_target="SPMDFullToShardShape", sharding={manual}
})";

TEST(CustomCallTest, FullToShardTakesThisPartitionsTile) {
  Literal full = MakeLiteral("f32[4,2]", {0, 1, 2, 3, 4, 5, 6, 7});
  for (int64_t partition : {0, 1}) {
    EvalOptions options;
    options.partition_id = partition;
    absl::StatusOr<Literal> out = EvaluateText(kFullToShard, {full}, options);
    ASSERT_TRUE(out.ok()) << out.status();
    if (partition == 0) {
      EXPECT_THAT(ToDoubles(*out), ElementsAre(0, 1, 2, 3));
    } else {
      EXPECT_THAT(ToDoubles(*out), ElementsAre(4, 5, 6, 7));
    }
  }
}

TEST(CustomCallTest, FullToShardPadsAnUnevenLastTile) {
  // Three rows over two partitions: tiles of two rows, the last one short.
  const char* text = R"(
HloModule m, num_partitions=2
ENTRY e {
  x = f32[3,2] parameter(0)
  s = f32[3,2] custom-call(x), custom_call_target="Sharding", sharding={devices=[2,1]0,1}
  ROOT m = f32[2,2] custom-call(s), custom_call_target="SPMDFullToShardShape", sharding={manual}
})";
  EvalOptions options;
  options.partition_id = 1;
  absl::StatusOr<Literal> out =
      EvaluateText(text, {MakeLiteral("f32[3,2]", {0, 1, 2, 3, 4, 5})}, options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(ToDoubles(*out), ElementsAre(4, 5, 0, 0));
}

TEST(CustomCallTest, ShardToFullPlacesTheShardAtItsTile) {
  const char* text = R"(
HloModule m, num_partitions=2
ENTRY e {
  x = f32[2,2] parameter(0), sharding={manual}
  ROOT f = f32[4,2] custom-call(x), custom_call_target="SPMDShardToFullShape", sharding={devices=[2,1]0,1}
})";
  EvalOptions options;
  options.partition_id = 1;
  absl::StatusOr<Literal> out =
      EvaluateText(text, {MakeLiteral("f32[2,2]", {1, 2, 3, 4})}, options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(ToDoubles(*out), ElementsAre(0, 0, 0, 0, 1, 2, 3, 4));
}

TEST(CustomCallTest, SpmdConversionsKeepMatchingShapes) {
  const char* text = R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  a = f32[2] custom-call(x), custom_call_target="SPMDFullToShardShape", sharding={manual}
  ROOT b = f32[2] custom-call(a), custom_call_target="SPMDShardToFullShape", sharding={replicated}
})";
  absl::StatusOr<Literal> out = EvaluateText(text, {MakeLiteral("f32[2]", {5, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(ToDoubles(*out), ElementsAre(5, 6));
}

TEST(CustomCallTest, EmbedderRegistryReplacesTheBuiltIns) {
  CustomCallRegistry registry;
  registry.Register("twice",
                    [](const HloInstruction&, absl::Span<const Literal* const> operands,
                       EvalContext&) -> absl::StatusOr<Literal> {
                      Literal out = *operands[0];
                      for (int64_t i = 0; i < out.element_count(); ++i)
                        out.SetDouble(i, 2 * out.GetDouble(i));
                      return out;
                    });
  EXPECT_THAT(registry.Targets(), ElementsAre("twice"));
  EvalOptions options;
  options.custom_calls = &registry;
  const char* text = R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  ROOT t = f32[2] custom-call(x), custom_call_target="twice"
})";
  absl::StatusOr<Literal> out = EvaluateText(text, {MakeLiteral("f32[2]", {1.5, -3})}, options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(ToDoubles(*out), ElementsAre(3, -6));
  // Only this registry's targets count: the built-in Sharding is unknown here.
  const char* sharding = R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  ROOT s = f32[2] custom-call(x), custom_call_target="Sharding", sharding={replicated}
})";
  EXPECT_FALSE(EvaluateText(sharding, {MakeLiteral("f32[2]", {1, 2})}, options).ok());
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(sharding);
  ASSERT_TRUE(module.ok());
  EXPECT_THAT(registry.UnknownTargets(**module), ElementsAre("Sharding"));
  EXPECT_TRUE(CustomCallRegistry::BuiltIn().UnknownTargets(**module).empty());
}

}  // namespace
}  // namespace xlite::eval
