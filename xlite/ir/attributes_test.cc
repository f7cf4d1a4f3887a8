#include "xlite/ir/attributes.h"

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"

namespace xlite {
namespace {

// Equal records (a record and its clone) hash equal.
void ExpectCloneHashesEqual(const OpAttrs& attrs) {
  std::unique_ptr<OpAttrs> clone = attrs.Clone();
  ASSERT_TRUE(clone->Equals(attrs));
  EXPECT_EQ(clone->Hash(), attrs.Hash());
}

TEST(AttrsHash, EqualRecordsHashEqual) {
  SliceAttrs slice;
  slice.starts = {1, 2};
  slice.limits = {3, 4};
  slice.strides = {1, 1};
  ExpectCloneHashesEqual(slice);

  ConstantAttrs constant;
  constant.literal = Literal(Shape(PrimitiveType::F32, {3}));
  constant.literal.Set<float>(1, 2.5f);
  ExpectCloneHashesEqual(constant);

  CollectiveAttrs collective;
  collective.replica_groups.mesh.axes = {{"x", 2}, {"y", 2}};
  collective.replica_groups.mesh.device_ids = TileAssignment::Iota({2, 2}, {4}, {0});
  collective.replica_groups.mesh_group_axes = {{.axis = 1}};
  collective.channel_id = 3;
  collective.source_target_pairs = {{0, 1}, {1, 0}};
  ExpectCloneHashesEqual(collective);

  CustomCallAttrs custom;
  custom.target = "foo";
  custom.window = Window{{.size = 3, .stride = 2}};
  custom.operand_layout_constraints = std::vector<Shape>{Shape::Scalar(PrimitiveType::F32)};
  ExpectCloneHashesEqual(custom);

  // 0.0 == -0.0: equal fields must hash equal.
  BatchNormAttrs plus_zero, minus_zero;
  minus_zero.epsilon = -0.0f;
  ASSERT_TRUE(plus_zero.Equals(minus_zero));
  EXPECT_EQ(plus_zero.Hash(), minus_zero.Hash());
}

TEST(AttrsHash, DistinguishesRecordsOfOneKind) {
  // The records CSE meets by the thousand on one operand: slices of one
  // parameter and get-tuple-elements of one tuple.
  constexpr int64_t kCount = 20000;
  absl::flat_hash_set<size_t> slice_hashes, index_hashes;
  for (int64_t i = 0; i < kCount; ++i) {
    SliceAttrs slice;
    slice.starts = {2 * i};
    slice.limits = {2 * i + 2};
    slice.strides = {1};
    slice_hashes.insert(slice.Hash());
    IntAttrs index;
    index.value = i;
    index_hashes.insert(index.Hash());
  }
  EXPECT_EQ(slice_hashes.size(), kCount);
  EXPECT_EQ(index_hashes.size(), kCount);

  IntAttrs flagged;
  flagged.flag = true;
  EXPECT_NE(flagged.Hash(), IntAttrs().Hash());
}

}  // namespace
}  // namespace xlite
