#include "xlite/text/source_positions.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xlite/ir/computation.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

void ExpectAt(LineCounter& lines, size_t offset, int64_t line, int64_t column) {
  SourcePosition position = lines.At(offset);
  EXPECT_EQ(position.line, line) << "offset " << offset;
  EXPECT_EQ(position.column, column) << "offset " << offset;
}

TEST(LineCounterTest, CountsEveryKindOfLineEnd) {
  // Lines: "ab", "c" (after \r\n), "d" (after a lone \r), "" and "e".
  LineCounter lines("ab\r\nc\rd\n\ne");
  ExpectAt(lines, 0, 1, 1);
  ExpectAt(lines, 1, 1, 2);
  ExpectAt(lines, 4, 2, 1);
  ExpectAt(lines, 6, 3, 1);
  ExpectAt(lines, 9, 5, 1);
  // Past the end is the end; an earlier offset counts again from the start.
  ExpectAt(lines, 100, 5, 2);
  ExpectAt(lines, 5, 2, 2);
}

TEST(LineCounterTest, SplitCrLfIsOneLineEnd) {
  // Asking for the offset between \r and \n must not count the \n again.
  LineCounter lines("a\r\nb");
  ExpectAt(lines, 2, 2, 1);
  ExpectAt(lines, 3, 2, 1);
}

TEST(SourcePositionsTest, ParserRecordsEachInstructionWhereItStarts) {
  const std::string text =
      "HloModule m\n"
      "\n"
      "%add (a: f32[], b: f32[]) -> f32[] {\n"
      "  %a = f32[] parameter(0)\n"
      "  %b = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(%a, %b)\n"
      "}\n"
      "\n"
      "ENTRY %main (x: f32[4]) -> f32[] {\n"
      "    %x = f32[4] parameter(0)\n"
      "  %zero = f32[] constant(0)\n"
      "  ROOT %r = f32[] reduce(%x, %zero), dimensions={0}, to_apply=%add\n"
      "}\n";
  SourcePositions positions;
  ParseOptions options;
  options.line_offset = 10;
  options.positions = &positions;
  auto module = ParseHloModule(text, options);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto position_of = [&](const std::string& computation, const std::string& name) {
    const HloComputation* c = (*module)->GetComputation(computation);
    EXPECT_NE(c, nullptr) << computation;
    const HloInstruction* found = nullptr;
    for (const auto& inst : c->instructions()) {
      if (inst->name() == name) found = inst.get();
    }
    EXPECT_NE(found, nullptr) << name;
    return positions.Find(found);
  };
  std::optional<SourcePosition> s = position_of("add", "s");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->line, 16);
  EXPECT_EQ(s->column, 3);
  std::optional<SourcePosition> x = position_of("main", "x");
  ASSERT_TRUE(x.has_value());
  EXPECT_EQ(x->line, 20);
  EXPECT_EQ(x->column, 5);
  std::optional<SourcePosition> r = position_of("main", "r");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->line, 22);
  EXPECT_FALSE(positions.Find(nullptr).has_value());
}

// What async sugar makes up (the wrapper computation, its parameters and the
// wrapped op) sits on the line of the start that implies it, so that the
// verifier's complaints about the wrapped op point there.
TEST(SourcePositionsTest, AsyncSugarInstructionsTakeTheStartsPosition) {
  const std::string text =
      "HloModule m\n"
      "ENTRY %main (x: f32[2,3], y: f32[3,5]) -> f32[2,5] {\n"
      "  %x = f32[2,3] parameter(0)\n"
      "  %y = f32[3,5] parameter(1)\n"
      "  %st = ((f32[2,3], f32[3,5]), f32[2,5], s32[]) dot-start(%x, %y), "
      "lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  ROOT %dn = f32[2,5] dot-done(%st)\n"
      "}\n";
  SourcePositions positions;
  ParseOptions options;
  options.positions = &positions;
  auto module = ParseHloModule(text, options);
  ASSERT_TRUE(module.ok()) << module.status().message();
  const HloComputation* wrapper = (*module)->GetComputation("async_wrapped");
  ASSERT_NE(wrapper, nullptr);
  ASSERT_EQ(wrapper->instructions().size(), 3u);
  for (const auto& inst : wrapper->instructions()) {
    std::optional<SourcePosition> at = positions.Find(inst.get());
    ASSERT_TRUE(at.has_value()) << inst->name();
    EXPECT_EQ(at->line, 5) << inst->name();
    EXPECT_EQ(at->column, 3) << inst->name();
  }
}

}  // namespace
}  // namespace xlite
