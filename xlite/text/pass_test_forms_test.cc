// Parser rules found by running the HLO modules of XLA's pass tests through
// xlite: written operand shapes compared as XLA compares them (dynamic marks
// ignored), the 2024 spelling `original_value=` of `origin=`, and a clear
// "not supported yet" for sparse dots.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/ir/computation.h"
#include "xlite/ir/module.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<std::unique_ptr<HloModule>> ParseText(std::string_view text) {
  ParseOptions options;
  options.filename = "t.hlo";
  return ParseHloModule(text, options);
}

TEST(PassTestFormsTest, WrittenOperandShapeIgnoresDynamicMarks) {
  // A bounded operand shape naming a static value, and a static one naming a
  // bounded value: XLA's ShapeUtil::Compatible accepts both.
  auto module = ParseText(
      "ENTRY e {\n"
      "  a = s32[3] parameter(0)\n"
      "  n = s32[] parameter(1)\n"
      "  b = s32[<=3] set-dimension-size(a, n), dimensions={0}\n"
      "  ROOT c = s32[<=6] concatenate(s32[<=3] a, s32[3] b), dimensions={0}\n"
      "}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->name(), "a");
  EXPECT_EQ(root->operand(1)->name(), "b");
}

TEST(PassTestFormsTest, WrittenOperandShapeStillChecksSizesAndTypes) {
  auto wrong_size = ParseText(
      "ENTRY e {\n  a = s32[3] parameter(0)\n  ROOT n = s32[3] negate(s32[<=4] a)\n}\n");
  ASSERT_FALSE(wrong_size.ok());
  EXPECT_THAT(wrong_size.status().message(), HasSubstr("operand shape s32[<=4] differs"));
  auto wrong_type = ParseText(
      "ENTRY e {\n  a = s32[3] parameter(0)\n  ROOT n = s32[3] negate(u32[3] a)\n}\n");
  EXPECT_FALSE(wrong_type.ok());
}

TEST(PassTestFormsTest, OriginalValueIsTheOldSpellingOfOrigin) {
  auto module = ParseText(
      "ENTRY e {\n  ROOT p = f32[2] parameter(0), original_value={{\"p\"}}\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->origin(), R"({{"p"}})");
  EXPECT_EQ(PrintInstruction(*root), R"(%p = f32[2] parameter(0), origin={{"p"}})");
}

TEST(PassTestFormsTest, SparseDotIsNotSupportedYet) {
  auto module = ParseText(
      "ENTRY e {\n  a = f32[2,8] parameter(0)\n  b = f32[16,4] parameter(1)\n"
      "  m = u16[2,1] parameter(2)\n"
      "  ROOT d = f32[2,4] dot(a, b, m), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}, sparsity=L.1@2:4\n}\n");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(module.status().message(), HasSubstr("not supported yet: sparse dot"));
}

}  // namespace
}  // namespace xlite
