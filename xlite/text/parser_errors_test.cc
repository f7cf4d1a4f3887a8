#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/ir/computation.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;

// The error text of parsing `text` (which must fail).
std::string ErrorOf(std::string_view text, int64_t line_offset = 0) {
  ParseOptions options;
  options.filename = "t.hlo";
  options.line_offset = line_offset;
  auto module = ParseHloModule(text, options);
  EXPECT_FALSE(module.ok());
  return module.ok() ? "" : std::string(module.status().message());
}

constexpr std::string_view kValid = R"(HloModule m

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (x: f32[4]) -> f32[] {
  %x = f32[4]{0} parameter(0), sharding={devices=[2]0,1}
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(%x, %z), dimensions={0}, to_apply=%add, metadata={op_name="r"}
}
)";

TEST(ParserErrorsTest, PositionSourceLineAndCaret) {
  std::string error = ErrorOf("HloModule m\nENTRY e {\n  x = f32[] frobnicate()\n}\n", 10);
  EXPECT_EQ(error,
            "t.hlo:13:13: error: unknown opcode 'frobnicate'\n"
            "  x = f32[] frobnicate()\n"
            "            ^");
}

TEST(ParserErrorsTest, LongLinesAreQuotedAroundTheColumn) {
  const std::string padding(100000, ' ');
  std::string error = ErrorOf("ENTRY e {\n  x = f32[] parameter(0)" + padding + "@\n}\n");
  EXPECT_THAT(error, HasSubstr("2:100025: error: unexpected character '@'\n..."));
  EXPECT_LT(error.size(), 600u);
  // The caret still points at the '@'.
  const size_t quoted = error.find('\n') + 1, caret = error.find('\n', quoted) + 1;
  EXPECT_EQ(error[quoted + (error.size() - caret) - 1], '@');
}

TEST(ParserErrorsTest, EachStructuralError) {
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = f32[] constant(1), foo=1\n}"),
              HasSubstr("2:26: error: unknown attribute 'foo'"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  p = f32[2] parameter(0)\n  x = f32[2] broadcast(p), "
                      "dimensions={0}, dimensions={0}\n}"),
              HasSubstr("3:44: error: duplicate attribute 'dimensions'"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  p = f32[2] parameter(0)\n  x = f32[2] broadcast(p)\n}"),
              HasSubstr("3:14: error: missing required attribute 'dimensions'"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = f32[] negate(y)\n}"),
              HasSubstr("2:20: error: undefined operand 'y'"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  p = f32[2] parameter(0)\n  x = f32[] reduce(p, p), "
                      "dimensions={0}, to_apply=%nowhere\n}"),
              HasSubstr("error: undefined computation 'nowhere'"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = f32[2] constant({1, 2, 3})\n}"),
              HasSubstr("2:30: error: too many elements in literal dimension 0 (size 2)"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = f32[3] constant({1, 2})\n}"),
              HasSubstr("2:23: error: literal dimension 0 has 2 elements, expected 3"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = s8[] constant(128)\n}"),
              HasSubstr("error: value 128 is out of range for s8"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = u8[] constant(-1)\n}"),
              HasSubstr("error: value -1 is out of range for u8"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = f16[] constant(1e10)\n}"),
              HasSubstr("error: value 1e10 is out of range for f16"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = f32[1000000000000] constant({1})\n}"),
              HasSubstr("literal dimension 0 has 1 elements"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = f32[] constant(1)\n  x = f32[] constant(2)\n}"),
              HasSubstr("3:3: error: duplicate instruction name 'x'"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT x = f32[] constant(1)\n  ROOT y = f32[] constant(2)\n}"),
              HasSubstr("error: more than one ROOT instruction"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = f32[] parameter(0)\n  y = f32[] parameter(0)\n}"),
              HasSubstr("error: duplicate parameter number 0"));
  EXPECT_THAT(ErrorOf("a {\n  x = f32[] constant(1)\n}\na {\n  y = f32[] constant(1)\n}"),
              HasSubstr("4:1: error: duplicate computation name 'a'"));
  EXPECT_THAT(
      ErrorOf("ENTRY a {\n  x = f32[] constant(1)\n}\nENTRY b {\n  y = f32[] constant(1)\n}"),
      HasSubstr("error: more than one ENTRY computation"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = f32[] negate()\n}"),
              HasSubstr("error: negate expects 1 operand, got 0"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  x = f32[2]{0} parameter(0), sharding={maximal}\n}"),
              HasSubstr("error: maximal sharding needs device=N"));
  EXPECT_THAT(
      ErrorOf("ENTRY e {\n  x = f32[2] parameter(0)\n  y = f32[2] pad(x, x), padding=1_2_3_4\n}"),
      HasSubstr("3:33: error: malformed number"));
  EXPECT_THAT(ErrorOf("HloModule m, bogus=1\nENTRY e {\n  x = f32[] constant(1)\n}"),
              HasSubstr("error: unknown module attribute 'bogus'"));
}

// A nested operand instruction takes no attributes (the comma starts the next
// operand), and its own operands must still be defined.
TEST(ParserErrorsTest, NestedOperandInstructions) {
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT y = f32[2] negate(f32[2] parameter(0), "
                      "sharding={replicated})\n}"),
              HasSubstr("error: expected an operand name"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT y = f32[2] negate(f32[2] negate(x))\n}"),
              HasSubstr("undefined operand 'x'"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT y = f32[2] negate(f32[2] frob(x))\n}"),
              HasSubstr("unknown opcode 'frob'"));
}

TEST(ParserErrorsTest, BufferShapes) {
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT p = b((f32[])) parameter(0)\n}"),
              HasSubstr("2:12: error: a buffer shape must hold an array shape"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT p = b(b(f32[])) parameter(0)\n}"),
              HasSubstr("a buffer shape must hold an array shape"));
  EXPECT_THAT(ErrorOf("ENTRY e {\n  ROOT p = b(f32[2] parameter(0)\n}"),
              HasSubstr("expected ')' closing the buffer shape"));
}

TEST(ParserErrorsTest, MeshReplicaGroups) {
  auto groups = [](const std::string& text) {
    return ErrorOf(
        absl::StrCat("ENTRY e {\n  p = f32[4] parameter(0)\n"
                     "  ROOT r = f32[4] all-gather(p), dimensions={0}, replica_groups=",
                     text, "\n}"));
  };
  EXPECT_THAT(groups("mesh['a'=2] {'b'}"), HasSubstr("no mesh axis 'b'"));
  EXPECT_THAT(groups("mesh['a'=2,'a'=2] {}"), HasSubstr("duplicate mesh axis 'a'"));
  EXPECT_THAT(groups("mesh['a'=0] {}"), HasSubstr("invalid mesh axis size"));
  EXPECT_THAT(groups("mesh['a'=2] {'a','a'}"), HasSubstr("'a' (replica groups) overlaps 'a'"));
  EXPECT_THAT(groups("mesh[] {}"), HasSubstr("a mesh needs at least one axis"));
  EXPECT_THAT(groups("mesh['a'=2]"), HasSubstr("expected"));
  // Every error points at the text: line 3, the column of `mesh`.
  EXPECT_THAT(groups("mesh['a'=4] {'a':(1)2,'a':(2)2}"),
              HasSubstr("3:65: error: mesh replica_groups: replica group axes 'a':(1)2 and "
                        "'a':(2)2 should be written as one"));
  EXPECT_THAT(groups("mesh['a'=4] {'a':(3)2}"), HasSubstr("sub-axis 'a':(3)2 does not fit"));
  EXPECT_THAT(groups("mesh['a'=8] {'a':(1)4,'a':(2)2}"), HasSubstr("overlaps"));
  EXPECT_THAT(groups("mesh['a'=4,'b'=2], device_ids=([4,4]) {'a'}"),
              HasSubstr("iota reshape has 16 devices but 8"));
  EXPECT_THAT(groups("mesh['a'=4,'b'=2], device_ids=([2,4]T(1,1)) {'a'}"),
              HasSubstr("not a permutation"));
  EXPECT_THAT(groups("mesh['a'=2,'b'=2], device_ids=(0,1,2) {'a'}"),
              HasSubstr("mesh device_ids name 3 devices, the mesh has 4"));
  EXPECT_THAT(groups("mesh['a'=2,'b'=2], device_ids=(0,1,1,3) {'a'}"),
              HasSubstr("device_ids must be a permutation of 0..3"));
  EXPECT_THAT(groups("mesh['a'=2,'b'=2], device_ids=(0,1 {'a'}"), HasSubstr("expected"));
  EXPECT_THAT(groups("mesh['a'=2,'b'=2], ids=(0,1,2,3) {'a'}"),
              HasSubstr("expected device_ids= after the mesh of replica_groups"));
}

TEST(ParserErrorsTest, NotSupportedYet) {
  // Every caller infers a left-out shape with xlite/inference's rules.
  auto inferred = ParseHloModule(
      "ENTRY e {\n  x = f32[2,3] parameter(0)\n  y = transpose(x), "
      "dimensions={1,0}\n}");
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)->entry_computation()->root_instruction()->shape().ToString(false),
            "f32[3,2]");
  auto mismatched = ParseHloModule(
      "ENTRY e {\n  x = f32[2] parameter(0)\n  y = f32[3] "
      "parameter(1)\n  z = add(x, y)\n}");
  EXPECT_THAT(std::string(mismatched.status().message()),
              HasSubstr("4:7: error: cannot infer the result shape of add"));
  // reshape declares its shape: never inferred.
  auto declared = ParseHloModule("ENTRY e {\n  x = f32[2] parameter(0)\n  y = reshape(x)\n}");
  EXPECT_THAT(std::string(declared.status().message()),
              HasSubstr("3:7: error: reshape needs a result shape"));
}

TEST(ParserErrorsTest, EveryPrefixOfAValidModuleIsHandled) {
  ASSERT_TRUE(ParseHloModule(kValid).ok());
  for (size_t n = 0; n < kValid.size(); ++n) {
    auto module = ParseHloModule(kValid.substr(0, n));
    // Only prefixes that end a computation form a module.
    std::string_view prefix = kValid.substr(0, n);
    size_t last = prefix.find_last_not_of(" \n");
    bool ends_computation = last != std::string_view::npos && last > 0 && prefix[last] == '}' &&
                            prefix[last - 1] == '\n';
    EXPECT_EQ(module.ok(), ends_computation) << n;
  }
}

TEST(ParserErrorsTest, EverySingleByteCorruptionIsHandled) {
  const std::string bytes = "{}()[],=:%\"'\n\x01\xff-0x";
  for (size_t i = 0; i < kValid.size(); i += 3) {
    for (char b : bytes) {
      std::string text(kValid);
      text[i] = b;
      (void)ParseHloModule(text);  // must return, whatever the status
    }
  }
}

TEST(ParserErrorsTest, DeepNestingIsAnError) {
  std::string shape(5000, '(');
  EXPECT_THAT(std::string(ParseShape(shape).status().message()),
              HasSubstr("nesting deeper than 1000 levels"));
  std::string literal = "ENTRY e {\n  x = f32[1] constant(" + std::string(5000, '{') + ")\n}";
  EXPECT_FALSE(ParseHloModule(literal).ok());
  std::string sharding(5000, '{');
  EXPECT_FALSE(ParseSharding(sharding).ok());
  std::string json =
      "ENTRY e {\n  x = f32[] constant(1), backend_config=" + std::string(100000, '{') + "\n}";
  EXPECT_THAT(std::string(ParseHloModule(json).status().message()),
              HasSubstr("unbalanced '{' in backend_config"));
  std::string rank = "f32[" + std::string(20000, '1') + "]";
  EXPECT_FALSE(ParseShape(rank).ok());
}

TEST(ParserErrorsTest, HugeValues) {
  EXPECT_FALSE(ParseHloModule("ENTRY e {\n  x = f32[] parameter(99999999999)\n}").ok());
  auto elided = ParseHloModule("ENTRY e {\n  x = f32[99999999999,99999] constant({...})\n}");
  EXPECT_EQ(elided.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_FALSE(ParseShape("f32[99999999999999999999]").ok());
  EXPECT_THAT(std::string(ParseShape("f32[2,3]{1,1}").status().message()),
              HasSubstr("not a permutation"));
}

}  // namespace
}  // namespace xlite
