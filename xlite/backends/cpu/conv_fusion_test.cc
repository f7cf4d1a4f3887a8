// cpu-conv-fusion's groups, and the fused oneDNN convolutions against the
// interpreter: bias, relu, clips, scale, residual sums, their chains, and
// convolutions chained in oneDNN's blocked layout.
#include "xlite/backends/cpu/conv_fusion.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "xlite/backends/cpu/convolution_thunk.h"
#include "xlite/backends/cpu/cpu_test_util.h"
#include "xlite/ir/computation.h"
#include "xlite/passes/pass_test_util.h"

namespace xlite::cpu {
namespace {

// x[2,16,10,10] NCHW, w[16,16,3,3] OIHW, b[16], r[2,16,10,10], then `body`
// over conv = convolution(x, w) (pad 1), with zero = broadcast 0.
std::string Block(const std::string& body, const std::string& conv_extra = "") {
  return absl::StrCat(R"(HloModule m
ENTRY e {
  x = f32[2,16,10,10] parameter(0)
  w = f32[16,16,3,3] parameter(1)
  b = f32[16] parameter(2)
  r = f32[2,16,10,10] parameter(3)
  z = f32[] constant(0)
  zero = f32[2,16,10,10] broadcast(z), dimensions={}
  conv = f32[2,16,10,10] convolution(x, w), window={size=3x3 pad=1_1x1_1)",
                      conv_extra, R"(}, dim_labels=bf01_oi01->bf01
  bb = f32[2,16,10,10] broadcast(b), dimensions={1}
)",
                      body, "\n}\n");
}

// The kOutput fusions of `text` after the pass, with the instruction count
// of each body.
std::vector<int64_t> FusedBodies(const std::string& text) {
  ConvolutionFusion pass;
  auto module = testing::RunPassAndCompare(text, pass, /*expect_change=*/true);
  std::vector<int64_t> sizes;
  if (module == nullptr) return sizes;
  for (const auto& inst : module->entry_computation()->instructions()) {
    if (FusedConvolution(*inst) != nullptr) sizes.push_back(inst->to_apply()->instruction_count());
  }
  return sizes;
}

TEST(ConvolutionFusionTest, TakesBiasReluAndResidualIntoOneFusion) {
  // x, w, b, r parameters; conv, bb, add, zero (with its constant), max, add.
  EXPECT_EQ(FusedBodies(Block(R"(  c1 = f32[2,16,10,10] add(conv, bb)
  c2 = f32[2,16,10,10] maximum(c1, zero)
  ROOT c3 = f32[2,16,10,10] add(r, c2))")),
            std::vector<int64_t>{11});
}

TEST(ConvolutionFusionTest, StopsAtAValueWithTwoUsersAndAtOpsOneDnnCannotExpress) {
  // conv + bias fused; the relu has two users, so the chain ends there.
  EXPECT_EQ(FusedBodies(Block(R"(  c1 = f32[2,16,10,10] add(conv, bb)
  c2 = f32[2,16,10,10] maximum(c1, zero)
  e = f32[2,16,10,10] exponential(c2)
  ROOT t = (f32[2,16,10,10], f32[2,16,10,10]) tuple(c2, e))")),
            std::vector<int64_t>{9});
  // zero - conv is not a post-op: nothing to fuse.
  ConvolutionFusion pass;
  testing::RunPassAndCompare(Block("  ROOT s = f32[2,16,10,10] subtract(zero, conv)"), pass,
                             /*expect_change=*/false);
}

// Runs `text` on both backends; every convolution named in `fused` is a
// fused oneDNN thunk where the build has oneDNN.
void ExpectFused(const std::string& text, const std::vector<std::string>& fused) {
  const std::string report = ExpectSameAsInterpreter(text, 1e-4);
  if (!kFusesConvolutions) return;
  for (const std::string& name : fused) {
    EXPECT_TRUE(HasLine(report, kConvKind, absl::StrCat(name, " (fusion)"))) << name << "\n"
                                                                             << report;
  }
  EXPECT_NE(report.find("fallback to the evaluator: 0"), std::string::npos) << report;
}

TEST(FusedConvolutionTest, BiasAlone) {
  ExpectFused(Block("  ROOT c1 = f32[2,16,10,10] add(bb, conv)"), {"c1"});
}

TEST(FusedConvolutionTest, BiasAndRelu) {
  ExpectFused(Block(R"(  c1 = f32[2,16,10,10] add(conv, bb)
  ROOT c2 = f32[2,16,10,10] maximum(zero, c1))"),
              {"c2"});
}

TEST(FusedConvolutionTest, ResidualAlone) {
  ExpectFused(Block("  ROOT c1 = f32[2,16,10,10] add(conv, r)"), {"c1"});
}

TEST(FusedConvolutionTest, BiasResidualAndRelu) {
  ExpectFused(Block(R"(  c1 = f32[2,16,10,10] add(conv, bb)
  c2 = f32[2,16,10,10] add(c1, r)
  ROOT c3 = f32[2,16,10,10] maximum(c2, zero))"),
              {"c3"});
}

TEST(FusedConvolutionTest, ShiftClipResidualReluThenASecondLinearStaysOutside) {
  // One eltwise post-op per oneDNN algorithm: the multiply after the shift
  // (both eltwise_linear) is a JIT kernel of its own.
  ExpectFused(Block(R"(  half = f32[] constant(0.5)
  hb = f32[2,16,10,10] broadcast(half), dimensions={}
  one = f32[] constant(-1)
  ob = f32[2,16,10,10] broadcast(one), dimensions={}
  c1 = f32[2,16,10,10] subtract(conv, hb)
  c2 = f32[2,16,10,10] maximum(c1, ob)
  c3 = f32[2,16,10,10] add(r, c2)
  c4 = f32[2,16,10,10] maximum(c3, zero)
  ROOT c5 = f32[2,16,10,10] multiply(c4, hb))"),
              {"c4"});
}

TEST(FusedConvolutionTest, BroadcastNotAlongFeaturesIsSummedAsAnArray) {
  // A bias along the rows is no oneDNN bias: the broadcast is computed and
  // summed in as the residual.
  ExpectFused(Block(R"(  v = f32[10] slice(b), slice={[0:10]}
  vb = f32[2,16,10,10] broadcast(v), dimensions={2}
  c1 = f32[2,16,10,10] add(conv, vb)
  ROOT c2 = f32[2,16,10,10] maximum(c1, zero))"),
              {"c2"});
}

// The conv block's shape at a small size: y = relu(conv(x) + b) feeds the
// second convolution only (as its input and its residual), so it stays in
// oneDNN's blocked layout between them.
constexpr char kChain[] = R"(HloModule m
ENTRY e {
  x = f32[2,32,12,12] parameter(0)
  w1 = f32[32,32,3,3] parameter(1)
  b1 = f32[32] parameter(2)
  w2 = f32[32,32,3,3] parameter(3)
  z = f32[] constant(0)
  zero = f32[2,32,12,12] broadcast(z), dimensions={}
  conv1 = f32[2,32,12,12] convolution(x, w1), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  b1b = f32[2,32,12,12] broadcast(b1), dimensions={1}
  a1 = f32[2,32,12,12] add(conv1, b1b)
  y = f32[2,32,12,12] maximum(a1, zero)
  conv2 = f32[2,32,12,12] convolution(y, w2), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  a2 = f32[2,32,12,12] add(conv2, y)
  ROOT out = f32[2,32,12,12] maximum(a2, zero)%s
})";

std::string ChainWithRoot(const std::string& extra) {
  std::string text = kChain;
  text.replace(text.find("%s"), 2, extra);
  return text;
}

TEST(FusedConvolutionTest, ChainOfConvolutionsInBlockedLayout) {
  ExpectFused(ChainWithRoot(""), {"y", "out"});
}

TEST(FusedConvolutionTest, ChainedOutputWithAnotherConsumerIsConvertedBack) {
  // y is also read by a JIT kernel: it stays in the logical layout.
  std::string text = ChainWithRoot("");
  text.replace(text.find("  ROOT out"), 10, "  out");
  text.replace(text.rfind("\n}"), 2,
               "\n  e = f32[2,32,12,12] exponential(y)\n"
               "  ROOT t = (f32[2,32,12,12], f32[2,32,12,12]) tuple(out, e)\n}");
  ExpectFused(text, {"out"});
}

TEST(FusedConvolutionTest, ChannelsNotAMultipleOfTheBlockStayCorrect) {
  // 12 channels: oneDNN's blocked layout pads them beyond the buffer.
  std::string text = ChainWithRoot("");
  for (const std::string from : {"[32,", ",32,", "[32]"}) {
    std::string to = from;
    to.replace(1, 2, "12");
    for (size_t at; (at = text.find(from)) != std::string::npos;) text.replace(at, from.size(), to);
  }
  ExpectFused(text, {"y", "out"});
}

TEST(FusedConvolutionTest, ConstantKernelIsReorderedOnce) {
  // A 1x1 kernel [16,16,1,1] written out: (o * 16 + i) % 7 - 3.
  std::string kernel = "{";
  for (int o = 0; o < 16; ++o) {
    absl::StrAppend(&kernel, o > 0 ? "," : "", "{");
    for (int i = 0; i < 16; ++i)
      absl::StrAppend(&kernel, i > 0 ? "," : "", "{{", (o * 16 + i) % 7 - 3, "}}");
    absl::StrAppend(&kernel, "}");
  }
  kernel += "}";
  ExpectFused(Block(absl::StrCat("  k = f32[16,16,1,1] constant(", kernel, R"()
  cc = f32[2,16,10,10] convolution(x, k), window={size=1x1}, dim_labels=bf01_oi01->bf01
  c1 = f32[2,16,10,10] add(cc, bb)
  ROOT c2 = f32[2,16,10,10] add(c1, conv))")),
              {"c2"});
}

TEST(FusedConvolutionTest, GroupedDilatedAndChannelsLastConvolutionsFuse) {
  ExpectFused(R"(HloModule m
ENTRY e {
  x = f32[2,9,9,8] parameter(0)
  w = f32[3,3,1,8] parameter(1)
  b = f32[8] parameter(2)
  conv = f32[2,9,9,8] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=8
  bb = f32[2,9,9,8] broadcast(b), dimensions={3}
  ROOT c1 = f32[2,9,9,8] add(conv, bb)
})",
              {"c1"});
  ExpectFused(R"(HloModule m
ENTRY e {
  x = f32[1,4,20,20] parameter(0)
  w = f32[6,4,3,3] parameter(1)
  r = f32[1,6,20,14] parameter(2)
  conv = f32[1,6,20,14] convolution(x, w), window={size=3x3 pad=2_2x0_0 rhs_dilate=2x3}, dim_labels=bf01_oi01->bf01
  ROOT c1 = f32[1,6,20,14] add(conv, r)
})",
              {"c1"});
}

TEST(FusedConvolutionTest, BatchGroupConvolutionIsNotFusedAndFallsBack) {
  const std::string report = ExpectSameAsInterpreter(R"(HloModule m
ENTRY e {
  x = f32[4,3,5,5] parameter(0)
  w = f32[6,3,3,3] parameter(1)
  conv = f32[2,6,3,3] convolution(x, w), window={size=3x3}, dim_labels=bf01_oi01->bf01, batch_group_count=2
  z = f32[] constant(0)
  zero = f32[2,6,3,3] broadcast(z), dimensions={}
  ROOT c1 = f32[2,6,3,3] maximum(conv, zero)
})",
                                                     1e-4);
  EXPECT_TRUE(HasLine(report, "fallback", "conv (convolution)")) << report;
}

}  // namespace
}  // namespace xlite::cpu
