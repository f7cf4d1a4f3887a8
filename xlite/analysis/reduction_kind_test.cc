#include "xlite/analysis/reduction_kind.h"

#include <cmath>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "xlite/analysis/test_util.h"

namespace xlite {
namespace {

using testing::Parse;

// A computation `name` of two `t` scalar parameters a and b and `body`.
std::string Binary(const std::string& name, const std::string& t, const std::string& body) {
  return name + " {\n  a = " + t + "[] parameter(0)\n  b = " + t + "[] parameter(1)\n" + body +
         "\n}\n";
}

class ReductionKindTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = Parse("HloModule m\n" + Binary("add", "f32", "ROOT c = f32[] add(a, b)") +
                    Binary("max_swapped", "f32", "ROOT c = f32[] maximum(b, a)") +
                    Binary("xor_tuple", "s32", "x = s32[] xor(a, b)\nROOT t = (s32[]) tuple(x)") +
                    Binary("or_pred", "pred", "ROOT c = pred[] or(a, b)") +
                    Binary("sub", "f32", "ROOT c = f32[] subtract(a, b)") +
                    Binary("twice", "f32", "ROOT c = f32[] add(a, a)") +
                    Binary("fma", "f32", "m = f32[] multiply(a, b)\nROOT c = f32[] add(m, b)") +
                    "mixed {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                    "  ROOT c = f64[] add(a, b)\n}\n"
                    "arrays {\n  a = f32[2] parameter(0)\n  b = f32[2] parameter(1)\n"
                    "  ROOT c = f32[2] add(a, b)\n}\n"
                    "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
    ASSERT_NE(module_, nullptr);
  }
  std::optional<ReductionKind> Match(const char* name) {
    return MatchReductionKind(*module_->GetComputation(name));
  }
  std::unique_ptr<HloModule> module_;
};

TEST_F(ReductionKindTest, MatchesOneBinaryOpOfTheTwoParameters) {
  EXPECT_EQ(Match("add"), ReductionKind::kAdd);
  EXPECT_EQ(Match("max_swapped"), ReductionKind::kMaximum);
  EXPECT_EQ(Match("xor_tuple"), ReductionKind::kXor);
  EXPECT_EQ(Match("or_pred"), ReductionKind::kOr);
}

TEST_F(ReductionKindTest, RejectsEverythingElse) {
  EXPECT_EQ(Match("sub"), std::nullopt);
  EXPECT_EQ(Match("twice"), std::nullopt);
  EXPECT_EQ(Match("fma"), std::nullopt);
  EXPECT_EQ(Match("mixed"), std::nullopt);   // result type differs
  EXPECT_EQ(Match("arrays"), std::nullopt);  // not scalars
  EXPECT_EQ(Match("e"), std::nullopt);       // one parameter
}

TEST(ReductionKindNames, OpcodeRoundTrip) {
  for (ReductionKind kind :
       {ReductionKind::kAdd, ReductionKind::kMultiply, ReductionKind::kMaximum,
        ReductionKind::kMinimum, ReductionKind::kAnd, ReductionKind::kOr, ReductionKind::kXor}) {
    EXPECT_EQ(ReductionKindOf(ReductionOpcode(kind)), kind);
  }
  EXPECT_EQ(ReductionKindOf(HloOpcode::kSubtract), std::nullopt);
  EXPECT_EQ(ReductionKindName(ReductionKind::kMaximum), "maximum");
  EXPECT_TRUE(IsIdempotent(ReductionKind::kOr));
  EXPECT_FALSE(IsIdempotent(ReductionKind::kXor));
}

double IdentityDouble(ReductionKind kind, PrimitiveType type) {
  std::optional<Literal> identity = ReductionIdentity(kind, type);
  EXPECT_TRUE(identity.has_value());
  return identity.has_value() ? identity->GetDouble(0) : std::nan("");
}

int64_t IdentityInt(ReductionKind kind, PrimitiveType type) {
  std::optional<Literal> identity = ReductionIdentity(kind, type);
  EXPECT_TRUE(identity.has_value());
  return identity.has_value() ? identity->GetInt64(0) : -12345;
}

TEST(ReductionIdentityTest, ArithmeticAndBitwise) {
  using P = PrimitiveType;
  using K = ReductionKind;
  EXPECT_EQ(IdentityDouble(K::kAdd, P::F32), 0.0);
  EXPECT_EQ(IdentityDouble(K::kMultiply, P::BF16), 1.0);
  EXPECT_EQ(IdentityInt(K::kAnd, P::S8), -1);
  EXPECT_EQ(IdentityInt(K::kAnd, P::U4), 15);
  EXPECT_EQ(IdentityInt(K::kAnd, P::PRED), 1);
  EXPECT_EQ(IdentityInt(K::kOr, P::U32), 0);
  EXPECT_EQ(IdentityInt(K::kXor, P::PRED), 0);
  EXPECT_FALSE(ReductionIdentity(K::kAnd, P::F32).has_value());
  EXPECT_FALSE(ReductionIdentity(K::kMaximum, P::C64).has_value());
  EXPECT_FALSE(ReductionIdentity(K::kAdd, P::TUPLE).has_value());
  std::optional<Literal> complex_one = ReductionIdentity(K::kMultiply, P::C64);
  ASSERT_TRUE(complex_one.has_value());
  EXPECT_EQ(complex_one->GetComplex(0), std::complex<double>(1, 0));
}

TEST(ReductionIdentityTest, ExtremesOfEachType) {
  using P = PrimitiveType;
  using K = ReductionKind;
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(IdentityDouble(K::kMaximum, P::F32), -inf);
  EXPECT_EQ(IdentityDouble(K::kMinimum, P::F16), inf);
  // Finite-only types: their largest finite magnitude.
  EXPECT_EQ(IdentityDouble(K::kMaximum, P::F8E4M3FN), -448.0);
  EXPECT_EQ(IdentityDouble(K::kMinimum, P::F4E2M1FN), 6.0);
  EXPECT_EQ(IdentityInt(K::kMaximum, P::S8), -128);
  EXPECT_EQ(IdentityInt(K::kMinimum, P::S4), 7);
  EXPECT_EQ(IdentityInt(K::kMaximum, P::U16), 0);
  EXPECT_EQ(static_cast<uint64_t>(IdentityInt(K::kMinimum, P::U64)),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(IdentityInt(K::kMinimum, P::S64), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(IdentityInt(K::kMaximum, P::PRED), 0);
  EXPECT_EQ(IdentityInt(K::kMinimum, P::PRED), 1);
}

}  // namespace
}  // namespace xlite
