// Every module of the shared corpus must verify, except the test inputs that
// are invalid HLO (XLA's own verifier refuses them too; their tests run the
// tools without verification). Each is listed with the error it must give.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

constexpr char kCorpusDir[] = XLITE_SOURCE_DIR "/../shared/corpus/hlo";

struct KnownInvalid {
  const char* file;
  const char* error;  // a part of the expected message
};
constexpr KnownInvalid kKnownInvalid[] = {
    // Operands f32[2,1] and f32[3,1] disagree outside the concatenated dim.
    {"xla__tools__tests__data__invalid_concat.hlo", "concatenate operands must match"},
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
    // broadcast of f32[1] into a dimension of 3 (HLO broadcast sizes are equal).
    {"xla__hlo__translate__hlo_to_mhlo__tests__while.hlo", "sizes must be equal"},
};

const KnownInvalid* FindKnownInvalid(const std::string& name) {
  for (const KnownInvalid& k : kKnownInvalid) {
    if (name == k.file) return &k;
  }
  return nullptr;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(CorpusVerifyTest, EveryCorpusModuleVerifies) {
  if (!std::filesystem::is_directory(kCorpusDir)) {
    GTEST_SKIP() << "corpus not found at " << kCorpusDir;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpusDir)) {
    if (entry.path().extension() == ".hlo") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  int verified = 0, unparsed = 0;
  std::set<std::string> refused;
  for (const auto& path : files) {
    std::string text = ReadFile(path);
    std::string name = path.filename().string();
    for (const InputChunk& chunk : SplitInputFile(text)) {
      auto module = ParseHloModule(chunk.text, {.filename = name, .line_offset = chunk.first_line});
      if (!module.ok()) {
        // Parse failures are the parser's tests' business; count them here.
        ++unparsed;
        continue;
      }
      absl::Status status = VerifyModule(**module);
      if (status.ok()) {
        ++verified;
        continue;
      }
      // A known-invalid file may hold valid chunks too; its invalid ones
      // must fail with the documented error.
      const KnownInvalid* known = FindKnownInvalid(name);
      if (known != nullptr) {
        EXPECT_THAT(status.message(), ::testing::HasSubstr(known->error)) << name;
        refused.insert(name);
      } else {
        ADD_FAILURE() << name << ":" << chunk.first_line + 1 << ": " << status;
      }
    }
  }
  for (const KnownInvalid& k : kKnownInvalid) {
    EXPECT_TRUE(refused.count(k.file)) << k.file << " was expected to be refused";
  }
  std::cout << "verified " << verified << " corpus modules (" << unparsed
            << " did not parse)\n";
  EXPECT_GT(verified, 0);
}

}  // namespace
}  // namespace xlite
