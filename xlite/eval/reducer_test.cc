#include "xlite/eval/reducer.h"

#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "gtest/gtest.h"
#include "xlite/eval/eval_test_util.h"
#include "xlite/text/parser.h"

namespace xlite::eval {
namespace {

using testing::MakeLiteral;

// A computation `name` of two `t` scalar parameters a and b and `body`
// (ending in its ROOT).
std::string Binary(const std::string& name, const std::string& t, const std::string& body) {
  return name + " {\n  a = " + t + "[] parameter(0)\n  b = " + t + "[] parameter(1)\n" + body +
         "\n}\n";
}

// Computations to match, by name.
std::string Computations() {
  return "HloModule m\n" + Binary("add", "f32", "ROOT c = f32[] add(a, b)") +
         Binary("max_swapped", "f32", "ROOT c = f32[] maximum(b, a)") +
         Binary("fma", "f32", "m = f32[] multiply(a, b)\nROOT c = f32[] add(m, b)") +
         Binary("ge", "f32", "ROOT c = pred[] compare(b, a), direction=GE, type=TOTALORDER") +
         "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n";
}

class NoCallContext : public EvalContext {
 public:
  const EvalOptions& options() const override { return options_; }
  absl::StatusOr<Literal> Call(const HloComputation&, absl::Span<const Literal* const>) override {
    return Unimplemented("calls in this test");
  }
  std::mt19937_64& rng() override { return rng_; }

 private:
  EvalOptions options_;
  std::mt19937_64 rng_;
};

class Reducer : public ::testing::Test {
 protected:
  void SetUp() override {
    auto parsed = ParseHloModule(Computations());
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    module_ = *std::move(parsed);
  }
  const HloComputation& C(const char* name) { return *module_->GetComputation(name); }
  std::unique_ptr<HloModule> module_;
};

TEST_F(Reducer, MatchesAParameterCompare) {
  std::optional<ParameterCompare> cmp = MatchParameterCompare(C("ge"));
  ASSERT_TRUE(cmp.has_value());
  EXPECT_EQ(cmp->lhs_parameter, 1);
  EXPECT_EQ(cmp->rhs_parameter, 0);
  EXPECT_EQ(cmp->direction, ComparisonDirection::kGe);
  EXPECT_EQ(cmp->type, ComparisonType::kTotalOrder);
  EXPECT_EQ(SwappedDirection(ComparisonDirection::kGe), ComparisonDirection::kLe);
  EXPECT_FALSE(MatchParameterCompare(C("add")).has_value());
}

TEST_F(Reducer, CombinerPicksTheNativePathOnlyWhenItApplies) {
  NoCallContext ctx;
  Literal x = MakeLiteral("f32[4]", {1, 2, 3, 4});
  const Literal* inputs[] = {&x};
  auto native = Combiner::Make(C("add"), inputs, ctx);
  ASSERT_TRUE(native.ok()) << native.status();
  EXPECT_TRUE((*native)->is_native());
  auto general = Combiner::Make(C("fma"), inputs, ctx);
  ASSERT_TRUE(general.ok()) << general.status();
  EXPECT_FALSE((*general)->is_native());
  // The general path reports the computation's failure.
  Literal init = MakeLiteral("f32[]", {0});
  const Literal* init_ptr = &init;
  (*general)->Load({&init_ptr, 1}, 0);
  EXPECT_FALSE((*general)->Fold(0, 1, 4).ok());
}

TEST_F(Reducer, NativeFoldsInOrderAndStores) {
  NoCallContext ctx;
  Literal x = MakeLiteral("f32[6]", {1, 2, 3, 4, 5, 6});
  const Literal* inputs[] = {&x};
  auto max = Combiner::Make(C("max_swapped"), inputs, ctx);
  ASSERT_TRUE(max.ok()) << max.status();
  Literal init = MakeLiteral("f32[]", {-INFINITY});
  Literal out(Shape(PrimitiveType::F32, {2}));
  const Literal* init_ptr = &init;
  Literal* out_ptr = &out;
  (*max)->Load({&init_ptr, 1}, 0);
  ASSERT_TRUE((*max)->Fold(0, 2, 3).ok());  // 1, 3, 5
  (*max)->Store({&out_ptr, 1}, 0);
  (*max)->Load({&init_ptr, 1}, 0);
  ASSERT_TRUE((*max)->Fold(1, 2, 2).ok());  // 2, 4
  (*max)->Store({&out_ptr, 1}, 1);
  EXPECT_EQ(out.GetDouble(0), 5);
  EXPECT_EQ(out.GetDouble(1), 4);
}

TEST(CombineElementwise, SharesTheElementwiseKernels) {
  Literal acc = MakeLiteral("f32[3]", {1, NAN, -2});
  Literal x = MakeLiteral("f32[3]", {NAN, 5, -3});
  ASSERT_TRUE(CombineElementwise(ReductionKind::kMaximum, acc, x));
  EXPECT_TRUE(std::isnan(acc.GetDouble(0)));  // NaN propagates from either side
  EXPECT_TRUE(std::isnan(acc.GetDouble(1)));
  EXPECT_EQ(acc.GetDouble(2), -2);
  Literal bits = MakeLiteral("u8[2]", {0xf0, 3});
  Literal mask = MakeLiteral("u8[2]", {0xff, 1});
  ASSERT_TRUE(CombineElementwise(ReductionKind::kXor, bits, mask));
  EXPECT_EQ(bits.GetInt64(0), 0x0f);
  EXPECT_EQ(bits.GetInt64(1), 2);
  Literal wrap = MakeLiteral("s8[1]", {100});
  ASSERT_TRUE(CombineElementwise(ReductionKind::kAdd, wrap, MakeLiteral("s8[1]", {100})));
  EXPECT_EQ(wrap.GetInt64(0), -56);
  // No kernel: xor of floats, max of complex, mismatched sizes.
  EXPECT_FALSE(CombineElementwise(ReductionKind::kXor, acc, x));
  Literal c = MakeLiteral("c64[1]", {1});
  EXPECT_FALSE(CombineElementwise(ReductionKind::kMaximum, c, c));
  EXPECT_FALSE(CombineElementwise(ReductionKind::kAdd, acc, bits));
}

TEST(CompareKeys, TotalOrderAndFloatDiffer) {
  Literal x = MakeLiteral("f32[3]", {-0.0, 0.0, NAN});
  std::optional<CompareKeys> total = CompareKeys::Make(x, ComparisonType::kTotalOrder);
  std::optional<CompareKeys> ieee = CompareKeys::Make(x, ComparisonType::kFloat);
  ASSERT_TRUE(total && ieee);
  EXPECT_TRUE(total->Compare(0, 1, ComparisonDirection::kLt));  // -0 < +0
  EXPECT_FALSE(ieee->Compare(0, 1, ComparisonDirection::kLt));  // -0 == +0
  EXPECT_TRUE(total->Compare(1, 2, ComparisonDirection::kLt));  // +0 < +NaN
  EXPECT_FALSE(ieee->Compare(1, 2, ComparisonDirection::kLt));  // unordered
  EXPECT_TRUE(ieee->Compare(2, 2, ComparisonDirection::kNe));   // NaN != NaN
  EXPECT_FALSE(CompareKeys::Make(x, ComparisonType::kSigned).has_value());
  Literal c = MakeLiteral("c64[1]", {1});
  EXPECT_FALSE(CompareKeys::Make(c, ComparisonType::kFloat).has_value());
}

}  // namespace
}  // namespace xlite::eval
