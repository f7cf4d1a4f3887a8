#include "xlite/ir/sharding_transforms.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite {
namespace {

using ::testing::ElementsAre;

HloSharding S(std::string_view text) {
  absl::StatusOr<HloSharding> s = ParseSharding(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status();
  return s.value_or(HloSharding::Unknown());
}

std::string P(const HloSharding& s) { return PrintSharding(s); }

TEST(ShardingSemanticsTest, TileShapeAndUnevenShards) {
  HloSharding s = S("{devices=[4,1]<=[4]}");
  Shape shape(PrimitiveType::F32, {10, 3});
  EXPECT_THAT(s.TileShape(shape), ElementsAre(3, 3));
  using Bounds = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(*s.TileBounds(shape, 3), (Bounds{{9, 10}, {0, 3}}));
  EXPECT_EQ(*S("{devices=[4]<=[4]}").TileBounds(Shape(PrimitiveType::F32, {2}), 3),
            (Bounds{{2, 2}}));  // empty last shard
}

TEST(ShardingSemanticsTest, DeviceAndTileIndex) {
  HloSharding s = S("{devices=[2,2]<=[2,2]T(1,0)}");  // 0 2 / 1 3
  EXPECT_THAT(*s.TileIndexForDevice(2), ElementsAre(0, 1));
  EXPECT_THAT(*s.TileIndexForDevice(1), ElementsAre(1, 0));
  EXPECT_EQ(s.DeviceForTileIndex({1, 1}), 3);
  EXPECT_EQ(s.DeviceForTileIndex({2, 0}), -1);
  EXPECT_FALSE(s.TileIndexForDevice(7).has_value());
  EXPECT_FALSE(HloSharding::Replicated().TileIndexForDevice(0).has_value());
}

TEST(ShardingSemanticsTest, ReplicationGroups) {
  HloSharding s = S("{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}");
  EXPECT_THAT(s.ReplicationGroups(4), ElementsAre(ElementsAre(0, 1), ElementsAre(2, 3)));
  EXPECT_THAT(HloSharding::Replicated().ReplicationGroups(3), ElementsAre(ElementsAre(0, 1, 2)));
  EXPECT_THAT(HloSharding::Maximal(2).ReplicationGroups(4), ElementsAre(ElementsAre(2)));
  // Manual groups hold different data: one group per manual index.
  HloSharding manual = S("{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}");
  EXPECT_THAT(manual.ReplicationGroups(8), ElementsAre(ElementsAre(0, 1), ElementsAre(2, 3),
                                                       ElementsAre(4, 5), ElementsAre(6, 7)));
  HloSharding rep_manual = S("{devices=[2,1,2,2]<=[8] last_tile_dims={replicated, manual}}");
  EXPECT_THAT(rep_manual.ReplicationGroups(8)[0], ElementsAre(0, 2));
  EXPECT_EQ(rep_manual.ReplicationFactor(), 2);
  EXPECT_EQ(rep_manual.ManualFactor(), 2);
  EXPECT_TRUE(rep_manual.IsManualSubgroup());
  EXPECT_TRUE(rep_manual.HasPartialReplication());
}

TEST(ShardingSemanticsTest, NormalizationAndEqualityByMeaning) {
  EXPECT_EQ(P(S("{devices=[2,1,1]0,1 last_tile_dims={replicated}}").Normalized()),
            "{devices=[2,1]<=[2]}");
  EXPECT_EQ(P(S("{devices=[1,1,4]<=[4] last_tile_dim_replicate}").Normalized()), "{replicated}");
  EXPECT_EQ(P(S("{devices=[1,1,4]<=[4] last_tile_dims={manual}}").Normalized()), "{manual}");
  EXPECT_EQ(P(S("{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}").Normalized()),
            "{devices=[2,1,2,2]<=[8] last_tile_dims={manual, replicated}}");
  EXPECT_EQ(
      P(S("{devices=[2,2,1,2]<=[8] last_tile_dims={replicated, replicated, manual}}").Normalized()),
      "{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dims={manual, replicated}}");
  EXPECT_TRUE(S("{devices=[2,1,1]0,1 last_tile_dims={replicated}}") == S("{devices=[2,1]0,1}"));
  EXPECT_TRUE(S("{devices=[1,2]0,1 last_tile_dim_replicate}") == S("{replicated}"));
  EXPECT_TRUE(S("{devices=[4]0,1,2,3}") == S("{devices=[4]<=[4]}"));
  EXPECT_FALSE(S("{devices=[4]0,1,3,2}") == S("{devices=[4]<=[4]}"));
  EXPECT_TRUE(S("{devices=[2,2]<=[2,2]T(1,0)}").IsTiled());
  EXPECT_TRUE(S("{devices=[1,1,4]<=[4] last_tile_dim_replicate}").IsReplicated());
}

TEST(ShardingSemanticsTest, CanonicalIotaForms) {
  EXPECT_EQ(P(HloSharding::Tiled(CanonicalTileAssignment({2, 4}, {0, 4, 1, 5, 2, 6, 3, 7}))),
            "{devices=[2,4]<=[2,4]T(1,0)}");
  EXPECT_EQ(P(HloSharding::Tiled(CanonicalTileAssignment({4}, {0, 1, 2, 3}))),
            "{devices=[4]<=[4]}");
  EXPECT_EQ(P(HloSharding::Tiled(CanonicalTileAssignment({4}, {0, 2, 3, 1}))),
            "{devices=[4]0,2,3,1}");
  EXPECT_EQ(P(HloSharding::Tiled(
                CanonicalTileAssignment({2, 3, 2}, {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}))),
            "{devices=[2,3,2]<=[6,2]T(1,0)}");
}

TEST(ShardingTransformsTest, TransposeKeepsSubgroups) {
  EXPECT_EQ(P(TransposeSharding(S("{devices=[2,1,4]<=[8]}"), {2, 0, 1})),
            "{devices=[4,2,1]<=[2,4]T(1,0)}");
  EXPECT_EQ(P(TransposeSharding(S("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"), {1, 0})),
            "{devices=[1,2,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(P(TransposeSharding(S("{devices=[2,1,2]<=[4] last_tile_dims={manual}}"), {1, 0})),
            "{devices=[1,2,2]<=[4] last_tile_dims={manual}}");
  EXPECT_EQ(P(TransposeSharding(HloSharding::Manual(), {1, 0})), "{manual}");
}

TEST(ShardingTransformsTest, ReverseMirrorsTileOrder) {
  // XLA's result for jnp.flip(transpose(x), axis=1) on a 2x4 mesh.
  EXPECT_EQ(P(ReverseTileOrder(S("{devices=[4,2,1]<=[2,4]T(1,0)}"), {1})),
            "{devices=[4,2,1]4,0,5,1,6,2,7,3}");
  EXPECT_EQ(P(ReverseTileOrder(S("{devices=[4,1]<=[4]}"), {0})), "{devices=[4,1]3,2,1,0}");
  // Replication groups and subgroups stay; an unsplit reversed dim changes nothing.
  EXPECT_EQ(P(ReverseTileOrder(S("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"), {0})),
            "{devices=[2,1,2]2,3,0,1 last_tile_dim_replicate}");
  EXPECT_EQ(P(ReverseTileOrder(S("{devices=[1,4]<=[4]}"), {0})), "{devices=[1,4]<=[4]}");
  EXPECT_EQ(P(ReverseTileOrder(HloSharding::Replicated(), {0})), "{replicated}");
  // Mirroring twice gives the sharding back.
  HloSharding s = S("{devices=[2,2,2]<=[2,2,2]T(2,0,1)}");
  EXPECT_EQ(ReverseTileOrder(ReverseTileOrder(s, {0, 2}), {0, 2}), s);
}

TEST(ShardingTransformsTest, PartialReplicationAndDims) {
  EXPECT_EQ(P(PartiallyReplicateDims(S("{devices=[2,2]<=[4]}"), {1})),
            "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(P(PartiallyReplicateDims(S("{devices=[2,2]<=[4]}"), {0})),
            "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(P(PartiallyReplicateDims(S("{devices=[2,2]<=[4]}"), {0, 1})), "{replicated}");
  EXPECT_EQ(P(PartiallyReplicateAllDimsExcept(S("{devices=[2,2]<=[4]}"), {0})),
            "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(P(RemoveDims(S("{devices=[2,1,2]<=[4]}"), {1})), "{devices=[2,2]<=[4]}");
  EXPECT_EQ(P(RemoveDims(S("{devices=[2,2]<=[4]}"), {0})),
            "{devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(P(InsertDims(S("{devices=[2,2]<=[4]}"), {0, 2})), "{devices=[1,2,1,2]<=[4]}");
}

TEST(ShardingTransformsTest, ReshapeSplitMergeAndPartial) {
  // Merge [4,8] -> [32]: dim 0 tiles carry over.
  EXPECT_EQ(P(ReshapeSharding(S("{devices=[2,1]<=[2]}"), {4, 8}, {32})), "{devices=[2]<=[2]}");
  // Merge with the minor dim tiled cannot be written: replicated.
  EXPECT_EQ(P(ReshapeSharding(S("{devices=[1,2]<=[2]}"), {4, 8}, {32})), "{replicated}");
  // Both tiled, major fully: merges to 8 tiles.
  EXPECT_EQ(P(ReshapeSharding(S("{devices=[4,2]<=[8]}"), {4, 8}, {32})), "{devices=[8]<=[8]}");
  // Split [32] -> [4,8] with 8 tiles: 4 on dim 0, 2 on dim 1.
  EXPECT_EQ(P(ReshapeSharding(S("{devices=[8]<=[8]}"), {32}, {4, 8})), "{devices=[4,2]<=[8]}");
  // Split [24] -> [6,4] with 4 tiles: gcd 2 on dim 0, the rest replicated.
  EXPECT_EQ(P(ReshapeSharding(S("{devices=[4]<=[4]}"), {24}, {6, 4})),
            "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  // Size-1 dims added and removed.
  EXPECT_EQ(P(ReshapeSharding(S("{devices=[4,1]<=[4]}"), {8, 16}, {8, 1, 16})),
            "{devices=[4,1,1]<=[4]}");
  // Uneven single-factor dims pass (ceil division on both sides).
  EXPECT_EQ(P(ReshapeSharding(S("{devices=[4,1]<=[4]}"), {6, 5}, {6, 1, 5})),
            "{devices=[4,1,1]<=[4]}");
  // Partially replicated input keeps its replication.
  EXPECT_EQ(P(ReshapeSharding(S("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"), {4, 8}, {32})),
            "{devices=[2,2]<=[4] last_tile_dim_replicate}");
}

TEST(ShardingTransformsTest, ProjectManualSubgroupsThroughReshape) {
  EXPECT_EQ(P(ReshapeSharding(S("{devices=[2,1,2]<=[4] last_tile_dims={manual}}"), {4, 8}, {32})),
            "{devices=[2,2]<=[4] last_tile_dims={manual}}");
}

TEST(ShardingTransformsTest, MergeCompatiblePartials) {
  std::optional<HloSharding> m =
      MergeShardings(S("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"),
                     S("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(P(*m), "{devices=[2,2]<=[4]}");
  // Devices disagree about the tile: no merge.
  EXPECT_FALSE(MergeShardings(S("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"),
                              S("{devices=[1,2,2]<=[4] last_tile_dim_replicate}"))
                   .has_value());
  EXPECT_FALSE(MergeShardings(S("{devices=[2,1]<=[2]}"), S("{devices=[1,2]<=[2]}")).has_value());
  EXPECT_EQ(P(*MergeShardings(S("{replicated}"), S("{devices=[2,1]<=[2]}"))),
            "{devices=[2,1]<=[2]}");
}

TEST(ShardingTransformsTest, MoreSpecific) {
  EXPECT_TRUE(IsMoreSpecific(S("{devices=[4,1]<=[4]}"),
                             S("{devices=[2,1,2]<=[4] last_tile_dim_replicate}")));
  EXPECT_TRUE(IsMoreSpecific(S("{devices=[2,1]<=[2]}"), S("{replicated}")));
  EXPECT_FALSE(IsMoreSpecific(S("{replicated}"), S("{devices=[2,1]<=[2]}")));
  EXPECT_FALSE(IsMoreSpecific(S("{manual}"), S("{replicated}")));
  EXPECT_TRUE(IsMoreSpecific(S("{maximal device=1}"), S("{replicated}")));
}

}  // namespace
}  // namespace xlite
