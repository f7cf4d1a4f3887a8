#include "xlite/ir/literal.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"

namespace xlite {
namespace {

using PT = PrimitiveType;

Literal FromDoubles(PT type, const std::vector<double>& values) {
  Literal l(Shape(type, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) l.SetDouble(i, values[i]);
  return l;
}

Literal FromInts(PT type, const std::vector<int64_t>& values) {
  Literal l(Shape(type, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) l.SetInt64(i, values[i]);
  return l;
}

std::vector<int64_t> Ints(const Literal& l) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetInt64(i));
  return out;
}

TEST(LiteralTest, ZeroFilledAndTuples) {
  Literal l(Shape(PT::F32, {2, 3}));
  EXPECT_EQ(l.element_count(), 6);
  EXPECT_EQ(l.raw_data().size(), 24u);
  EXPECT_EQ(l.GetDouble(5), 0.0);
  Literal t = Literal::Tuple({Literal(Shape::Scalar(PT::S8)), FromInts(PT::S32, {1, 2})});
  EXPECT_TRUE(t.shape().IsTuple());
  EXPECT_EQ(t.shape().ToString(), "(s8[], s32[2])");
  Literal zero_tuple(t.shape());
  ASSERT_EQ(zero_tuple.tuple_elements().size(), 2u);
  EXPECT_EQ(zero_tuple.tuple_elements()[1].GetInt64(1), 0);
  EXPECT_FALSE(zero_tuple == t);
}

TEST(LiteralTest, TypedAccessAndStorage) {
  Literal l(Shape(PT::BF16, {2}));
  l.Set<uint16_t>(1, 0x3F80);
  EXPECT_EQ(l.GetDouble(1), 1.0);
  Literal c(Shape(PT::C64, {1}));
  c.SetComplex(0, {1.5, -2.0});
  EXPECT_EQ(c.GetComplex(0), std::complex<double>(1.5, -2.0));
  EXPECT_EQ(c.GetDouble(0), 1.5);
  Literal s4 = FromInts(PT::S4, {-1, 7, -8});
  EXPECT_EQ(s4.raw_data()[0], 0x0F);  // low bits only
  EXPECT_EQ(Ints(s4), (std::vector<int64_t>{-1, 7, -8}));
  Literal u64 = FromInts(PT::U64, {-1});
  EXPECT_EQ(static_cast<uint64_t>(u64.GetInt64(0)), std::numeric_limits<uint64_t>::max());
}

TEST(LiteralTest, FloatToIntTruncatesSaturatesNaNToZero) {
  Literal f = FromDoubles(PT::F32, {2.7, -2.7, NAN, 1e10, -1e10, INFINITY, -0.5});
  auto s32 = f.Convert(PT::S32);
  ASSERT_TRUE(s32.ok());
  EXPECT_EQ(Ints(*s32), (std::vector<int64_t>{2, -2, 0, INT32_MAX, INT32_MIN, INT32_MAX, 0}));
  auto u8 = FromDoubles(PT::F32, {-5, 300, 255.9, NAN}).Convert(PT::U8);
  ASSERT_TRUE(u8.ok());
  EXPECT_EQ(Ints(*u8), (std::vector<int64_t>{0, 255, 255, 0}));
  auto s64 = FromDoubles(PT::F64, {1e300, -1e300}).Convert(PT::S64);
  ASSERT_TRUE(s64.ok());
  EXPECT_EQ(Ints(*s64), (std::vector<int64_t>{INT64_MAX, INT64_MIN}));
  auto s4 = FromDoubles(PT::F32, {9, -9}).Convert(PT::S4);
  ASSERT_TRUE(s4.ok());
  EXPECT_EQ(Ints(*s4), (std::vector<int64_t>{7, -8}));
}

TEST(LiteralTest, IntToNarrowIntWraps) {
  Literal s = FromInts(PT::S32, {300, -129, -1, 20, 9});
  auto s8 = s.Convert(PT::S8);
  ASSERT_TRUE(s8.ok());
  EXPECT_EQ(Ints(*s8), (std::vector<int64_t>{44, 127, -1, 20, 9}));
  auto u8 = s.Convert(PT::U8);
  ASSERT_TRUE(u8.ok());
  EXPECT_EQ(Ints(*u8), (std::vector<int64_t>{44, 127, 255, 20, 9}));
  auto s4 = s.Convert(PT::S4);
  ASSERT_TRUE(s4.ok());
  EXPECT_EQ(Ints(*s4), (std::vector<int64_t>{-4, -1, -1, 4, -7}));
}

TEST(LiteralTest, IntToFloatRoundsToNearestEven) {
  auto f32 = FromInts(PT::S32, {16777217, 16777219, -16777217}).Convert(PT::F32);
  ASSERT_TRUE(f32.ok());
  EXPECT_EQ(f32->GetDouble(0), 16777216.0);
  EXPECT_EQ(f32->GetDouble(1), 16777220.0);
  EXPECT_EQ(f32->GetDouble(2), -16777216.0);
  auto bf16 =
      FromInts(PT::S64, {257, 259, (int64_t{1} << 62) + (int64_t{1} << 54) + 1}).Convert(PT::BF16);
  ASSERT_TRUE(bf16.ok());
  EXPECT_EQ(bf16->Get<uint16_t>(0), 0x4380);  // 256: tie to even
  EXPECT_EQ(bf16->Get<uint16_t>(1), 0x4382);  // 260
  // Just above a tie; rounding through double first would lose the +1.
  EXPECT_EQ(bf16->Get<uint16_t>(2), 0x5E81);
  Literal u64(Shape(PT::U64, {1}));
  u64.Set<uint64_t>(0, std::numeric_limits<uint64_t>::max());
  auto from_u64 = u64.Convert(PT::F32);
  ASSERT_TRUE(from_u64.ok());
  EXPECT_EQ(from_u64->GetDouble(0), std::ldexp(1.0, 64));
}

TEST(LiteralTest, PredConversions) {
  auto p = FromDoubles(PT::F32, {0, -0.0, 0.5, NAN}).Convert(PT::PRED);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(Ints(*p), (std::vector<int64_t>{0, 0, 1, 1}));
  auto from_int = FromInts(PT::S32, {0, 2, -1}).Convert(PT::PRED);
  ASSERT_TRUE(from_int.ok());
  EXPECT_EQ(Ints(*from_int), (std::vector<int64_t>{0, 1, 1}));
  auto back = from_int->Convert(PT::F32);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->GetDouble(1), 1.0);
}

TEST(LiteralTest, FloatToFloatKeepsSpecials) {
  Literal f = FromDoubles(PT::F32, {NAN, INFINITY, -INFINITY, -0.0, 1e-45, 3.0e38});
  auto bf16 = f.Convert(PT::BF16);
  ASSERT_TRUE(bf16.ok());
  EXPECT_EQ(bf16->Get<uint16_t>(0), 0x7FC0);
  EXPECT_EQ(bf16->Get<uint16_t>(1), 0x7F80);
  EXPECT_EQ(bf16->Get<uint16_t>(2), 0xFF80);
  EXPECT_EQ(bf16->Get<uint16_t>(3), 0x8000);
  EXPECT_EQ(bf16->Get<uint16_t>(4), 0x0000);  // below half the smallest denormal
  auto f8 = f.Convert(PT::F8E4M3FN);
  ASSERT_TRUE(f8.ok());
  EXPECT_EQ(f8->Get<uint8_t>(1), 0x7F);  // inf -> NaN
  EXPECT_EQ(f8->Get<uint8_t>(5), 0x7F);  // overflow -> NaN
  auto f16 = FromDoubles(PT::BF16, {1.0, 70000}).Convert(PT::F16);
  ASSERT_TRUE(f16.ok());
  EXPECT_EQ(f16->Get<uint16_t>(0), 0x3C00);
  EXPECT_EQ(f16->Get<uint16_t>(1), 0x7C00);
}

TEST(LiteralTest, ComplexConversions) {
  auto c = FromDoubles(PT::F32, {2.5}).Convert(PT::C128);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->GetComplex(0), std::complex<double>(2.5, 0));
  EXPECT_FALSE(c->Convert(PT::F32).ok());
  EXPECT_TRUE(c->Convert(PT::C64).ok());
  EXPECT_FALSE(Literal::Tuple({}).Convert(PT::F32).ok());
}

TEST(LiteralTest, BitsAreStoredUnconverted) {
  Literal l(Shape(PrimitiveType::BF16, {2}));
  l.SetBits(0, 0xFFBF);  // a signalling NaN with payload 0x3f
  l.SetBits(1, 0x3F80);  // 1.0
  EXPECT_EQ(l.GetBits(0), 0xFFBFu);
  EXPECT_EQ(l.Get<uint16_t>(0), 0xFFBFu);
  EXPECT_TRUE(std::isnan(l.GetDouble(0)));
  EXPECT_EQ(l.GetDouble(1), 1.0);
  Literal i(Shape(PrimitiveType::S8, {1}));
  i.SetInt64(0, -2);
  EXPECT_EQ(i.GetBits(0), 0xFEu);
}

TEST(LiteralTest, EqualityIgnoresLayout) {
  Shape with_layout(PT::S32, {2});
  with_layout.set_layout(Layout({0}));
  Literal a = FromInts(PT::S32, {1, 2});
  Literal b(with_layout);
  b.SetInt64(0, 1);
  b.SetInt64(1, 2);
  EXPECT_TRUE(a == b);
  b.SetInt64(1, 3);
  EXPECT_FALSE(a == b);
}

}  // namespace
}  // namespace xlite

namespace xlite {
namespace {

TEST(LiteralCreateTest, ValidatesAndReportsInsteadOfThrowing) {
  absl::StatusOr<Literal> ok = Literal::Create(Shape(PrimitiveType::F32, {2, 3}));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->raw_data().size(), 24u);
  absl::StatusOr<Literal> overflow =
      Literal::Create(Shape(PrimitiveType::F32, {99999999999, 99999999999}));
  EXPECT_EQ(overflow.status().code(), absl::StatusCode::kInvalidArgument);
  // A size that fits int64 but no vector: length_error becomes an error.
  absl::StatusOr<Literal> too_large = Literal::Create(Shape(PrimitiveType::C128, {INT64_MAX / 16}));
  EXPECT_EQ(too_large.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(too_large.status().message().find("out of memory while allocating c128["),
            std::string::npos);
}

TEST(LiteralCreateTest, ForOverwriteHasTheShapeAndTheChecksOfCreate) {
  const Shape shape =
      Shape::Tuple({Shape(PrimitiveType::F32, {5, 7}), Shape::Scalar(PrimitiveType::S8)});
  absl::StatusOr<Literal> made = Literal::CreateForOverwrite(shape);
  ASSERT_TRUE(made.ok());
  ASSERT_EQ(made->tuple_elements().size(), 2u);
  EXPECT_EQ(made->tuple_elements()[0].raw_data().size(), 140u);
  EXPECT_EQ(made->tuple_elements()[1].raw_data().size(), 1u);
  made->mutable_tuple_elements()[0].Set<float>(34, 2.5f);
  EXPECT_EQ(made->tuple_elements()[0].Get<float>(34), 2.5f);
  EXPECT_EQ(Literal::CreateForOverwrite(Shape(PrimitiveType::F32, {99999999999, 99999999999}))
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      Literal::CreateForOverwrite(Shape(PrimitiveType::C128, {INT64_MAX / 16})).status().code(),
      absl::StatusCode::kResourceExhausted);
}

TEST(LiteralCreateTest, ConstructorNeverWrapsAnOverflowingSize) {
  EXPECT_THROW(Literal(Shape(PrimitiveType::F32, {INT64_MAX, 2})), std::length_error);
}

}  // namespace
}  // namespace xlite
