#include "xlite/eval/array_copy.h"

#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xlite::eval {
namespace {

using ::testing::ElementsAre;
using RunOf = std::tuple<int64_t, int64_t, int64_t>;

std::vector<RunOf> Runs(const StridedBox& box) {
  std::vector<RunOf> runs;
  ForEachRun(box, [&](int64_t a, int64_t b, int64_t n) { runs.emplace_back(a, b, n); });
  return runs;
}

TEST(ArrayCopy, ContiguousDimsMergeIntoOneRun) {
  // A 2x3 box row-major in both arrays is 6 consecutive elements.
  EXPECT_THAT(Runs(StridedBox({2, 3}, 10, {3, 1}, 4, {3, 1})), ElementsAre(RunOf{10, 4, 6}));
  // Rows of 3 inside rows of 5 (a slice): one run per row.
  EXPECT_THAT(Runs(StridedBox({2, 3}, 0, {3, 1}, 6, {5, 1})),
              ElementsAre(RunOf{0, 6, 3}, RunOf{3, 11, 3}));
}

TEST(ArrayCopy, TransposedBoxWalksElements) {
  // A reads row-major 2x2, B column-major: element by element, row-major.
  EXPECT_THAT(Runs(StridedBox({2, 2}, 0, {2, 1}, 0, {1, 2})),
              ElementsAre(RunOf{0, 0, 1}, RunOf{1, 2, 1}, RunOf{2, 1, 1}, RunOf{3, 3, 1}));
}

TEST(ArrayCopy, NegativeAndZeroStrides) {
  // Reversal (B stride -1 from its end) and broadcast (B stride 0).
  EXPECT_THAT(Runs(StridedBox({3}, 0, {1}, 2, {-1})),
              ElementsAre(RunOf{0, 2, 1}, RunOf{1, 1, 1}, RunOf{2, 0, 1}));
  EXPECT_THAT(Runs(StridedBox({2}, 0, {1}, 5, {0})), ElementsAre(RunOf{0, 5, 1}, RunOf{1, 5, 1}));
}

TEST(ArrayCopy, EmptyAndScalarBoxes) {
  EXPECT_TRUE(Runs(StridedBox({2, 0}, 0, {0, 1}, 0, {0, 1})).empty());
  EXPECT_THAT(Runs(StridedBox({}, 7, {}, 9, {})), ElementsAre(RunOf{7, 9, 1}));
}

TEST(ArrayCopy, IndexValuesSaturateU64) {
  Literal u(Shape(PrimitiveType::U64, {2}));
  u.Set<uint64_t>(0, 5);
  u.Set<uint64_t>(1, ~uint64_t{0});
  auto values = IndexValues(u);
  ASSERT_TRUE(values.ok());
  EXPECT_THAT(*values, ElementsAre(5, INT64_MAX));
  EXPECT_FALSE(IndexValues(Literal(Shape(PrimitiveType::F32, {1}))).ok());
}

}  // namespace
}  // namespace xlite::eval
