// Round trip of the text format over a module that uses every opcode and
// attribute form: the file is in canonical form, so printing what was parsed
// gives it back byte for byte, and re-parsing the print gives an equal module.
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/ascii.h"
#include "gtest/gtest.h"
#include "xlite/ir/equality.h"
#include "xlite/ir/opcode.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite {
namespace {

std::string ReadAllOpcodes() {
  std::ifstream in(std::string(XLITE_SOURCE_DIR) + "/xlite/text/testdata/all_opcodes.hlo");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Trimmed(std::string_view s) {
  auto t = absl::StripAsciiWhitespace(absl::string_view(s.data(), s.size()));
  return std::string(t.data(), t.size());
}

TEST(RoundTripTest, AllOpcodesFileIsCanonical) {
  std::string text = ReadAllOpcodes();
  ASSERT_FALSE(text.empty());
  std::vector<InputChunk> chunks = SplitInputFile(text);
  ASSERT_GE(chunks.size(), 5u);
  for (const InputChunk& chunk : chunks) {
    auto module = ParseHloModule(chunk.text);
    ASSERT_TRUE(module.ok()) << module.status();
    EXPECT_EQ(Trimmed(PrintModule(**module)), Trimmed(chunk.text));
  }
}

TEST(RoundTripTest, ReparsedPrintIsEqual) {
  std::string text = ReadAllOpcodes();
  for (const InputChunk& chunk : SplitInputFile(text)) {
    auto module = ParseHloModule(chunk.text);
    ASSERT_TRUE(module.ok()) << module.status();
    // Lossless with async chains explicit; sugar drops only the names of
    // the wrapped computations, and its text is a fixed point too.
    PrintOptions explicit_async;
    explicit_async.async_sugar = false;
    auto again = ParseHloModule(PrintModule(**module, explicit_async));
    ASSERT_TRUE(again.ok()) << again.status();
    std::string difference;
    EXPECT_TRUE(ModulesEqual(**module, **again, &difference)) << difference;
    std::string printed = PrintModule(**module);
    auto sugared = ParseHloModule(printed);
    ASSERT_TRUE(sugared.ok()) << sugared.status();
    EXPECT_EQ(PrintModule(**sugared), printed);
  }
}

TEST(RoundTripTest, EveryOpcodeAppears) {
  std::string text = ReadAllOpcodes();
  bool seen[kNumOpcodes] = {};
  for (const InputChunk& chunk : SplitInputFile(text)) {
    auto module = ParseHloModule(chunk.text);
    ASSERT_TRUE(module.ok()) << module.status();
    for (const auto& c : (*module)->computations()) {
      for (const auto& inst : c->instructions()) seen[static_cast<int>(inst->opcode())] = true;
    }
  }
  for (int i = 0; i < kNumOpcodes; ++i) {
    EXPECT_TRUE(seen[i]) << "no instruction uses " << OpcodeName(static_cast<HloOpcode>(i));
  }
}

TEST(RoundTripTest, OperandShapesOptionParsesBack) {
  std::string text = ReadAllOpcodes();
  PrintOptions options;
  options.print_operand_shapes = true;
  for (const InputChunk& chunk : SplitInputFile(text)) {
    auto module = ParseHloModule(chunk.text);
    ASSERT_TRUE(module.ok()) << module.status();
    auto again = ParseHloModule(PrintModule(**module, options));
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(PrintModule(**again), PrintModule(**module));
  }
}

}  // namespace
}  // namespace xlite
