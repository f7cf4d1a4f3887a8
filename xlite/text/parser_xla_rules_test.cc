// Parser and printer rules that follow XLA's own parser where our first
// version disagreed: nested operands named like instructions, scalar
// broadcasts, integer ranges, `?` dimension labels, NaN payloads, and the
// errors XLA raises for signatures, conditionals, layouts, async threads and
// result_accuracy modes; tuple literals in custom-call `literal=`; written
// operand shapes compared ignoring dynamic marks, `original_value=` and sparse
// dots with sparsity= (found by sweeping the modules of XLA's pass tests).
#include <cstdint>
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

std::string ErrorOf(std::string_view text) {
  auto module = ParseText(text);
  EXPECT_FALSE(module.ok()) << "parsed:\n" << text;
  return module.ok() ? "" : std::string(module.status().message());
}

const HloInstruction* Root(const HloModule& module) {
  return module.entry_computation()->root_instruction();
}

// The literal of `ROOT c = <shape> constant(<value>)`, or the parse error.
absl::StatusOr<Literal> ConstantOf(std::string_view shape, std::string_view value) {
  auto module = ParseText(std::string("ENTRY e {\n  ROOT c = ") + std::string(shape) +
                          " constant(" + std::string(value) + ")\n}\n");
  if (!module.ok()) return module.status();
  return Root(**module)->attrs<ConstantAttrs>().literal;
}

int64_t ScalarInt(std::string_view shape, std::string_view value) {
  auto literal = ConstantOf(shape, value);
  EXPECT_TRUE(literal.ok()) << shape << " " << value << ": " << literal.status();
  return literal.ok() ? literal->GetInt64(0) : -12345;
}

bool InRange(std::string_view shape, std::string_view value) {
  auto literal = ConstantOf(shape, value);
  if (!literal.ok()) {
    EXPECT_THAT(std::string(literal.status().message()), HasSubstr("is out of range for"));
  }
  return literal.ok();
}

// Prints `ROOT c = <shape> constant(<value>)` back.
std::string ConstantLine(std::string_view shape, std::string_view value) {
  auto module = ParseText(std::string("ENTRY e {\n  ROOT c = ") + std::string(shape) +
                          " constant(" + std::string(value) + ")\n}\n");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? PrintInstruction(*Root(**module)) : "";
}

TEST(ParserXlaRulesTest, WordBeforeParenIsANestedInstructionEvenWhenAName) {
  for (std::string_view shape_prefix : {"", "f32[10] "}) {
    auto module = ParseText(std::string("ENTRY e {\n  add = f32[10] parameter(0)\n"
                                        "  ROOT r = f32[10] add(add, ") +
                            std::string(shape_prefix) + "add(add, add))\n}\n");
    ASSERT_TRUE(module.ok()) << module.status();
    const HloInstruction* root = Root(**module);
    ASSERT_EQ(root->operand_count(), 2);
    EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kParameter);
    const HloInstruction* nested = root->operand(1);
    EXPECT_EQ(nested->opcode(), HloOpcode::kAdd);
    EXPECT_EQ(nested->name(), "add.anon");
    ASSERT_EQ(nested->operand_count(), 2);
    EXPECT_EQ(nested->operand(0), root->operand(0));
    EXPECT_EQ(nested->operand(1), root->operand(0));
  }
}

TEST(ParserXlaRulesTest, ScalarBroadcastMayOmitDimensions) {
  auto module =
      ParseText("ENTRY e {\n  p = f32[] parameter(0)\n  ROOT b = f32[2,3] broadcast(p)\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* b = Root(**module);
  EXPECT_TRUE(b->has_dimensions_attr());
  EXPECT_TRUE(b->dimensions().empty());
  EXPECT_EQ(PrintInstruction(*b), "%b = f32[2,3] broadcast(%p), dimensions={}");
  // Nested, as an operand.
  EXPECT_TRUE(ParseText("ENTRY e {\n  ROOT r = f32[4] sqrt(f32[4] broadcast(f32[] "
                        "parameter(0)))\n}\n")
                  .ok());
  // A rank-1 operand still needs them; so does a token-typed or tuple one.
  EXPECT_THAT(ErrorOf("ENTRY e {\n  p = f32[1] parameter(0)\n  ROOT b = f32[2,1] "
                      "broadcast(p)\n}\n"),
              HasSubstr("t.hlo:3:21: error: missing required attribute 'dimensions'"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  p = (f32[]) parameter(0)\n  ROOT b = f32[2] "
                      "broadcast(p)\n}\n"),
              HasSubstr("missing required attribute 'dimensions'"));
}

TEST(ParserXlaRulesTest, SignedIntegerBoundaries) {
  EXPECT_EQ(ScalarInt("s8[]", "-128"), -128);
  EXPECT_EQ(ScalarInt("s8[]", "127"), 127);
  EXPECT_FALSE(InRange("s8[]", "128"));
  EXPECT_FALSE(InRange("s8[]", "-129"));
  EXPECT_EQ(ScalarInt("s4[]", "-8"), -8);
  EXPECT_EQ(ScalarInt("s4[]", "7"), 7);
  EXPECT_FALSE(InRange("s4[]", "8"));
  EXPECT_FALSE(InRange("s4[]", "-9"));
  EXPECT_EQ(ScalarInt("s2[]", "-2"), -2);
  EXPECT_FALSE(InRange("s2[]", "2"));
  EXPECT_EQ(ScalarInt("s16[]", "-32768"), -32768);
  EXPECT_FALSE(InRange("s16[]", "32768"));
  EXPECT_EQ(ScalarInt("s32[]", "2147483647"), 2147483647);
  EXPECT_FALSE(InRange("s32[]", "2147483648"));
  EXPECT_FALSE(InRange("s32[]", "-2147483649"));
  EXPECT_EQ(ScalarInt("s64[]", "9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ScalarInt("s64[]", "-9223372036854775808"), INT64_MIN);
  // XLA reads text above INT64_MAX as its uint64 bits reinterpreted as int64,
  // then range-checks that: 2^64-1 is -1, in range even for s8.
  EXPECT_EQ(ScalarInt("s64[]", "9223372036854775808"), INT64_MIN);
  EXPECT_EQ(ScalarInt("s64[]", "18446744073709551615"), -1);
  EXPECT_EQ(ScalarInt("s8[]", "18446744073709551615"), -1);
  EXPECT_EQ(ScalarInt("s8[]", "18446744073709551488"), -128);  // 2^64-128
  EXPECT_FALSE(InRange("s8[]", "18446744073709551487"));       // -129 is not
}

TEST(ParserXlaRulesTest, UnsignedIntegerBoundaries) {
  EXPECT_EQ(ScalarInt("u8[]", "0"), 0);
  EXPECT_EQ(ScalarInt("u8[]", "255"), 255);
  EXPECT_FALSE(InRange("u8[]", "256"));
  EXPECT_FALSE(InRange("u8[]", "-1"));
  EXPECT_EQ(ScalarInt("u4[]", "15"), 15);
  EXPECT_FALSE(InRange("u4[]", "16"));
  EXPECT_FALSE(InRange("u4[]", "-1"));
  EXPECT_EQ(ScalarInt("u2[]", "3"), 3);
  EXPECT_FALSE(InRange("u2[]", "4"));
  EXPECT_EQ(ScalarInt("u16[]", "65535"), 65535);
  EXPECT_FALSE(InRange("u16[]", "65536"));
  EXPECT_EQ(ScalarInt("u32[]", "4294967295"), 4294967295);
  EXPECT_FALSE(InRange("u32[]", "4294967296"));
  EXPECT_FALSE(InRange("u32[]", "-1"));
  EXPECT_FALSE(InRange("u32[]", "18446744073709551615"));
  // u64 compares the int64 as uint64: every 64-bit pattern is in range, so a
  // negative number stands for its two's complement.
  EXPECT_EQ(ScalarInt("u64[]", "-1"), -1);  // all ones
  EXPECT_EQ(ConstantLine("u64[]", "-1"), "%c = u64[] constant(18446744073709551615)");
  EXPECT_EQ(ScalarInt("u64[]", "9223372036854775808"), INT64_MIN);
  EXPECT_EQ(ScalarInt("u64[]", "18446744073709551615"), -1);
  EXPECT_EQ(ScalarInt("u64[]", "-9223372036854775808"), INT64_MIN);
  // Beyond 64 bits the number itself is refused.
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT c = u64[] constant(18446744073709551616)\n}\n"),
              HasSubstr("integer literal out of range"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT c = u32[] constant(4294967296)\n}\n"),
              HasSubstr("t.hlo:2:27: error: value 4294967296 is out of range for u32 "
                        "[0, 4294967295]"));
}

TEST(ParserXlaRulesTest, PredTakesAnyInteger) {
  EXPECT_EQ(ScalarInt("pred[]", "0"), 0);
  EXPECT_EQ(ScalarInt("pred[]", "2"), 1);
  EXPECT_EQ(ScalarInt("pred[]", "-1"), 1);
  EXPECT_EQ(ConstantLine("pred[]", "7"), "%c = pred[] constant(true)");
}

TEST(ParserXlaRulesTest, UnknownDimLabelsKeepEveryRole) {
  const std::string custom_call =
      "%r = f32[100]{0} custom-call(), window={size=2x2}, "
      "dim_labels=?b01f_0?1io->b01?f, custom_call_target=\"target\"";
  auto module = ParseText("ENTRY e {\n  ROOT " + custom_call + "\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(PrintInstruction(*Root(**module)), custom_call);

  const std::string convolution =
      "%c = f32[1,1,3,1,3] convolution(%l, %k), window={size=2x2}, "
      "dim_labels=?b01f_0?1io->b01?f";
  module = ParseText(
      "ENTRY e {\n  %l = f32[1,1,4,4,2] parameter(0)\n"
      "  %k = f32[2,1,2,2,3] parameter(1)\n  ROOT " +
      convolution + "\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(PrintInstruction(*Root(**module)), convolution);
  // Each side is as long as its largest dimension number: a `?` only at the
  // end of one side is not kept (XLA prints it the same way).
  module = ParseText(
      "ENTRY e {\n  ROOT %r = f32[1] custom-call(), custom_call_target=\"t\", "
      "dim_labels=b01f?_01io->b01f\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_THAT(PrintInstruction(*Root(**module)), HasSubstr("dim_labels=b01f_01io->b01f"));
}

TEST(ParserXlaRulesTest, NanPayloadsAreStoredAndPrinted) {
  auto literal = ConstantOf("bf16[2]", "{-nan(0x7f), -nan(0x3f)}");
  ASSERT_TRUE(literal.ok()) << literal.status();
  // bf16: sign, 8 exponent ones (0x7f80), 7 payload bits.
  EXPECT_EQ(literal->GetBits(0), 0xFFFFu);
  EXPECT_EQ(literal->GetBits(1), 0xFFBFu);
  EXPECT_EQ(ConstantLine("bf16[2]", "{-nan(0x7f), -nan(0x3f)}"),
            "%c = bf16[2] constant({-nan(0x7f), -nan(0x3f)})");
  // The quiet bit alone is the default payload and is not written.
  literal = ConstantOf("bf16[1]", "{nan(0x40)}");
  ASSERT_TRUE(literal.ok());
  EXPECT_EQ(literal->GetBits(0), 0x7FC0u);
  EXPECT_EQ(ConstantLine("bf16[1]", "{nan(0x40)}"), "%c = bf16[1] constant({nan})");
  // f32: a signalling payload survives (no trip through a double).
  literal = ConstantOf("f32[]", "nan(0x1)");
  ASSERT_TRUE(literal.ok());
  EXPECT_EQ(literal->GetBits(0), 0x7F800001u);
  EXPECT_EQ(ConstantLine("f32[]", "nan(0x1)"), "%c = f32[] constant(nan(0x1))");
  EXPECT_EQ(ConstantLine("f32[]", "-nan(0x400000)"), "%c = f32[] constant(-nan)");
  // f64's default payload (2^51) means the target type's default.
  EXPECT_EQ(ConstantLine("f16[]", "nan(0x8000000000000)"), "%c = f16[] constant(nan)");
  EXPECT_EQ(ConstantLine("f64[]", "nan(0x8000000000001)"),
            "%c = f64[] constant(nan(0x8000000000001))");
  literal = ConstantOf("f16[]", "-nan(0x3ff)");
  ASSERT_TRUE(literal.ok());
  EXPECT_EQ(literal->GetBits(0), 0xFFFFu);
  // f8e5m2 has 2 mantissa bits, default payload 0x2.
  literal = ConstantOf("f8e5m2[2]", "{nan(0x1), nan}");
  ASSERT_TRUE(literal.ok());
  EXPECT_EQ(literal->GetBits(0), 0x7Du);
  EXPECT_EQ(literal->GetBits(1), 0x7Eu);
  EXPECT_EQ(ConstantLine("f8e5m2[2]", "{nan(0x1), nan(0x3)}"),
            "%c = f8e5m2[2] constant({nan(0x1), nan(0x3)})");
}

TEST(ParserXlaRulesTest, NanPayloadOutOfRangeIsAnError) {
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT c = bf16[1] constant({nan(0x3ff)})\n}\n"),
              HasSubstr("t.hlo:2:30: error: NaN payload 0x3ff is out of range for bf16 "
                        "(at most 0x7f)"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT c = f16[] constant(nan(0x400))\n}\n"),
              HasSubstr("NaN payload 0x400 is out of range for f16 (at most 0x3ff)"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT c = f32[] constant(nan(0x800000))\n}\n"),
              HasSubstr("NaN payload 0x800000 is out of range for f32"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT c = f8e4m3fn[1] constant({nan(0x1)})\n}\n"),
              HasSubstr("NaN payload 0x1 is not supported by f8e4m3fn"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT c = f8e4m3b11fnuz[1] constant({nan(0x1)})\n}\n"),
              HasSubstr("NaN payload 0x1 is not supported by f8e4m3b11fnuz"));
  // The number itself: nonzero and within a double's 52 mantissa bits.
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT c = f64[] constant(nan(0x0))\n}\n"),
              HasSubstr("NaN payload out of range"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT c = f64[] constant(nan(0x10000000000000))\n}\n"),
              HasSubstr("NaN payload out of range"));
}

TEST(ParserXlaRulesTest, FnuzNanPrintsNegative) {
  // The fnuz NaN is the -0 bit pattern; XLA prints it with its sign.
  EXPECT_EQ(ConstantLine("f8e4m3b11fnuz[2]", "{-nan, 7}"),
            "%c = f8e4m3b11fnuz[2] constant({-nan, 7})");
  EXPECT_EQ(ConstantLine("f8e4m3fnuz[1]", "{nan}"), "%c = f8e4m3fnuz[1] constant({-nan})");
  EXPECT_EQ(ConstantLine("f8e4m3fn[3]", "{nan, 7, -nan}"),
            "%c = f8e4m3fn[3] constant({nan, 7, -nan})");
}

TEST(ParserXlaRulesTest, SignatureResultMustMatchRoot) {
  EXPECT_THAT(ErrorOf("ENTRY e (p: f32[1,2]) -> f32[1] {\n  ROOT p = f32[1,2] parameter(0)\n}\n"),
              HasSubstr("t.hlo:1:26: error: shape of computation 'e', f32[1], is not "
                        "compatible with that of its root instruction 'p', f32[1,2]"));
  EXPECT_THAT(ErrorOf("ENTRY e () -> (f32[], s32[]) {\n  ROOT c = (f32[]) tuple(f32[] "
                      "constant(0))\n}\n"),
              HasSubstr("is not compatible"));
  EXPECT_THAT(ErrorOf("ENTRY e () -> s32[] {\n  ROOT c = f32[] constant(0)\n}\n"),
              HasSubstr("is not compatible"));
  // Layouts and dynamic-dimension marks are not compared.
  EXPECT_TRUE(ParseText("ENTRY e (p: f32[2,3]) -> f32[2,3]{0,1} {\n  ROOT p = f32[2,3]{1,0} "
                        "parameter(0)\n}\n")
                  .ok());
  EXPECT_TRUE(ParseText("ENTRY e (p: f32[<=3]) -> f32[3] {\n  ROOT p = f32[<=3] "
                        "parameter(0)\n}\n")
                  .ok());
}

constexpr std::string_view kBranches = R"(HloModule m
b0 {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
b1 {
  a = f32[] parameter(0)
  ROOT n = f32[] abs(a)
}
ENTRY e {
  x = f32[] parameter(0)
)";

std::string Conditional(std::string_view selector, std::string_view attrs) {
  return std::string(kBranches) + "  s = " + std::string(selector) +
         " parameter(1)\n  ROOT c = f32[] conditional(s, x, x), " + std::string(attrs) + "\n}\n";
}

TEST(ParserXlaRulesTest, ConditionalSpellingFollowsTheSelector) {
  EXPECT_TRUE(ParseText(Conditional("pred[]", "true_computation=b0, false_computation=b1")).ok());
  EXPECT_TRUE(ParseText(Conditional("s32[]", "branch_computations={b0, b1}")).ok());
  EXPECT_THAT(ErrorOf(Conditional("pred[]", "branch_computations={b0, b1}")),
              HasSubstr("unknown attribute 'branch_computations'"));
  EXPECT_THAT(ErrorOf(Conditional("pred[]", "true_computation=b0")),
              HasSubstr("missing required attribute 'false_computation'"));
  EXPECT_THAT(ErrorOf(Conditional("s32[]", "true_computation=b0, false_computation=b1")),
              HasSubstr("unknown attribute 'true_computation'"));
  EXPECT_THAT(ErrorOf(Conditional("s32[2]", "branch_computations={b0, b1}")),
              HasSubstr("the first operand of a conditional must be a scalar"));
  EXPECT_THAT(ErrorOf(Conditional("f32[]", "branch_computations={b0, b1}")),
              HasSubstr("must be a pred[] or s32[] scalar"));
}

TEST(ParserXlaRulesTest, PhysicalShapeOnlyInSparseLayouts) {
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT p = f32[10,10]{1,0:T(128,8)P(f32[10,10])} "
                      "parameter(0)\n}\n"),
              HasSubstr("t.hlo:2:35: error: layout has a physical shape but is not for a "
                        "sparse array"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT p = f32[10,10]{1,0:D(D,D)P(f32[10,10])} "
                      "parameter(0)\n}\n"),
              HasSubstr("not for a sparse array"));
  EXPECT_TRUE(ParseText("ENTRY e {\n  ROOT p = f32[10,10]{1,0:D(D,C)P(f32[100])} "
                        "parameter(0)\n}\n")
                  .ok());
}

std::string AsyncChain(std::string_view start_thread, std::string_view update_attr,
                       std::string_view done_attr) {
  return std::string(
             "ENTRY e {\n  p = f32[10] parameter(0)\n"
             "  s = ((f32[10]), f32[20], s32[]) custom-call-start(p), "
             "custom_call_target=\"foo\"") +
         std::string(start_thread) + "\n  u = ((f32[10]), f32[20], s32[]) custom-call-update(s)" +
         std::string(update_attr) + "\n  ROOT d = f32[20] custom-call-done(u)" +
         std::string(done_attr) + "\n}\n";
}

TEST(ParserXlaRulesTest, AsyncThreadMustMatchTheStart) {
  EXPECT_THAT(ErrorOf(AsyncChain("", ", async_execution_thread=\"foo_thread\"", "")),
              HasSubstr("t.hlo:4:35: error: async_execution_thread=\"foo_thread\" differs "
                        "from the async-start's \"main\""));
  EXPECT_THAT(ErrorOf(AsyncChain("", "", ", async_execution_thread=\"foo_thread\"")),
              HasSubstr("differs from the async-start's \"main\""));
  // Writing "main" against another thread is a difference too.
  EXPECT_THAT(ErrorOf(AsyncChain(", async_execution_thread=\"t\"", "",
                                 ", async_execution_thread=\"main\"")),
              HasSubstr("async_execution_thread=\"main\" differs from the async-start's \"t\""));
  auto module =
      ParseText(AsyncChain(", async_execution_thread=\"t\"", ", async_execution_thread=\"t\"", ""));
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(Root(**module)->attrs<AsyncAttrs>().execution_thread, "t");
}

TEST(ParserXlaRulesTest, ResultAccuracyModes) {
  for (std::string_view mode : {"highest", "default", "HIGHEST", "DEFAULT"}) {
    auto module = ParseText(std::string("ENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = f32[] "
                                        "exponential(x), result_accuracy={mode=") +
                            std::string(mode) + "}\n}\n");
    ASSERT_TRUE(module.ok()) << module.status();
    EXPECT_EQ(Root(**module)->attrs<AccuracyAttrs>().accuracy.mode, mode);
  }
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = f32[] parameter(0)\n  ROOT y = f32[] exponential(x), "
                      "result_accuracy={mode=high}\n}\n"),
              HasSubstr("t.hlo:3:56: error: expected a result_accuracy mode (default or "
                        "highest), got 'high'"));
}

TEST(ParserXlaRulesTest, CustomCallTupleLiteralWritesEveryElementShape) {
  const std::string line =
      "%cc = f32[2] custom-call(), custom_call_target=\"t\", literal=( s32[4]{0} "
      "{4, 128, 128, 3}, ( pred[2]{0} {1, 0}, f32[] 0.5 ) )";
  auto module = ParseText("ENTRY e {\n  ROOT " + line + "\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  const auto& literal = *Root(**module)->attrs<CustomCallAttrs>().literal;
  ASSERT_TRUE(literal.shape().IsTuple());
  ASSERT_EQ(literal.tuple_elements().size(), 2u);
  EXPECT_EQ(literal.tuple_elements()[0].GetInt64(3), 3);
  const Literal& inner = literal.tuple_elements()[1];
  ASSERT_EQ(inner.tuple_elements().size(), 2u);
  EXPECT_EQ(inner.tuple_elements()[0].GetInt64(0), 1);
  EXPECT_EQ(inner.tuple_elements()[1].GetDouble(0), 0.5);
  EXPECT_EQ(PrintInstruction(*Root(**module)), line);
  // An element without its shape is refused at the value.
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT cc = f32[2] custom-call(), custom_call_target=\"t\", "
                      "literal=( s32[1]{0} {4}, {1} )\n}\n"),
              HasSubstr("t.hlo:2:84: error:"));
}

TEST(ParserXlaRulesTest, CustomCallComputationsPrintAsAList) {
  auto module = ParseText(
      "HloModule m\n\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n"
      "  %y = f32[] parameter(1)\n  ROOT %z = f32[] add(%x, %y)\n}\n\n"
      "ENTRY e {\n  ROOT cc = f32[2] custom-call(), custom_call_target=\"t\", to_apply=add\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(PrintInstruction(*Root(**module)),
            "%cc = f32[2] custom-call(), custom_call_target=\"t\", called_computations={%add}");
}

TEST(ParserXlaRulesTest, WrittenOperandShapeIgnoresDynamicMarks) {
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

TEST(ParserXlaRulesTest, WrittenOperandShapeStillChecksSizesAndTypes) {
  auto wrong_size =
      ParseText("ENTRY e {\n  a = s32[3] parameter(0)\n  ROOT n = s32[3] negate(s32[<=4] a)\n}\n");
  ASSERT_FALSE(wrong_size.ok());
  EXPECT_THAT(wrong_size.status().message(), HasSubstr("operand shape s32[<=4] differs"));
  auto wrong_type =
      ParseText("ENTRY e {\n  a = s32[3] parameter(0)\n  ROOT n = s32[3] negate(u32[3] a)\n}\n");
  EXPECT_FALSE(wrong_type.ok());
}

TEST(ParserXlaRulesTest, OriginalValueIsTheOldSpellingOfOrigin) {
  auto module =
      ParseText("ENTRY e {\n  ROOT p = f32[2] parameter(0), original_value={{\"p\"}}\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* root = (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(root->origin(), R"({{"p"}})");
  EXPECT_EQ(PrintInstruction(*root), R"(%p = f32[2] parameter(0), origin={{"p"}})");
}

// XLA's structured-sparse dot: `sparsity=L.1@2:4` (operand, dimension, n:m),
// one u16 metadata operand per sparse operand after lhs and rhs.
constexpr std::string_view kSparseDot =
    "ENTRY e {\n  a = f32[2,8] parameter(0)\n  b = f32[16,4] parameter(1)\n"
    "  m = u16[2,1] parameter(2)\n"
    "  ROOT d = f32[2,4] dot(a, b, m), lhs_contracting_dims={1}, "
    "rhs_contracting_dims={0}, sparsity=L.1@2:4\n}\n";

TEST(ParserXlaRulesTest, SparseDotParsesAndPrints) {
  auto module = ParseText(kSparseDot);
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction* dot = Root(**module);
  ASSERT_EQ(dot->operand_count(), 3);
  const auto& sparsity = dot->attrs<DotAttrs>().sparsity;
  ASSERT_EQ(sparsity.size(), 1u);
  EXPECT_EQ(sparsity[0], (SparsityDescriptor{0, 1, 2, 4}));
  const std::string printed = PrintModule(**module);
  EXPECT_THAT(printed, HasSubstr("dot(%a, %b, %m), lhs_contracting_dims={1}, "
                                 "rhs_contracting_dims={0}, sparsity=L.1@2:4"));
  auto reparsed = ParseText(printed);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_EQ(PrintModule(**reparsed), printed);
}

TEST(ParserXlaRulesTest, SparseDotOnBothOperands) {
  auto module = ParseText(
      "ENTRY e {\n  a = f32[2,8] parameter(0)\n  b = f32[8,4] parameter(1)\n"
      "  ma = u16[2,1] parameter(2)\n  mb = u16[1,4] parameter(3)\n"
      "  ROOT d = f32[2,4] dot(a, b, ma, mb), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}, sparsity=L.1@2:4_R.0@2:4\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  const auto& sparsity = Root(**module)->attrs<DotAttrs>().sparsity;
  ASSERT_EQ(sparsity.size(), 2u);
  EXPECT_EQ(sparsity[1], (SparsityDescriptor{1, 0, 2, 4}));
  EXPECT_THAT(PrintModule(**module), HasSubstr("sparsity=L.1@2:4_R.0@2:4"));
}

TEST(ParserXlaRulesTest, SparseDotErrors) {
  auto with = [](std::string_view sparsity, std::string_view operands = "a, b, m") {
    return ErrorOf(std::string("ENTRY e {\n  a = f32[2,8] parameter(0)\n  b = f32[16,4] "
                               "parameter(1)\n  m = u16[2,1] parameter(2)\n  ROOT d = f32[2,4] "
                               "dot(") +
                   std::string(operands) + "), lhs_contracting_dims={1}, rhs_contracting_dims={0}" +
                   std::string(sparsity) + "\n}\n");
  };
  EXPECT_THAT(with(""), HasSubstr("5:21: error: dot expects 2 operands"));
  EXPECT_THAT(with(", sparsity=L.1@2:4", "a, b"), HasSubstr("dot expects 3 operands"));
  EXPECT_THAT(with(", sparsity=L1@2:4"), HasSubstr("expected a sparsity descriptor like"));
  EXPECT_THAT(with(", sparsity=X.1@2:4"), HasSubstr("(L or R first)"));
  EXPECT_THAT(with(", sparsity=L.1@4:2"), HasSubstr("structured sparsity 4:2 needs 1 <= n < m"));
  EXPECT_THAT(with(", sparsity=L.1@2:4_L.0@2:4"),
              HasSubstr("two sparsity descriptors for the lhs"));
  EXPECT_THAT(with(", sparsity=L.1@2:99999999999999999999"),
              HasSubstr("expected a sparsity descriptor like"));
}

// The dot a dot-start wraps is held to the same operand count, reported at the
// dot-start's opcode.
TEST(ParserXlaRulesTest, SparseDotStartNeedsItsMetadataOperand) {
  EXPECT_THAT(ErrorOf("ENTRY e {\n  a = f32[2,8] parameter(0)\n  b = f32[16,4] parameter(1)\n"
                      "  s = ((f32[2,8], f32[16,4]), f32[2,4], s32[]) dot-start(a, b), "
                      "lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=L.1@2:4\n"
                      "  ROOT d = f32[2,4] dot-done(s)\n}\n"),
              HasSubstr("4:48: error: dot expects 3 operands"));
}

}  // namespace
}  // namespace xlite
