// Differential tests of the SPMD partitioner: small hand-annotated modules
// are partitioned with the `spmd` pipeline, every partition runs on the
// in-process communicator, and the assembled global result must equal the
// unsharded evaluation (f32 within summation-order tolerance, integers
// exactly). Some models also pin down how much the partitioner communicates.
#include "xlite/spmd/partitioner.h"

#include <cmath>
#include <map>
#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/eval/evaluator.h"
#include "xlite/runtime/random_inputs.h"
#include "xlite/spmd/partitioner_models_test.h"
#include "xlite/spmd/sharded_execution.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

// `text` with $N replaced by the partition count.
std::string WithPartitions(std::string_view text, int64_t n) {
  return absl::StrReplaceAll(absl::string_view(text.data(), text.size()),
                             {{"$N", std::to_string(n)}});
}

void ExpectClose(const Literal& expected, const Literal& actual, const std::string& where) {
  ASSERT_EQ(expected.shape().IsTuple(), actual.shape().IsTuple()) << where;
  if (expected.shape().IsTuple()) {
    ASSERT_EQ(expected.tuple_elements().size(), actual.tuple_elements().size()) << where;
    for (size_t i = 0; i < expected.tuple_elements().size(); ++i) {
      ExpectClose(expected.tuple_elements()[i], actual.tuple_elements()[i],
                  where + " element " + std::to_string(i));
    }
    return;
  }
  ASSERT_TRUE(expected.shape().SameElementTypeAndDimensions(actual.shape()))
      << where << ": " << expected.shape().ToString() << " vs " << actual.shape().ToString();
  const bool floating = IsFloat(expected.shape().element_type());
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    if (floating) {
      const double e = expected.GetDouble(i), a = actual.GetDouble(i);
      ASSERT_NEAR(e, a, 1e-4 * (1 + std::abs(e))) << where << " at element " << i;
    } else {
      ASSERT_EQ(expected.GetInt64(i), actual.GetInt64(i)) << where << " at element " << i;
    }
  }
}

// Partitions `text` and checks it against the unsharded run; returns the
// partitioned module (null on failure).
std::unique_ptr<HloModule> ExpectSameAsUnsharded(const std::string& text, uint64_t seed = 1) {
  auto reference = ParseHloModule(text);
  EXPECT_TRUE(reference.ok()) << reference.status();
  if (!reference.ok()) return nullptr;
  std::vector<Literal> args = runtime::RandomArguments(**reference, seed);
  Evaluator evaluator;
  absl::StatusOr<Literal> expected = evaluator.Run(**reference, args);
  EXPECT_TRUE(expected.ok()) << expected.status();
  if (!expected.ok()) return nullptr;

  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  absl::StatusOr<SpmdResult> spmd = PartitionForExecution(**module);
  EXPECT_TRUE(spmd.ok()) << spmd.status();
  if (!spmd.ok()) return nullptr;
  const std::string printed = PrintModule(**module);
  absl::Status verified = VerifyModule(**module);
  EXPECT_TRUE(verified.ok()) << verified << "\n" << printed;
  if (!verified.ok()) return nullptr;
  absl::StatusOr<Literal> actual = RunPartitioned(**module, spmd->entry, args);
  EXPECT_TRUE(actual.ok()) << actual.status() << "\n" << printed;
  if (!actual.ok()) return nullptr;
  ExpectClose(*expected, *actual, "partitioned module:\n" + printed);
  return std::move(*module);
}

// Collectives in the partitioned module by opcode name.
std::map<std::string, int> CollectivesIn(const HloModule& module) {
  std::map<std::string, int> counts;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) {
      if (IsCollectiveOpcode(inst->opcode())) ++counts[std::string(OpcodeName(inst->opcode()))];
    }
  }
  return counts;
}

TEST(PartitionerTest, ModelsEqualTheUnshardedRun) {
  for (const Model& model : PartitionerModels()) {
    for (int64_t n : model.partitions) {
      SCOPED_TRACE(std::string(model.name) + " on " + std::to_string(n) + " partitions");
      std::string text = WithPartitions(model.text, n);
      text = absl::StrReplaceAll(text, {{std::to_string(n) + "/2", std::to_string(n / 2)}});
      ExpectSameAsUnsharded(text);
    }
  }
}

TEST(PartitionerTest, DataParallelNeedsNoCollective) {
  for (int64_t n : {2, 4, 8}) {
    auto module = ExpectSameAsUnsharded(WithPartitions(ModelNamed("data_parallel_mlp").text, n));
    ASSERT_NE(module, nullptr);
    EXPECT_TRUE(CollectivesIn(*module).empty()) << PrintModule(*module);
  }
}

TEST(PartitionerTest, CrossReplicaAllReduceRunsOnShards) {
  auto module =
      ExpectSameAsUnsharded(WithPartitions(ModelNamed("cross_replica_all_reduce").text, 4));
  ASSERT_NE(module, nullptr);
  const std::map<std::string, int> expected = {{"all-reduce", 1}};  // the module's own
  EXPECT_EQ(CollectivesIn(*module), expected) << PrintModule(*module);
}

TEST(PartitionerTest, TopKCallRunsOnBatchShards) {
  auto module = ExpectSameAsUnsharded(ModelNamed("topk_call").text);
  ASSERT_NE(module, nullptr);
  // Only the split of the sorted dim is gathered; no replicated fallback.
  const std::map<std::string, int> expected = {{"all-gather", 1}};
  EXPECT_EQ(CollectivesIn(*module), expected) << PrintModule(*module);
}

TEST(PartitionerTest, VocabParallelGatherReducesInsteadOfGatheringTheTable) {
  for (int64_t n : {2, 4, 8}) {
    auto module =
        ExpectSameAsUnsharded(WithPartitions(ModelNamed("vocab_parallel_gather").text, n));
    ASSERT_NE(module, nullptr);
    const std::map<std::string, int> expected = {{"all-reduce", 1}};
    EXPECT_EQ(CollectivesIn(*module), expected) << PrintModule(*module);
  }
}

TEST(PartitionerTest, PadAndSliceOnSplitDimsExchangeHalos) {
  for (const char* name : {"pad_halo_both_sides", "slice_halo_2d"}) {
    SCOPED_TRACE(name);
    auto module = ExpectSameAsUnsharded(WithPartitions(ModelNamed(name).text, 4));
    ASSERT_NE(module, nullptr);
    std::map<std::string, int> collectives = CollectivesIn(*module);
    EXPECT_EQ(collectives.count("all-gather"), 0u) << PrintModule(*module);
    // Worked by hand: the pad needs one element from each side, the slice one row from below.
    EXPECT_EQ(collectives["collective-permute"], std::string(name) == "slice_halo_2d" ? 1 : 2)
        << PrintModule(*module);
  }
}

TEST(PartitionerTest, WindowsOnSplitDimsExchangeHalosNotGathers) {
  // Collective-permutes worked by hand: one per neighbour edge a window
  // reaches (each hop of a window wider than a shard is one more).
  const std::pair<const char*, int> cases[] = {
      {"conv_image_h", 2},                           // 3x3 SAME on H: one row from each side
      {"conv_image_hw_mesh", 4},                     // the same on H and on W
      {"conv_window_wider_than_shard", 4},           // two rows each side, one row a shard
      {"conv_lhs_dilated", 1},                       // 4 dilated rows from above
      {"max_pool_same", 1},                          // 3x3 stride 2: one row from below
      {"avg_pool_mesh", 0},                          // 2x2 stride 2 windows stay inside a tile
      {"reduce_window_uneven_10_over_4", 2},         // 10 over 4, a row from each side
      {"reduce_window_wider_than_shard_init", 3},    // 7 wide over tiles of 2: 2 above, 4 below
      {"select_and_scatter_overlapping_uneven", 3},  // operand rows both sides, source rows above
  };
  for (const auto& [name, permutes] : cases) {
    SCOPED_TRACE(name);
    auto module = ExpectSameAsUnsharded(WithPartitions(ModelNamed(name).text, 4));
    ASSERT_NE(module, nullptr);
    std::map<std::string, int> collectives = CollectivesIn(*module);
    EXPECT_EQ(collectives.count("all-gather"), 0u) << PrintModule(*module);
    EXPECT_EQ(collectives["collective-permute"], permutes) << PrintModule(*module);
  }
}

TEST(PartitionerTest, WindowsTheHaloCannotCutAreReportedAndStayExact) {
  for (const char* name : {"reduce_window_unknown_reducer", "select_and_scatter_padded"}) {
    SCOPED_TRACE(name);
    const std::string text = ModelNamed(name).text;
    ExpectSameAsUnsharded(text);
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<PartitionReport> report = PartitionModule(**module);
    ASSERT_TRUE(report.ok()) << report.status();
    ASSERT_EQ(report->fallbacks.size(), 1u);
    EXPECT_NE(report->fallbacks[0].reason.find("halo exchange not supported yet"),
              std::string::npos)
        << report->fallbacks[0].reason;
  }
}

TEST(PartitionerTest, MegatronMlpNeedsExactlyOneAllReduce) {
  for (int64_t n : {2, 4, 8}) {
    auto module = ExpectSameAsUnsharded(WithPartitions(ModelNamed("megatron_mlp").text, n));
    ASSERT_NE(module, nullptr);
    const std::map<std::string, int> expected = {{"all-reduce", 1}};
    EXPECT_EQ(CollectivesIn(*module), expected) << PrintModule(*module);
  }
}

TEST(PartitionerTest, ContractingSplitWithShardedResultReduceScatters) {
  auto module = ExpectSameAsUnsharded(
      WithPartitions(ModelNamed("dot_contracting_sharded_result_sharded").text, 4));
  ASSERT_NE(module, nullptr);
  const std::map<std::string, int> expected = {{"reduce-scatter", 1}};
  EXPECT_EQ(CollectivesIn(*module), expected) << PrintModule(*module);
}

TEST(PartitionerTest, ReshardsWithTheCheapestCollective) {
  const std::pair<const char*, const char*> cases[] = {
      {"permute", "collective-permute"},  // same tiles, other devices
      {"alltoall_uneven", "all-to-all"},  // the split moves to another dim
      {"reduce_2d_mesh", "all-reduce"},   // over the reduced mesh axis only
  };
  for (const auto& [model, collective] : cases) {
    SCOPED_TRACE(model);
    auto module = ExpectSameAsUnsharded(ModelNamed(model).text);
    ASSERT_NE(module, nullptr);
    const std::map<std::string, int> expected = {{collective, 1}};
    EXPECT_EQ(CollectivesIn(*module), expected) << PrintModule(*module);
  }
}

TEST(PartitionerTest, UnsupportedShardingsAreReportedNotGuessed) {
  auto module = ParseHloModule(R"(
HloModule m, num_partitions=4
ENTRY %e (a: f32[8,4]) -> f32[8,4] {
  %a = f32[8,4] parameter(0), sharding={devices=[2,2]<=[4]}
  ROOT %n = f32[8,4] negate(%a), sharding={devices=[2,1,2]<=[4] last_tile_dims={manual}}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<PartitionReport> report = PartitionModule(**module);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(std::string(report.status().message()).find("not supported yet"), std::string::npos)
      << report.status();
}

TEST(PartitionerTest, ShardedEntryTakesShardShapes) {
  auto module = ExpectSameAsUnsharded(WithPartitions(ModelNamed("elementwise_broadcast").text, 4));
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->parameter_instruction(0)->shape().ToString(false),
            "f32[4,6]");
}

TEST(PartitionerTest, SingletonModuleIsLeftAlone) {
  auto module = ParseHloModule(R"(
HloModule m
ENTRY %e (a: f32[4]) -> f32[4] {
  %a = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%a)
})");
  ASSERT_TRUE(module.ok());
  const std::string before = PrintModule(**module);
  SpmdPartitionerPass pass;
  absl::StatusOr<bool> changed = pass.Run(**module);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(PrintModule(**module), before);
}

}  // namespace
}  // namespace xlite::spmd
