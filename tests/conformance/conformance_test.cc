// Every module of the real-world corpus parses, verifies and round-trips
// through the printer: print(parse(print(parse(text)))) == print(parse(text))
// and the re-parsed module equals the first. The test inputs that are invalid
// HLO (XLA's verifier refuses them too; their own tests run tools without
// verification) must be refused, each with the error listed here.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/conformance/corpus.h"
#include "xlite/analysis/verifier.h"
#include "xlite/ir/equality.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite::conformance {
namespace {

// The one input SOURCES.md lists as invalid on purpose.
constexpr char kInvalidFile[] = "xla__tools__tests__data__invalid_concat.hlo";

struct KnownInvalid {
  const char* file;
  const char* error;  // a part of the expected message
};
constexpr KnownInvalid kKnownInvalid[] = {
    // Operands f32[2,1] and f32[3,1] disagree outside the concatenated dim.
    {kInvalidFile, "concatenate operands must match"},
    // Calls a scalar computation with f32[4] operands.
    {"xla__hlo__tools__tests__generate_hlo_test_checks_test_input.hlo", "to_apply computation"},
    {"xla__hlo__tools__tests__generate_hlo_test_checks_test_output.hlo", "to_apply computation"},
    // dot(s8[8], s16[8]) without dimension numbers is an outer product, not s32[8].
    {"xla__hlo__transforms__tests__operand_upcaster.hlo", "shape inference gives s32[8,8]"},
    // A spatial size of 4 with padding -1_-1 leaves nothing for a window of 3.
    {"xla__hlo__transforms__tests__rewrite_bf16_conv_to_onednn.hlo", "bf16[8,0,5,5,32]"},
    // recv of f32[128,32] but recv-done of f32[128,21].
    {"xla__hlo__translate__hlo_to_mhlo__tests__import_async.hlo", "%recv-done"},
    // entry_computation_layout types differ from the parameters'.
    {"xla__hlo__translate__hlo_to_mhlo__tests__layouts_and_names.hlo", "entry_computation_layout"},
    {"xla__hlo__builder__tests__math_next_after.hlo", "entry_computation_layout"},
    // MLIR-importer tests beyond HLO's rules: a convolution window that does
    // not match its kernel, a reduce with a rank-1 init value, an
    // rng-bit-generator without its state output.
    {"xla__hlo__translate__hlo_to_mhlo__tests__import.hlo",
     "window size 3 of spatial dimension 0 must equal the kernel's 2"},
    // broadcast of f32[1] into a dimension of 3 (HLO broadcast sizes are equal).
    {"xla__hlo__translate__hlo_to_mhlo__tests__while.hlo", "sizes must be equal"},
};

const KnownInvalid* FindKnownInvalid(const std::string& path) {
  for (const KnownInvalid& k : kKnownInvalid) {
    if (path.ends_with(k.file)) return &k;
  }
  return nullptr;
}

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
  const KnownInvalid* known_invalid = FindKnownInvalid(path);
  bool refused = false;
  const std::string text = ReadFileOrDie(path);
  for (const InputChunk& chunk : SplitInputFile(text)) {
    SCOPED_TRACE(path + ":" + std::to_string(chunk.first_line + 1));
    ParseOptions options;
    options.filename = path;
    options.line_offset = chunk.first_line;
    auto module = ParseHloModule(chunk.text, options);
    ASSERT_TRUE(module.ok()) << module.status();

    // A known-invalid file may hold valid chunks too; its invalid ones must
    // fail with the documented error.
    const absl::Status verified = VerifyModule(**module);
    if (!verified.ok() && known_invalid != nullptr) {
      EXPECT_THAT(verified.message(), ::testing::HasSubstr(known_invalid->error));
      refused = true;
    } else {
      EXPECT_TRUE(verified.ok()) << verified;
    }

    const std::string printed = PrintModule(**module);
    auto reparsed = ParseHloModule(printed);
    ASSERT_TRUE(reparsed.ok()) << "printed text does not parse: " << reparsed.status();
    const std::string reprinted = PrintModule(**reparsed);
    EXPECT_TRUE(printed == reprinted)
        << "printing is not a fixed point, " << FirstDifference(printed, reprinted);
    // Nothing is lost when async chains print explicitly (sugar leaves out
    // the names of the computations it wraps, as XLA does).
    PrintOptions explicit_async;
    explicit_async.async_sugar = false;
    auto lossless = ParseHloModule(PrintModule(**module, explicit_async));
    ASSERT_TRUE(lossless.ok()) << lossless.status();
    std::string difference;
    EXPECT_TRUE(ModulesEqual(**module, **lossless, &difference)) << difference;
    // A deep copy is the same module and prints the same text.
    std::unique_ptr<HloModule> clone = (*module)->Clone();
    EXPECT_TRUE(ModulesEqual(**module, *clone, &difference)) << difference;
    EXPECT_TRUE(PrintModule(*clone) == printed) << "the clone prints differently";
  }
  if (known_invalid != nullptr) {
    EXPECT_TRUE(refused) << "the verifier accepted every module of " << path;
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
