// Every module of the real-world corpus parses, verifies (except the one
// known-invalid file, which must be refused) and round-trips through the
// printer: print(parse(print(parse(text)))) == print(parse(text)).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/conformance/corpus.h"
#include "xlite/analysis/verifier.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite::conformance {
namespace {

constexpr char kInvalidFile[] = "xla__tools__tests__data__invalid_concat.hlo";

// The first line where `a` and `b` differ, for a readable failure.
std::string FirstDifference(const std::string& a, const std::string& b) {
  size_t line_start = 0;
  int64_t line = 1;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] != b[i]) break;
    if (a[i] == '\n') {
      line_start = i + 1;
      ++line;
    }
  }
  auto line_of = [line_start](const std::string& s) {
    if (line_start >= s.size()) return std::string("<end of text>");
    return s.substr(line_start, s.find('\n', line_start) - line_start);
  };
  return "line " + std::to_string(line) + ":\n  first:  " + line_of(a) +
         "\n  second: " + line_of(b);
}

class CorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusTest, ParsesVerifiesAndRoundTrips) {
  const std::string& path = GetParam();
  const bool must_be_invalid = path.ends_with(kInvalidFile);
  const std::string text = ReadFileOrDie(path);
  for (const InputChunk& chunk : SplitInputFile(text)) {
    SCOPED_TRACE(path + ":" + std::to_string(chunk.first_line + 1));
    ParseOptions options;
    options.filename = path;
    options.line_offset = chunk.first_line;
    auto module = ParseHloModule(chunk.text, options);
    ASSERT_TRUE(module.ok()) << module.status();

    const absl::Status verified = VerifyModule(**module);
    if (must_be_invalid) {
      EXPECT_FALSE(verified.ok()) << "the verifier accepted " << kInvalidFile;
    } else {
      EXPECT_TRUE(verified.ok()) << verified;
    }

    const std::string printed = PrintModule(**module);
    auto reparsed = ParseHloModule(printed);
    ASSERT_TRUE(reparsed.ok()) << "printed text does not parse: " << reparsed.status();
    const std::string reprinted = PrintModule(**reparsed);
    EXPECT_TRUE(printed == reprinted)
        << "printing is not a fixed point, " << FirstDifference(printed, reprinted);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusTest, ::testing::ValuesIn(CorpusFiles()),
                         [](const auto& info) { return TestNameForPath(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CorpusTest);

TEST(CorpusPresence, CorpusIsAvailable) {
  if (CorpusFiles().empty()) {
    GTEST_SKIP() << "no corpus at " << CorpusDir() << "; corpus tests skipped";
  }
  bool has_invalid = false;
  for (const std::string& path : CorpusFiles()) has_invalid |= path.ends_with(kInvalidFile);
  EXPECT_TRUE(has_invalid) << kInvalidFile << " is missing from the corpus";
}

}  // namespace
}  // namespace xlite::conformance
