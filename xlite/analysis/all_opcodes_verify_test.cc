// The text layer's all-opcodes module (xlite/text/testdata/all_opcodes.hlo)
// is valid HLO: every opcode and attribute form passes the verifier.
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "xlite/analysis/test_util.h"

namespace xlite {
namespace {

TEST(AllOpcodesVerifyTest, EveryModuleVerifies) {
  std::ifstream in(XLITE_SOURCE_DIR "/xlite/text/testdata/all_opcodes.hlo");
  std::stringstream stream;
  stream << in.rdbuf();
  const std::string text = stream.str();  // the chunks point into it
  std::vector<InputChunk> chunks = SplitInputFile(text);
  ASSERT_GE(chunks.size(), 5u);
  for (const InputChunk& chunk : chunks) {
    EXPECT_EQ(testing::VerifyErrors(chunk.text), "") << chunk.text.substr(0, 80);
  }
}

}  // namespace
}  // namespace xlite
