#include "xlite/eval/element_types.h"

#include "gtest/gtest.h"
#include "xlite/eval/index_util.h"

namespace xlite::eval {
namespace {

TEST(ElementTypes, SubByteIntegersSignExtendAndWrap) {
  Literal l(Shape(PrimitiveType::S4, {2}));
  StoreElement<PrimitiveType::S4>(l, 0, static_cast<int8_t>(7 + 1));  // wraps to -8
  StoreElement<PrimitiveType::S4>(l, 1, static_cast<int8_t>(-3));
  EXPECT_EQ(LoadElement<PrimitiveType::S4>(l, 0), -8);
  EXPECT_EQ(LoadElement<PrimitiveType::S4>(l, 1), -3);
  EXPECT_EQ(l.GetInt64(1), -3);
}

TEST(ElementTypes, NarrowFloatsRoundToNearestEven) {
  Literal l(Shape(PrimitiveType::BF16, {1}));
  // 1 + 2^-8 is a tie between bf16 1 and 1 + 2^-7: even mantissa wins.
  StoreElement<PrimitiveType::BF16>(l, 0, 1.0f + 1.0f / 256);
  EXPECT_EQ(LoadElement<PrimitiveType::BF16>(l, 0), 1.0f);
  EXPECT_EQ(l.GetDouble(0), 1.0);
}

TEST(ElementTypes, DispatchReachesEveryArrayType) {
  for (int t = 0; t < kNumPrimitiveTypes; ++t) {
    auto type = static_cast<PrimitiveType>(t);
    absl::StatusOr<int> r = DispatchArrayType(type, [&](auto tag) -> absl::StatusOr<int> {
      EXPECT_EQ(decltype(tag)::kType, type);
      return 1;
    });
    EXPECT_EQ(r.ok(), IsArrayType(type)) << PrimitiveTypeName(type);
  }
}

TEST(IndexUtil, StridesAndOdometerAgree) {
  std::vector<int64_t> dims = {2, 3, 4};
  std::vector<int64_t> strides = RowMajorStrides(dims);
  EXPECT_EQ(strides, (std::vector<int64_t>{12, 4, 1}));
  int64_t expected = 0;
  ForEachIndex(dims, [&](absl::Span<const int64_t> index) {
    EXPECT_EQ(LinearIndex(index, strides), expected);
    EXPECT_EQ(MultiIndex(expected, dims), std::vector<int64_t>(index.begin(), index.end()));
    ++expected;
  });
  EXPECT_EQ(expected, 24);
  int calls = 0;
  ForEachIndex({}, [&](absl::Span<const int64_t>) { ++calls; });
  ForEachIndex({3, 0}, [&](absl::Span<const int64_t>) { ++calls; });
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace xlite::eval
