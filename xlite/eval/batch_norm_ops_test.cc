// Batch norm against numpy goldens (scripts/gen_batch_norm_goldens.py).
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/eval/reduction_test_util.h"

namespace xlite::eval {
namespace {

using testing::EvaluateText;
using testing::MakeLiteral;
using testing::ToDoubles;
using testing::TupleDoubles;

std::map<std::string, std::vector<double>> LoadGoldens() {
  std::map<std::string, std::vector<double>> goldens;
  std::ifstream in(XLITE_SOURCE_DIR "/xlite/eval/testdata/batch_norm_goldens.txt");
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
    std::istringstream values(line.substr(colon + 1));
    std::vector<double>& v = goldens[line.substr(0, colon)];
    for (double d; values >> d;) v.push_back(d);
  }
  return goldens;
}

class BatchNorm : public ::testing::Test {
 protected:
  void SetUp() override {
    goldens_ = LoadGoldens();
    ASSERT_FALSE(goldens_.empty()) << "missing xlite/eval/testdata/batch_norm_goldens.txt";
  }
  Literal Arg(const std::string& shape, const std::string& name) {
    return MakeLiteral(shape, goldens_.at(name));
  }
  // f32 results against f64 goldens: a few ulps of relative error.
  void ExpectNear(const std::vector<double>& got, const std::string& name) {
    const std::vector<double>& want = goldens_.at(name);
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-5 * std::max(1.0, std::fabs(want[i])))
          << name << "[" << i << "]";
    }
  }
  std::map<std::string, std::vector<double>> goldens_;
};

TEST_F(BatchNorm, Training) {
  auto r = EvaluateText(R"(
HloModule m
ENTRY e {
  x = f32[2,3,2,2] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  ROOT t = (f32[2,3,2,2], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
})",
                        {Arg("f32[2,3,2,2]", "training.x"), Arg("f32[3]", "training.scale"),
                         Arg("f32[3]", "training.offset")});
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(TupleDoubles(*r, 0), "training.out");
  ExpectNear(TupleDoubles(*r, 1), "training.mean");
  ExpectNear(TupleDoubles(*r, 2), "training.var");
}

TEST_F(BatchNorm, Inference) {
  auto r = EvaluateText(R"(
HloModule m
ENTRY e {
  x = f32[2,2,3] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  m = f32[3] parameter(3)
  v = f32[3] parameter(4)
  ROOT y = f32[2,2,3] batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=2
})",
                        {Arg("f32[2,2,3]", "inference.x"), Arg("f32[3]", "inference.scale"),
                         Arg("f32[3]", "inference.offset"), Arg("f32[3]", "inference.mean"),
                         Arg("f32[3]", "inference.var")});
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(ToDoubles(*r), "inference.out");
}

TEST_F(BatchNorm, Grad) {
  auto r = EvaluateText(
      R"(
HloModule m
ENTRY e {
  x = f32[3,2,2] parameter(0)
  s = f32[3] parameter(1)
  m = f32[3] parameter(2)
  v = f32[3] parameter(3)
  dy = f32[3,2,2] parameter(4)
  ROOT t = (f32[3,2,2], f32[3], f32[3]) batch-norm-grad(x, s, m, v, dy), epsilon=0.001, feature_index=0
})",
      {Arg("f32[3,2,2]", "grad.x"), Arg("f32[3]", "grad.scale"), Arg("f32[3]", "grad.mean"),
       Arg("f32[3]", "grad.var"), Arg("f32[3,2,2]", "grad.dy")});
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectNear(TupleDoubles(*r, 0), "grad.grad_x");
  ExpectNear(TupleDoubles(*r, 1), "grad.grad_scale");
  ExpectNear(TupleDoubles(*r, 2), "grad.grad_offset");
}

}  // namespace
}  // namespace xlite::eval
