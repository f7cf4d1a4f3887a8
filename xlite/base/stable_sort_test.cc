#include "xlite/base/stable_sort.h"

#include <cstdint>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace xlite {
namespace {

// Pairs (key, original position) sorted by key alone: keys ascend and equal
// keys keep their original order, at sizes around the run and merge widths.
TEST(StableSortTest, SortsAndKeepsEqualKeysInOrder) {
  std::mt19937 rng(7);
  for (size_t n : {0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 1000, 4097}) {
    for (int key_range : {1, 3, 1000}) {
      std::vector<std::pair<int, size_t>> v(n);
      for (size_t i = 0; i < n; ++i) {
        v[i] = {static_cast<int>(rng() % static_cast<unsigned>(key_range)), i};
      }
      StableSort(v, [](const auto& a, const auto& b) { return a.first < b.first; });
      ASSERT_EQ(v.size(), n);
      for (size_t i = 1; i < n; ++i) {
        ASSERT_LE(v[i - 1].first, v[i].first) << n;
        if (v[i - 1].first == v[i].first) {
          ASSERT_LT(v[i - 1].second, v[i].second) << n;
        }
      }
    }
  }
}

TEST(StableSortTest, DescendingOrderAndMoveOnlyValues) {
  std::vector<std::unique_ptr<int>> v;
  for (int i = 0; i < 50; ++i) v.push_back(std::make_unique<int>(i % 7));
  StableSort(v, [](const auto& a, const auto& b) { return *a > *b; });
  for (size_t i = 1; i < v.size(); ++i) EXPECT_GE(*v[i - 1], *v[i]);
}

}  // namespace
}  // namespace xlite
