#include "xlite/ir/sharding.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/ir/attributes.h"

namespace xlite {
namespace {

using PT = PrimitiveType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Bounds = std::vector<std::pair<int64_t, int64_t>>;

TEST(TileAssignmentTest, IotaForms) {
  EXPECT_THAT(TileAssignment::Iota({2, 2}, {4}, {}).Devices(), ElementsAre(0, 1, 2, 3));
  TileAssignment transposed = TileAssignment::Iota({2, 2}, {2, 2}, {1, 0});
  EXPECT_THAT(transposed.Devices(), ElementsAre(0, 2, 1, 3));
  EXPECT_TRUE(transposed == TileAssignment::Explicit({2, 2}, {0, 2, 1, 3}));
  EXPECT_FALSE(transposed == TileAssignment::Explicit({2, 2}, {0, 1, 2, 3}));
  EXPECT_FALSE(transposed == TileAssignment::Explicit({4}, {0, 2, 1, 3}));
  TileAssignment wide = TileAssignment::Iota({4, 2}, {2, 4}, {1, 0});
  EXPECT_THAT(wide.Devices(), ElementsAre(0, 4, 1, 5, 2, 6, 3, 7));
  EXPECT_EQ(wide.DeviceAt(3), 5);
  EXPECT_EQ(wide.num_elements(), 8);
  EXPECT_THAT(TileAssignment::Iota({2, 3, 2}, {2, 3, 2}, {2, 0, 1}).Devices(),
              ElementsAre(0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11));
}

TEST(HloShardingTest, TileBoundsUnevenSplits) {
  HloSharding s = HloSharding::Tiled(TileAssignment::Iota({4}, {4}, {}));
  Shape shape(PT::F32, {5});
  EXPECT_EQ(*s.TileBounds(shape, 0), (Bounds{{0, 2}}));
  EXPECT_EQ(*s.TileBounds(shape, 2), (Bounds{{4, 5}}));
  EXPECT_EQ(*s.TileBounds(shape, 3), (Bounds{{5, 5}}));  // empty last shard
  EXPECT_FALSE(s.TileBounds(shape, 4).ok());
  EXPECT_FALSE(s.TileBounds(Shape(PT::F32, {5, 2}), 0).ok());
}

TEST(HloShardingTest, TileBoundsWithReplicationAndExplicitDevices) {
  // [2,1,2] with the last dim replicated: devices {3,2} own rows 0..2.
  HloSharding s = HloSharding::Tiled(TileAssignment::Explicit({2, 1, 2}, {3, 2, 1, 0}),
                                     /*last_tile_dim_replicate=*/true);
  EXPECT_EQ(s.TiledDataRank(), 2);
  Shape shape(PT::F32, {3, 7});
  EXPECT_EQ(*s.TileBounds(shape, 3), (Bounds{{0, 2}, {0, 7}}));
  EXPECT_EQ(*s.TileBounds(shape, 2), (Bounds{{0, 2}, {0, 7}}));
  EXPECT_EQ(*s.TileBounds(shape, 0), (Bounds{{2, 3}, {0, 7}}));
  EXPECT_EQ(*HloSharding::Replicated().TileBounds(shape, 9), (Bounds{{0, 3}, {0, 7}}));
  EXPECT_FALSE(HloSharding::Tuple({}).TileBounds(shape, 0).ok());
}

TEST(HloShardingTest, SubgroupDimsAreNotDataDims) {
  HloSharding s = HloSharding::Tiled(TileAssignment::Iota({1, 2, 4}, {8}, {}), false,
                                     {OpShardingType::kManual});
  EXPECT_EQ(s.TiledDataRank(), 2);
  EXPECT_TRUE(s.Validate(Shape(PT::F32, {4, 4}), 8).ok());
  EXPECT_EQ(*s.TileBounds(Shape(PT::F32, {4, 4}), 5), (Bounds{{0, 4}, {2, 4}}));
}

TEST(HloShardingTest, ValidateErrors) {
  Shape shape(PT::F32, {4, 4});
  HloSharding tiled = HloSharding::Tiled(TileAssignment::Explicit({2, 2}, {0, 1, 2, 3}));
  EXPECT_TRUE(tiled.Validate(shape, 4).ok());
  EXPECT_THAT(tiled.Validate(Shape(PT::F32, {4}), 4).message(), HasSubstr("rank"));
  EXPECT_THAT(tiled.Validate(shape, 8).message(), HasSubstr("has 4 devices"));
  EXPECT_THAT(HloSharding::Tiled(TileAssignment::Explicit({2, 2}, {0, 1, 2, 4}))
                  .Validate(shape, 4)
                  .message(),
              HasSubstr("out of range"));
  EXPECT_THAT(HloSharding::Tiled(TileAssignment::Explicit({2, 2}, {0, 1, 1, 3}))
                  .Validate(shape, 4)
                  .message(),
              HasSubstr("twice"));
  EXPECT_THAT(
      HloSharding::Tiled(TileAssignment::Explicit({2, 2}, {0, 1, 2})).Validate(shape, 4).message(),
      HasSubstr("lists 3 devices"));
  EXPECT_THAT(
      HloSharding::Tiled(TileAssignment::Iota({2, 2}, {8}, {})).Validate(shape, 4).message(),
      HasSubstr("reshapes 8"));
  EXPECT_THAT(
      HloSharding::Tiled(TileAssignment::Iota({2, 2}, {2, 2}, {0, 0})).Validate(shape, 4).message(),
      HasSubstr("permutation"));
  EXPECT_THAT(HloSharding::Maximal(4).Validate(shape, 4).message(), HasSubstr("out of range"));
  EXPECT_TRUE(HloSharding::Maximal(3).Validate(shape, 4).ok());
  EXPECT_TRUE(HloSharding::Manual().Validate(shape, 4).ok());
}

TEST(HloShardingTest, ValidateTuples) {
  Shape tuple =
      Shape::Tuple({Shape(PT::F32, {4}), Shape::Tuple({Shape(PT::S32, {2}), Shape::Token()})});
  HloSharding split = HloSharding::Tiled(TileAssignment::Iota({2}, {2}, {}));
  EXPECT_TRUE(
      HloSharding::Tuple({split, split, HloSharding::Replicated()}).Validate(tuple, 2).ok());
  EXPECT_THAT(HloSharding::Tuple({split, split}).Validate(tuple, 2).message(),
              HasSubstr("3 leaves"));
  EXPECT_THAT(HloSharding::Tuple({split}).Validate(Shape(PT::F32, {4}), 2).message(),
              HasSubstr("non-tuple"));
  EXPECT_TRUE(HloSharding::Replicated().Validate(tuple, 2).ok());
  EXPECT_FALSE(HloSharding::Maximal(5).Validate(tuple, 2).ok());
}

TEST(HloShardingTest, EqualityIgnoresMetadataButNotShardGroups) {
  HloSharding a = HloSharding::Tiled(TileAssignment::Iota({2, 2}, {2, 2}, {1, 0}));
  HloSharding b = HloSharding::Tiled(TileAssignment::Explicit({2, 2}, {0, 2, 1, 3}));
  EXPECT_TRUE(a == b);
  OpMetadata meta;
  meta.op_name = "x";
  b.mutable_metadata().push_back(meta);
  EXPECT_TRUE(a == b);
  b.set_shard_group({true, 1});
  EXPECT_FALSE(a == b);
  EXPECT_FALSE(a == HloSharding::Tiled(a.tile_assignment(), true));
  EXPECT_FALSE(HloSharding::Maximal(1) == HloSharding::Maximal(2));
  EXPECT_FALSE(HloSharding::Manual() == HloSharding::Replicated());
  EXPECT_TRUE(HloSharding::Tuple({a}) == HloSharding::Tuple({b = a}));
}

TEST(TileAssignmentTest, MalformedIotaDoesNotCrash) {
  TileAssignment bad = TileAssignment::Iota({2}, {2}, {3});
  EXPECT_EQ(bad.DeviceAt(1), -1);
  HloSharding s = HloSharding::Tiled(bad);
  EXPECT_FALSE(s.Validate(Shape(PT::F32, {2}), 2).ok());
  EXPECT_FALSE(s.TileBounds(Shape(PT::F32, {2}), 1).ok());
  EXPECT_FALSE(HloSharding::Tiled(TileAssignment::Explicit({-1}, {}))
                   .TileBounds(Shape(PT::F32, {2}), 0)
                   .ok());
}

TEST(ReplicaGroupsTest, IotaGroups) {
  ReplicaGroups g;
  g.is_iota = true;
  g.num_groups = 2;
  g.group_size = 4;
  g.iota_reshape = {4, 2};
  g.iota_perm = {1, 0};
  EXPECT_THAT(g.Groups(), ElementsAre(ElementsAre(0, 2, 4, 6), ElementsAre(1, 3, 5, 7)));
  g.iota_reshape = {8};
  g.iota_perm = {};
  EXPECT_THAT(g.Groups(), ElementsAre(ElementsAre(0, 1, 2, 3), ElementsAre(4, 5, 6, 7)));
  EXPECT_FALSE(g.empty());
  ReplicaGroups explicit_groups;
  EXPECT_TRUE(explicit_groups.empty());
  explicit_groups.groups = {{0, 1}, {3, 2}};
  EXPECT_THAT(explicit_groups.Groups(), ElementsAre(ElementsAre(0, 1), ElementsAre(3, 2)));
}

}  // namespace
}  // namespace xlite
