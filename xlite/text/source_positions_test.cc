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

}  // namespace
}  // namespace xlite
