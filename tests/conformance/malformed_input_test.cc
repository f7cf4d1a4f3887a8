// Malformed input never crashes the parser, verifier or printer: truncated
// real modules, random byte flips, garbage, unbalanced brackets and deep
// nesting. Text that cannot be a module must be refused with a status.
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/conformance/corpus.h"
#include "xlite/analysis/verifier.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite::conformance {
namespace {

// Parses `text` and, when it parses, also verifies and prints it: whatever
// the parser accepts must be safe for the later stages too.
bool ParsesAndSurvives(const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) {
    EXPECT_FALSE(module.status().message().empty());
    return false;
  }
  (void)VerifyModule(**module);
  EXPECT_FALSE(PrintModule(**module).empty());
  return true;
}

// The example module plus the small corpus modules (a spread of opcodes and
// attributes cheap enough to cut at every offset).
std::vector<std::string> SampleTexts() {
  std::vector<std::string> texts = {ReadFileOrDie(XLITE_SOURCE_DIR "/examples/mlp.hlo")};
  constexpr uintmax_t kMaxBytes = 3000;
  constexpr size_t kMaxFiles = 12;
  std::vector<std::string> small;
  for (const std::string& path : CorpusFiles()) {
    if (std::filesystem::file_size(path) <= kMaxBytes) small.push_back(path);
  }
  const size_t stride = small.size() / kMaxFiles + 1;
  for (size_t i = 0; i < small.size(); i += stride) {
    const std::string text = ReadFileOrDie(small[i]);
    for (const InputChunk& chunk : SplitInputFile(text)) texts.emplace_back(chunk.text);
  }
  return texts;
}

// A prefix whose last non-comment text is a closing brace may be a complete
// module (e.g. the computations before the entry); any other cut must be
// refused.
bool MayBeComplete(std::string prefix) {
  while (true) {
    const size_t last = prefix.find_last_not_of(" \t\r\n");
    if (last == std::string::npos) return false;
    prefix.resize(last + 1);
    const size_t line_start = prefix.rfind('\n') + 1;  // 0 when no newline
    const size_t comment = prefix.find("//", line_start);
    if (comment == std::string::npos) return prefix.back() == '}';
    prefix.resize(comment);
  }
}

TEST(MalformedInputTest, TruncationsAreRefused) {
  for (const std::string& text : SampleTexts()) {
    for (size_t length = 0; length < text.size(); ++length) {
      const std::string prefix = text.substr(0, length);
      const bool parsed = ParsesAndSurvives(prefix);
      if (!MayBeComplete(prefix)) {
        EXPECT_FALSE(parsed) << "accepted a truncation to " << length << " bytes of:\n"
                             << text.substr(0, 200);
      }
    }
  }
}

TEST(MalformedInputTest, ByteFlipsDoNotCrash) {
  std::mt19937 rng(20260101);
  for (const std::string& text : SampleTexts()) {
    std::uniform_int_distribution<size_t> position(0, text.size() - 1);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int i = 0; i < 300; ++i) {
      std::string flipped = text;
      flipped[position(rng)] = static_cast<char>(byte(rng));
      ParsesAndSurvives(flipped);
    }
  }
}

TEST(MalformedInputTest, GarbageIsRefused) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 600);
  for (int i = 0; i < 300; ++i) {
    std::string garbage(length(rng), '\0');
    for (char& c : garbage) c = static_cast<char>(byte(rng));
    EXPECT_FALSE(ParsesAndSurvives(garbage));
  }
}

TEST(MalformedInputTest, TokenSoupDoesNotCrash) {
  // Pieces of real syntax in random order reach deeper into the parser than
  // random bytes do.
  const std::vector<std::string> pieces = {"HloModule m",
                                           "ENTRY",
                                           "%e",
                                           "%p",
                                           "=",
                                           "(",
                                           ")",
                                           "{",
                                           "}",
                                           "[",
                                           "]",
                                           ",",
                                           "->",
                                           "f32[2,3]",
                                           "f32[]",
                                           "s32[<=4]",
                                           "{1,0}",
                                           "(f32[], s32[])",
                                           "parameter(0)",
                                           "constant({1, 2})",
                                           "add(%p, %p)",
                                           "ROOT",
                                           "dimensions={0}",
                                           "to_apply=%e",
                                           "sharding={devices=[2,1]0,1}",
                                           "metadata={op_name=\"x\"}",
                                           "\n",
                                           "/*",
                                           "*/",
                                           "\"",
                                           "-inf",
                                           "1e400",
                                           "99999999999999999999",
                                           ":",
                                           "T(8,128)",
                                           "replica_groups={{0,1}}",
                                           "backend_config={\"a\":{\"b\":[1,{}]}}",
                                           "tuple()",
                                           "get-tuple-element(%p), index=9"};
  std::mt19937 rng(11);
  std::uniform_int_distribution<size_t> piece(0, pieces.size() - 1);
  std::uniform_int_distribution<int> count(1, 60);
  for (int i = 0; i < 2000; ++i) {
    std::string soup;
    for (int n = count(rng); n > 0; --n) soup += pieces[piece(rng)] + " ";
    ParsesAndSurvives(soup);
  }
}

TEST(MalformedInputTest, UnbalancedBracketsAreRefused) {
  const std::string text = ReadFileOrDie(XLITE_SOURCE_DIR "/examples/mlp.hlo");
  ASSERT_TRUE(ParsesAndSurvives(text));
  const size_t last_brace = text.rfind('}');
  const size_t entry_brace = text.find("{\n", text.find("ENTRY"));
  const size_t first_paren = text.find(')', entry_brace);
  const std::vector<std::string> broken = {
      text.substr(0, last_brace) + text.substr(last_brace + 1),
      text + "}\n",
      text.substr(0, entry_brace + 1) + "{" + text.substr(entry_brace + 1),
      text.substr(0, first_paren) + text.substr(first_paren + 1),
      text.substr(0, first_paren) + "))" + text.substr(first_paren + 1),
  };
  for (const std::string& b : broken) EXPECT_FALSE(ParsesAndSurvives(b)) << b;
}

TEST(MalformedInputTest, DeepNestingAndUnterminatedTokensAreRefused) {
  constexpr int kDepth = 100000;
  const std::string open_parens(kDepth, '('), close_parens(kDepth, ')');
  const std::string open_braces(kDepth, '{'), close_braces(kDepth, '}');
  const std::vector<std::string> inputs = {
      "HloModule m\nENTRY %e () -> " + open_parens + "f32[]" + close_parens + " {\n}\n",
      "HloModule m\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(" + open_braces + "1" +
          close_braces + ")\n}\n",
      "HloModule m\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(1), sharding=" +
          open_braces + close_braces + "\n}\n",
      "HloModule m\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(1), backend_config=" +
          open_braces + "\n}\n",
      "HloModule m\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(1) /* no end\n}\n",
      "HloModule m\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(1), "
      "metadata={op_name=\"no end\n}\n",
      "HloModule m\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(1), "
      "metadata={op_name=\"x\\",
  };
  for (const std::string& input : inputs) {
    EXPECT_FALSE(ParsesAndSurvives(input)) << input.substr(0, 120);
  }
}

}  // namespace
}  // namespace xlite::conformance
