// Runs every case of testdata/elementwise_goldens.txt (expected values from
// numpy and plain Python, see scripts/gen_elementwise_goldens.py) through
// the evaluator: one test per opcode, element type and attribute variant.
#include <cmath>
#include <cstring>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "xlite/eval/eval_test_util.h"
#include "xlite/ir/float_format.h"
#include "xlite/ir/float_ulp.h"

namespace xlite::eval {
namespace {

constexpr const char* kGoldens = XLITE_SOURCE_DIR "/xlite/eval/testdata/elementwise_goldens.txt";

struct GoldenCase {
  std::string name, opcode, attrs, in_type, out_type;
  int ulps = 0;
  std::vector<std::vector<uint64_t>> inputs;
  std::vector<uint64_t> expected;
};

// gtest names a failing parameter by this instead of dumping its bytes.
void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

std::vector<uint64_t> ParseHexList(const std::string& text) {
  std::vector<uint64_t> out;
  for (absl::string_view piece : absl::StrSplit(text, ',')) {
    out.push_back(std::stoull(std::string(piece), nullptr, 16));
  }
  return out;
}

std::vector<GoldenCase> LoadGoldens() {
  std::vector<GoldenCase> cases;
  std::ifstream in(kGoldens);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    if (f.size() < 8) continue;
    GoldenCase c{f[0], f[1], f[2], f[3], f[4], std::stoi(f[5]), {}, {}};
    for (size_t i = 6; i + 1 < f.size(); ++i) c.inputs.push_back(ParseHexList(f[i]));
    c.expected = ParseHexList(f.back());
    cases.push_back(std::move(c));
  }
  return cases;
}

Literal FromBits(PrimitiveType t, const std::vector<uint64_t>& bits) {
  Literal l(Shape(t, {static_cast<int64_t>(bits.size())}));
  const int bytes = StorageBytes(t);
  for (size_t i = 0; i < bits.size(); ++i) {
    std::memcpy(l.mutable_raw_data().data() + i * bytes, &bits[i], bytes);  // little endian
  }
  return l;
}

uint64_t BitsAt(const Literal& l, int64_t i) {
  uint64_t v = 0;
  const int bytes = StorageBytes(l.shape().element_type());
  std::memcpy(&v, l.raw_data().data() + i * bytes, bytes);
  return v;
}

class ElementwiseGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ElementwiseGolden, MatchesExpected) {
  const GoldenCase& c = GetParam();
  PrimitiveType in_type = *PrimitiveTypeFromName(c.in_type);
  PrimitiveType out_type = *PrimitiveTypeFromName(c.out_type);
  const size_t n = c.expected.size();
  std::string text = "HloModule golden\nENTRY e {\n";
  std::vector<std::string> names;
  std::vector<Literal> args;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    names.push_back(absl::StrCat("p", i));
    absl::StrAppend(&text, "  p", i, " = ", c.in_type, "[", n, "] parameter(", i, ")\n");
    args.push_back(FromBits(in_type, c.inputs[i]));
  }
  absl::StrAppend(&text, "  ROOT r = ", c.out_type, "[", n, "] ", c.opcode, "(",
                  absl::StrJoin(names, ", "), ")", c.attrs == "-" ? "" : ", ",
                  c.attrs == "-" ? "" : c.attrs, "\n}\n");
  absl::StatusOr<Literal> result = testing::EvaluateText(text, args);
  ASSERT_TRUE(result.ok()) << result.status() << "\n" << text;
  ASSERT_EQ(result->element_count(), static_cast<int64_t>(n));
  for (size_t i = 0; i < n; ++i) {
    uint64_t got = BitsAt(*result, static_cast<int64_t>(i));
    uint64_t want = c.expected[i];
    if (got == want) continue;
    std::ostringstream inputs;
    for (const auto& in : c.inputs) inputs << std::hex << in[i] << " ";
    if (IsFloat(out_type)) {
      double g = DecodeFloat(got, out_type), w = DecodeFloat(want, out_type);
      if (std::isnan(g) && std::isnan(w)) continue;
      if (c.ulps > 0 && !std::isnan(g) && !std::isnan(w) &&
          UlpDistance(got, want, out_type) <= c.ulps) {
        continue;
      }
      ADD_FAILURE() << c.name << " element " << i << " inputs(hex) " << inputs.str() << "got " << g
                    << " (0x" << std::hex << got << ") want " << w << " (0x" << want << ")";
    } else {
      ADD_FAILURE() << c.name << " element " << i << " inputs(hex) " << inputs.str() << "got 0x"
                    << std::hex << got << " want 0x" << want;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Goldens, ElementwiseGolden, ::testing::ValuesIn(LoadGoldens()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           return info.param.name;
                         });

TEST(ElementwiseGoldenFile, IsPresentAndCoversTheFamily) {
  std::vector<GoldenCase> cases = LoadGoldens();
  EXPECT_GT(cases.size(), 200u) << "missing or truncated " << kGoldens;
}

}  // namespace
}  // namespace xlite::eval
