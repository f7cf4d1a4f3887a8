// Result shapes left out of HLO text, inferred while parsing by
// xlite/inference's InferOmittedShape: one module per opcode
// family, the errors (pointing at the instruction), and the opcodes that must
// declare their shape.
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/base/strings.h"
#include "xlite/inference/shape_inference.h"
#include "xlite/ir/computation.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

absl::StatusOr<std::unique_ptr<HloModule>> ParseInferring(std::string_view text) {
  return ParseHloModule(text);
}

// The entry root's shape (no layout), or "error: <message>".
std::string InferredRoot(std::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseInferring(text);
  if (!module.ok()) return absl::StrCat("error: ", module.status().message());
  return (*module)->entry_computation()->root_instruction()->shape().ToString(false);
}

constexpr char kComputations[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ge {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=GE
}
)";

struct Case {
  const char* name;
  const char* entry;  // after kComputations (add, ge)
  const char* expected;
};

class OmittedShapeTest : public ::testing::TestWithParam<Case> {};

// Expected shapes worked out by hand from each opcode's rule; the verifier
// must then accept the module (the inferred shape is the one it checks).
TEST_P(OmittedShapeTest, InfersTheRootShape) {
  std::string text = absl::StrCat(kComputations, GetParam().entry);
  EXPECT_EQ(InferredRoot(text), GetParam().expected) << text;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseInferring(text);
  if (module.ok()) {
    EXPECT_TRUE(VerifyModuleAll(**module).empty()) << text;
  }
}

const Case kCases[] = {
    // Batch 0 with 1, contract 1 with 0: only the batch dimension is left.
    {"DotBatch", R"(ENTRY e {
  a = f32[2,10]{1,0} parameter(0)
  b = f32[10,2]{1,0} parameter(1)
  ROOT dot = dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={1},
    rhs_contracting_dims={0}
})",
     "f32[2]"},
    {"DotMatmul", R"(ENTRY e {
  a = bf16[3,4] parameter(0)
  b = bf16[4,5] parameter(1)
  ROOT dot = dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
     "bf16[3,5]"},
    // Width 10, window 3, no padding: 8 outputs of 8 features.
    {"Convolution", R"(ENTRY e {
  x = f32[1,10,6] parameter(0)
  k = f32[3,6,8] parameter(1)
  ROOT c = convolution(x, k), window={size=3}, dim_labels=b0f_0io->b0f
})",
     "f32[1,8,8]"},
    {"Concatenate", R"(ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[4,3] parameter(1)
  ROOT c = concatenate(a, b), dimensions={0}
})",
     "f32[6,3]"},
    // Four rows of 7 gathered by four one-element indices.
    {"Gather", R"(ENTRY e {
  p = f32[5,7] parameter(0)
  i = s32[4,1] parameter(1)
  ROOT g = gather(p, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0},
    index_vector_dim=1, slice_sizes={1,7}
})",
     "f32[4,7]"},
    {"Scatter", R"(ENTRY e {
  p = f32[5] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2] parameter(2)
  ROOT s = scatter(p, i, u), update_window_dims={}, inserted_window_dims={0},
    scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})",
     "f32[5]"},
    {"Map", R"(ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT m = map(a, b), dimensions={0}, to_apply=add
})",
     "f32[4]"},
    // 1 low + 2 + 2 high = 5 rows; 3 columns with 1 interior each = 5.
    {"Pad", R"(ENTRY e {
  p = f32[2,3] parameter(0)
  z = f32[] constant(0)
  ROOT r = pad(p, z), padding=1_2x0_0_1
})",
     "f32[5,5]"},
    {"Reduce", R"(ENTRY e {
  p = f32[4,6] parameter(0)
  z = f32[] constant(0)
  ROOT r = reduce(p, z), dimensions={1}, to_apply=add
})",
     "f32[4]"},
    // 4/2 = 2 rows, 6/3 = 2 columns.
    {"ReduceWindow", R"(ENTRY e {
  p = f32[4,6] parameter(0)
  z = f32[] constant(0)
  ROOT r = reduce-window(p, z), window={size=2x3 stride=2x3}, to_apply=add
})",
     "f32[2,2]"},
    {"SelectAndScatter", R"(ENTRY e {
  p = f32[4] parameter(0)
  s = f32[2] parameter(1)
  z = f32[] constant(0)
  ROOT r = select-and-scatter(p, s, z), window={size=2 stride=2}, select=ge, scatter=add
})",
     "f32[4]"},
    {"Sort", R"(ENTRY e {
  k = f32[8] parameter(0)
  ROOT s = sort(k), dimensions={0}, to_apply=ge
})",
     "f32[8]"},
    {"Transpose", R"(ENTRY e {
  p = f32[2,3,4] parameter(0)
  ROOT t = transpose(p), dimensions={2,0,1}
})",
     "f32[4,2,3]"},
    {"Reverse", R"(ENTRY e {
  p = f32[2,3] parameter(0)
  ROOT r = reverse(p), dimensions={1}
})",
     "f32[2,3]"},
    {"TopK", R"(ENTRY e {
  p = f32[4,10] parameter(0)
  ROOT t = topk(p), k=3
})",
     "(f32[4,3], s32[4,3])"},
    // A real FFT of 8 points keeps 8/2 + 1 = 5 complex ones.
    {"Fft", R"(ENTRY e {
  p = f32[8] parameter(0)
  ROOT f = fft(p), fft_type=RFFT, fft_length={8}
})",
     "c64[5]"},
    {"Cholesky", R"(ENTRY e {
  p = f32[3,3] parameter(0)
  ROOT c = cholesky(p), lower=true
})",
     "f32[3,3]"},
    {"TriangularSolve", R"(ENTRY e {
  a = f32[3,3] parameter(0)
  b = f32[3,2] parameter(1)
  ROOT x = triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
})",
     "f32[3,2]"},
    {"BatchNormTraining", R"(ENTRY e {
  x = f32[2,4] parameter(0)
  s = f32[4] parameter(1)
  o = f32[4] parameter(2)
  ROOT b = batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
})",
     "(f32[2,4], f32[4], f32[4])"},
    {"BroadcastOfScalar", R"(ENTRY e {
  p = f32[] parameter(0)
  ROOT b = broadcast(p), dimensions={}
})",
     "f32[]"},
    // A pred conditional: both branches return f32[].
    {"Conditional", R"(
Negate {
  x = f32[] parameter(0)
  ROOT negate = negate(x)
}
Identity {
  y = f32[] parameter(0)
  ROOT copy = copy(y)
}
ENTRY e {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  p = pred[] parameter(2)
  c = f32[] add(a, b)
  ROOT conditional = conditional(p, a, c), true_computation=Negate, false_computation=Identity
})",
     "f32[]"},
    // The parser's own rules still apply with inference enabled.
    {"TupleAndElementwise", R"(ENTRY e {
  a = s32[3] parameter(0)
  c = compare(a, a), direction=LT
  ROOT t = tuple(c, a)
})",
     "(pred[3], s32[3])"},
};

INSTANTIATE_TEST_SUITE_P(Families, OmittedShapeTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(OmittedShapeErrorsTest, InferenceErrorsPointAtTheInstruction) {
  EXPECT_THAT(InferredRoot(R"(ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[4,5] parameter(1)
  ROOT d = dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"),
              HasSubstr("<input>:4:12: error: cannot infer the result shape of dot: "
                        "contracting dimension sizes differ"));
  EXPECT_THAT(InferredRoot(R"(ENTRY e {
  a = f32[2,3] parameter(0)
  ROOT t = transpose(a), dimensions={0,0}
})"),
              HasSubstr("<input>:3:12: error: cannot infer the result shape of transpose:"));
  // Elementwise operands that do not match are refused, as by XLA's parser.
  EXPECT_THAT(InferredRoot(R"(ENTRY e {
  a = f32[2] parameter(0)
  b = f32[3] parameter(1)
  ROOT n = add(a, b)
})"),
              HasSubstr("4:12: error: cannot infer the result shape of add: operands must have "
                        "identical dimensions, got f32[2] and f32[3]"));
  EXPECT_THAT(InferredRoot(R"(ENTRY e {
  a = f32[2] parameter(0)
  b = (f32[2]) tuple(a)
  ROOT n = negate(b)
})"),
              HasSubstr("4:12: error: cannot infer the result shape of negate:"));
}

TEST(OmittedShapeErrorsTest, BroadcastNeedsAShapeUnlessOfAScalar) {
  EXPECT_THAT(InferredRoot(R"(ENTRY e {
  p = f32[3] parameter(0)
  ROOT b = broadcast(p), dimensions={0}
})"),
              HasSubstr("3:12: error: cannot infer the result shape of broadcast: a broadcast "
                        "needs a result shape unless it broadcasts a scalar with dimensions={}"));
}

TEST(OmittedShapeErrorsTest, ScanIsNotSupportedYet) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseInferring(R"(
step {
  c = f32[] parameter(0)
  x = f32[] parameter(1)
  s = f32[] add(c, x)
  ROOT t = (f32[], f32[]) tuple(s, s)
}
ENTRY e {
  xs = f32[4] parameter(0)
  c0 = f32[] parameter(1)
  ROOT r = scan(xs, c0), dimensions={0}, num_carries=1, to_apply=step
})");
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(module.status().message()),
              HasSubstr("11:12: error: not supported yet: inferring the result shape of scan"));
}

// No caller chooses the rules any more: a plain parse infers the dot.
TEST(OmittedShapeErrorsTest, EveryParseUsesTheFullRules) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(ENTRY e {
  a = f32[2,10] parameter(0)
  b = f32[10,2] parameter(1)
  ROOT dot = dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ((*module)->entry_computation()->root_instruction()->shape().ToString(false),
            "f32[2,2]");
}

// Every opcode XLA's parser does not infer must be written with its shape,
// whether or not inference is enabled; every other one never gets that error.
TEST(OmittedShapeErrorsTest, DeclaredOpcodesNeedAShape) {
  int declared = 0;
  for (int i = 0; i < kNumOpcodes; ++i) {
    const HloOpcode op = static_cast<HloOpcode>(i);
    std::string text = absl::StrCat(
        "ENTRY e {\n  x = f32[2] parameter(0)\n  ROOT y = ", AsAbsl(OpcodeName(op)), "(x)\n}");
    std::string expected =
        absl::StrCat("3:12: error: ", AsAbsl(OpcodeName(op)), " needs a result shape");
    std::string with = InferredRoot(text);
    absl::StatusOr<std::unique_ptr<HloModule>> without = ParseHloModule(text);
    if (CanOmitResultShape(op)) {
      EXPECT_THAT(with, Not(HasSubstr("needs a result shape"))) << text;
      continue;
    }
    ++declared;
    EXPECT_THAT(with, HasSubstr(expected)) << text;
    ASSERT_FALSE(without.ok()) << text;
    EXPECT_THAT(std::string(without.status().message()), HasSubstr(expected));
  }
  // parameter, constant, iota, reshape, convert, slice, dynamic-slice,
  // custom-call, fusion, the collectives, send/recv, ... (XLA's list).
  EXPECT_GE(declared, 40);
}

TEST(OmittedShapeErrorsTest, InferOmittedShapeRefusesDeclaredOpcodes) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(ENTRY e {
  p = f32[2,3] parameter(0)
  ROOT r = f32[3,2] reshape(p)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation& entry = *(*module)->entry_computation();
  absl::StatusOr<Shape> reshape = InferOmittedShape(*entry.root_instruction());
  ASSERT_FALSE(reshape.ok());
  EXPECT_EQ(reshape.status().message(), "reshape needs a result shape");
  EXPECT_FALSE(InferOmittedShape(*entry.parameter_instruction(0)).ok());
}

}  // namespace
}  // namespace xlite
