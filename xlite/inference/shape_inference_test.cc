#include "xlite/inference/shape_inference.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/base/strings.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<HloModule> Parse(std::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << text;
  return module.ok() ? std::move(*module) : nullptr;
}

// The inferred shape of the entry root (no layout), or "error: <message>".
std::string InferRoot(std::string_view text) {
  std::unique_ptr<HloModule> module = Parse(text);
  if (module == nullptr) return "parse error";
  absl::StatusOr<Shape> shape = InferShape(*module->entry_computation()->root_instruction());
  if (!shape.ok()) return absl::StrCat("error: ", shape.status().message());
  return shape->ToString(/*print_layout=*/false);
}

struct Case {
  const char* name;
  const char* hlo;
  const char* expected;
};

class InferShapeTest : public ::testing::TestWithParam<Case> {};

TEST_P(InferShapeTest, InfersRootShape) {
  EXPECT_EQ(InferRoot(GetParam().hlo), GetParam().expected) << GetParam().hlo;
}

constexpr char kAddComputation[] = R"(
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
)";

// `header` (an `HloModule` line or nothing), the add computation, `entry`.
std::string WithAdd(absl::string_view entry, absl::string_view header = "") {
  return absl::StrCat(header, kAddComputation, entry);
}

const Case kCases[] = {
    {"Unary", R"(ENTRY %e { %p = f32[2,3] parameter(0)
       ROOT %r = f32[2,3] exponential(%p) })",
     "f32[2,3]"},
    {"AbsOfComplex", R"(ENTRY %e { %p = c64[4] parameter(0)
       ROOT %r = f32[4] abs(%p) })",
     "f32[4]"},
    {"Imag", R"(ENTRY %e { %p = c128[4] parameter(0)
       ROOT %r = f64[4] imag(%p) })",
     "f64[4]"},
    {"IsFinite", R"(ENTRY %e { %p = bf16[4] parameter(0)
       ROOT %r = pred[4] is-finite(%p) })",
     "pred[4]"},
    {"Compare", R"(ENTRY %e { %p = s32[4] parameter(0)
       ROOT %r = pred[4] compare(%p, %p), direction=LT })",
     "pred[4]"},
    {"Complex", R"(ENTRY %e { %p = f32[4] parameter(0)
       ROOT %r = c64[4] complex(%p, %p) })",
     "c64[4]"},
    {"Select", R"(ENTRY %e { %c = pred[4] parameter(0) %p = f32[4] parameter(1)
       ROOT %r = f32[4] select(%c, %p, %p) })",
     "f32[4]"},
    {"ClampScalarBounds", R"(ENTRY %e { %lo = f32[] parameter(0) %p = f32[4] parameter(1)
       ROOT %r = f32[4] clamp(%lo, %p, %lo) })",
     "f32[4]"},
    {"Shift", R"(ENTRY %e { %p = u32[4] parameter(0)
       ROOT %r = u32[4] shift-right-logical(%p, %p) })",
     "u32[4]"},
    {"Convert", R"(ENTRY %e { %p = f32[4] parameter(0)
       ROOT %r = s8[4] convert(%p) })",
     "s8[4]"},
    {"BitcastConvertNarrower", R"(ENTRY %e { %p = f32[4] parameter(0)
       ROOT %r = u8[4,4] bitcast-convert(%p) })",
     "u8[4,4]"},
    {"BitcastConvertWider", R"(ENTRY %e { %p = u16[3,2] parameter(0)
       ROOT %r = f32[3] bitcast-convert(%p) })",
     "f32[3]"},
    {"StochasticConvert", R"(ENTRY %e { %p = f32[4] parameter(0) %b = u32[4] parameter(1)
       ROOT %r = bf16[4] stochastic-convert(%p, %b) })",
     "bf16[4]"},
    {"Broadcast", R"(ENTRY %e { %p = f32[3] parameter(0)
       ROOT %r = f32[2,3] broadcast(%p), dimensions={1} })",
     "f32[2,3]"},
    {"Reshape", R"(ENTRY %e { %p = f32[2,3] parameter(0)
       ROOT %r = f32[6] reshape(%p) })",
     "f32[6]"},
    {"Transpose", R"(ENTRY %e { %p = f32[2,3,4] parameter(0)
       ROOT %r = f32[4,2,3] transpose(%p), dimensions={2,0,1} })",
     "f32[4,2,3]"},
    {"Slice", R"(ENTRY %e { %p = f32[10,8] parameter(0)
       ROOT %r = f32[3,8] slice(%p), slice={[1:8:3], [0:8]} })",
     "f32[3,8]"},
    {"DynamicSlice", R"(ENTRY %e { %p = f32[10,8] parameter(0) %i = s32[] parameter(1)
       ROOT %r = f32[2,8] dynamic-slice(%p, %i, %i), dynamic_slice_sizes={2,8} })",
     "f32[2,8]"},
    {"DynamicUpdateSlice", R"(ENTRY %e { %p = f32[10] parameter(0) %u = f32[2] parameter(1)
       %i = u32[] parameter(2)
       ROOT %r = f32[10] dynamic-update-slice(%p, %u, %i) })",
     "f32[10]"},
    {"Concatenate", R"(ENTRY %e { %a = f32[2,3] parameter(0) %b = f32[2,5] parameter(1)
       ROOT %r = f32[2,8] concatenate(%a, %b), dimensions={1} })",
     "f32[2,8]"},
    {"PadNegativeAndInterior", R"(ENTRY %e { %p = f32[4,4] parameter(0) %v = f32[] parameter(1)
       ROOT %r = f32[11,2] pad(%p, %v), padding=1_3_1x-1_-1 })",
     "f32[11,2]"},
    {"Reverse", R"(ENTRY %e { %p = f32[4,4] parameter(0)
       ROOT %r = f32[4,4] reverse(%p), dimensions={0} })",
     "f32[4,4]"},
    {"Iota", R"(ENTRY %e { ROOT %r = s32[4,5] iota(), iota_dimension=1 })", "s32[4,5]"},
    {"Gather", R"(ENTRY %e { %p = f32[5,7] parameter(0) %i = s32[4,1] parameter(1)
       ROOT %r = f32[4,7] gather(%p, %i), offset_dims={1}, collapsed_slice_dims={0},
         start_index_map={0}, index_vector_dim=1, slice_sizes={1,7} })",
     "f32[4,7]"},
    {"GatherImplicitIndexVector", R"(ENTRY %e { %p = f32[5,7] parameter(0) %i = s32[4] parameter(1)
       ROOT %r = f32[4,7] gather(%p, %i), offset_dims={1}, collapsed_slice_dims={0},
         start_index_map={0}, index_vector_dim=1, slice_sizes={1,7} })",
     "f32[4,7]"},
    {"GatherBatching", R"(ENTRY %e { %p = f32[3,5,7] parameter(0) %i = s32[3,4,1] parameter(1)
       ROOT %r = f32[3,4,7] gather(%p, %i), offset_dims={2}, collapsed_slice_dims={1},
         start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0},
         index_vector_dim=2, slice_sizes={1,1,7} })",
     "f32[3,4,7]"},
    {"GetDimensionSize", R"(ENTRY %e { %p = f32[4,5] parameter(0)
       ROOT %r = s32[] get-dimension-size(%p), dimensions={1} })",
     "s32[]"},
    {"Tuple", R"(ENTRY %e { %p = f32[4] parameter(0) %q = s32[] parameter(1)
       ROOT %r = (f32[4], s32[]) tuple(%p, %q) })",
     "(f32[4], s32[])"},
    {"GetTupleElement", R"(ENTRY %e { %p = (f32[4], s32[]) parameter(0)
       ROOT %r = s32[] get-tuple-element(%p), index=1 })",
     "s32[]"},
    {"Dot", R"(ENTRY %e { %a = f32[8,2,3] parameter(0) %b = f32[8,3,5] parameter(1)
       ROOT %r = f32[8,2,5] dot(%a, %b), lhs_batch_dims={0}, rhs_batch_dims={0},
         lhs_contracting_dims={2}, rhs_contracting_dims={1} })",
     "f32[8,2,5]"},
    {"DotPreferredType", R"(ENTRY %e { %a = bf16[2,3] parameter(0) %b = bf16[3,5] parameter(1)
       ROOT %r = f32[2,5] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0} })",
     "f32[2,5]"},
    {"Convolution", R"(ENTRY %e { %x = f32[1,10,10,4] parameter(0) %k = f32[3,3,4,8] parameter(1)
       ROOT %r = f32[1,5,5,8] convolution(%x, %k), window={size=3x3 stride=2x2 pad=1_1x1_1},
         dim_labels=b01f_01io->b01f })",
     "f32[1,5,5,8]"},
    {"ConvolutionGroupedDilated",
     R"(ENTRY %e { %x = f32[2,8,9] parameter(0) %k = f32[4,4,2] parameter(1)
       ROOT %r = f32[2,4,5] convolution(%x, %k), window={size=2 pad=-1_0 rhs_dilate=3},
         dim_labels=bf0_oi0->bf0, feature_group_count=2 })",
     "f32[2,4,5]"},
    {"Fft", R"(ENTRY %e { %p = f32[4,16] parameter(0)
       ROOT %r = c64[4,9] fft(%p), fft_type=RFFT, fft_length={16} })",
     "c64[4,9]"},
    {"Irfft", R"(ENTRY %e { %p = c64[4,9] parameter(0)
       ROOT %r = f32[4,16] fft(%p), fft_type=IRFFT, fft_length={16} })",
     "f32[4,16]"},
    {"TriangularSolve", R"(ENTRY %e { %a = f32[4,4] parameter(0) %b = f32[4,3] parameter(1)
       ROOT %r = f32[4,3] triangular-solve(%a, %b), left_side=true, lower=true,
         transpose_a=NO_TRANSPOSE })",
     "f32[4,3]"},
    {"Cholesky", R"(ENTRY %e { %a = f32[2,4,4] parameter(0)
       ROOT %r = f32[2,4,4] cholesky(%a), lower=true })",
     "f32[2,4,4]"},
    {"BatchNormTraining", R"(ENTRY %e { %x = f32[2,3,4] parameter(0) %s = f32[3] parameter(1)
       ROOT %r = (f32[2,3,4], f32[3], f32[3]) batch-norm-training(%x, %s, %s), epsilon=0.001,
         feature_index=1 })",
     "(f32[2,3,4], f32[3], f32[3])"},
    {"TopK", R"(ENTRY %e { %p = f32[3,10] parameter(0)
       ROOT %r = (f32[3,2], s32[3,2]) topk(%p), k=2, largest=true })",
     "(f32[3,2], s32[3,2])"},
    {"AfterAll", R"(ENTRY %e { %t = token[] parameter(0)
       ROOT %r = token[] after-all(%t, %t) })",
     "token[]"},
    {"ReplicaId", R"(ENTRY %e { ROOT %r = u32[] replica-id() })", "u32[]"},
    {"RngBitGenerator", R"(ENTRY %e { %s = u64[2] parameter(0)
       ROOT %r = (u64[2], u32[4,4]) rng-bit-generator(%s), algorithm=rng_three_fry })",
     "(u64[2], u32[4,4])"},
    {"SendRecv", R"(ENTRY %e { %p = f32[4] parameter(0) %t = token[] after-all()
       %s = (f32[4], u32[], token[]) send(%p, %t), channel_id=1
       ROOT %d = token[] send-done(%s), channel_id=1 })",
     "token[]"},
    {"CopyStartDone", R"(ENTRY %e { %p = f32[4] parameter(0)
       %s = (f32[4], f32[4], u32[]) copy-start(%p)
       ROOT %d = f32[4] copy-done(%s) })",
     "f32[4]"},
};

INSTANTIATE_TEST_SUITE_P(Opcodes, InferShapeTest, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(InferShapeTest, ReduceDropsReducedDimensions) {
  EXPECT_EQ(InferRoot(WithAdd(R"(ENTRY %e { %p = f32[2,3,4] parameter(0) %z = f32[] constant(0)
      ROOT %r = f32[2,4] reduce(%p, %z), dimensions={1}, to_apply=%add })")),
            "f32[2,4]");
}

TEST(InferShapeTest, ReduceWindowWithPaddingAndDilation) {
  EXPECT_EQ(InferRoot(WithAdd(R"(ENTRY %e { %p = f32[10] parameter(0) %z = f32[] constant(0)
      ROOT %r = f32[5] reduce-window(%p, %z), window={size=3 stride=2 pad=1_1 lhs_dilate=1},
        to_apply=%add })")),
            "f32[5]");
}

TEST(InferShapeTest, ScatterReturnsOperandShape) {
  EXPECT_EQ(InferRoot(WithAdd(R"(ENTRY %e { %p = f32[5,7] parameter(0) %i = s32[4,1] parameter(1)
      %u = f32[4,7] parameter(2)
      ROOT %r = f32[5,7] scatter(%p, %i, %u), update_window_dims={1}, inserted_window_dims={0},
        scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%add })")),
            "f32[5,7]");
}

TEST(InferShapeTest, AllGatherMultipliesByGroupSize) {
  EXPECT_EQ(InferRoot(R"(HloModule m, replica_count=4
    ENTRY %e { %p = f32[2,3] parameter(0)
      ROOT %r = f32[2,6] all-gather(%p), replica_groups={{0,1},{2,3}}, dimensions={1} })"),
            "f32[2,6]");
}

TEST(InferShapeTest, ReduceScatterDividesByGroupSize) {
  EXPECT_EQ(InferRoot(WithAdd(R"(ENTRY %e { %p = f32[8] parameter(0)
      ROOT %r = f32[2] reduce-scatter(%p), channel_id=1, replica_groups=[1,4]<=[4],
        use_global_device_ids=true, dimensions={0}, to_apply=%add })",
                              "HloModule m, replica_count=1, num_partitions=4\n")),
            "f32[2]");
}

TEST(InferShapeTest, SortComparatorMustReturnPred) {
  std::string text = R"(
%cmp (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] maximum(%a, %b)
}
ENTRY %e { %p = f32[8] parameter(0)
  ROOT %r = f32[8] sort(%p), dimensions={0}, to_apply=%cmp })";
  EXPECT_THAT(InferRoot(text), HasSubstr("comparator computation %cmp must return pred[]"));
}

TEST(InferShapeTest, WhileBodyMustKeepTheStateShape) {
  std::string text = R"(
%cond (s: s32[]) -> pred[] {
  %s = s32[] parameter(0)
  ROOT %c = pred[] compare(%s, %s), direction=LT
}
%body (s: s32[]) -> f32[] {
  %s = s32[] parameter(0)
  ROOT %f = f32[] convert(%s)
}
ENTRY %e { %p = s32[] parameter(0)
  ROOT %w = s32[] while(%p), condition=%cond, body=%body })";
  EXPECT_THAT(InferRoot(text), HasSubstr("body computation %body must return s32[]"));
}

TEST(InferShapeTest, ConditionalBranchTakesItsOperand) {
  std::string text = R"(
%b0 (x: f32[]) -> f32[] { ROOT %x = f32[] parameter(0) }
%b1 (y: s32[]) -> f32[] { %y = s32[] parameter(0)
  ROOT %c = f32[] convert(%y) }
ENTRY %e { %i = s32[] parameter(0) %f = f32[] parameter(1) %s = s32[] parameter(2)
  ROOT %r = f32[] conditional(%i, %f, %s), branch_computations={%b0, %b1} })";
  EXPECT_EQ(InferRoot(text), "f32[]");
}

TEST(InferShapeTest, AsyncStartAndDone) {
  std::string text = R"(
%wrapped (p: f32[4]) -> f32[4,2] {
  %p = f32[4] parameter(0)
  ROOT %b = f32[4,2] broadcast(%p), dimensions={0}
}
ENTRY %e { %p = f32[4] parameter(0)
  %s = ((f32[4]), f32[4,2], s32[]) async-start(%p), calls=%wrapped
  ROOT %d = f32[4,2] async-done(%s) })";
  EXPECT_EQ(InferRoot(text), "f32[4,2]");
}

TEST(InferShapeTest, ElementwiseRejectsMismatchedDimensions) {
  EXPECT_EQ(InferRoot(R"(ENTRY %e { %a = f32[2,3] parameter(0) %b = f32[3,2] parameter(1)
      ROOT %r = f32[2,3] add(%a, %b) })"),
            "error: operands must have identical dimensions, got f32[2,3] and f32[3,2]");
}

TEST(InferShapeTest, BitcastConvertWiderNeedsMinorDimension) {
  EXPECT_THAT(InferRoot(R"(ENTRY %e { %p = u8[3] parameter(0)
      ROOT %r = f32[] bitcast-convert(%p) })"),
              HasSubstr("needs a minor dimension of 4"));
}

TEST(InferShapeTest, GatherRejectsUnsortedOffsetDims) {
  EXPECT_THAT(InferRoot(R"(ENTRY %e { %p = f32[5,7,2] parameter(0) %i = s32[4,1] parameter(1)
      ROOT %r = f32[4,7,2] gather(%p, %i), offset_dims={2,1}, collapsed_slice_dims={0},
        start_index_map={0}, index_vector_dim=1, slice_sizes={1,7,2} })"),
              HasSubstr("offset_dims {2,1} must be sorted"));
}

TEST(InferShapeTest, ConvolutionChecksFeatureGroups) {
  EXPECT_THAT(InferRoot(R"(ENTRY %e { %x = f32[1,10,6] parameter(0) %k = f32[3,4,8] parameter(1)
      ROOT %r = f32[1,8,8] convolution(%x, %k), window={size=3},
        dim_labels=b0f_0io->b0f, feature_group_count=2 })"),
              HasSubstr("input feature size 6 must equal kernel input feature size 4 times "
                        "feature_group_count 2"));
}

TEST(InferShapeTest, DotRejectsContractingSizeMismatch) {
  EXPECT_THAT(InferRoot(R"(ENTRY %e { %a = f32[2,3] parameter(0) %b = f32[4,5] parameter(1)
      ROOT %r = f32[2,5] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0} })"),
              HasSubstr("contracting dimension sizes differ"));
}

// XLA's sparse dot: the compressed operand keeps n of every m elements of its
// sparse contracting dimension; the metadata shape is XLA's
// (ShapeInferenceTest.SparseDotMetadata: f32[5,10,16] 2:4 on dim 2 -> u16[5,10,2]).
TEST(InferShapeTest, SparseDot) {
  EXPECT_EQ(InferRoot(R"(ENTRY %e { %a = f32[5,10,16] parameter(0) %b = f32[5,32,7] parameter(1)
      %m = u16[5,10,2] parameter(2)
      ROOT %r = f32[5,10,7] dot(%a, %b, %m), lhs_batch_dims={0}, rhs_batch_dims={0},
        lhs_contracting_dims={2}, rhs_contracting_dims={1}, sparsity=L.2@2:4 })"),
            "f32[5,10,7]");
  EXPECT_EQ(InferRoot(R"(ENTRY %e { %a = f32[2,8] parameter(0) %b = f32[4,3] parameter(1)
      %m = u16[1,3] parameter(2)
      ROOT %r = f32[2,3] dot(%a, %b, %m), lhs_contracting_dims={1}, rhs_contracting_dims={0},
        sparsity=R.0@2:4 })"),
            "f32[2,3]");
  EXPECT_THAT(InferRoot(R"(ENTRY %e { %a = f32[2,8] parameter(0) %b = f32[8,3] parameter(1)
      %m = u16[2,1] parameter(2)
      ROOT %r = f32[2,3] dot(%a, %b, %m), lhs_contracting_dims={1}, rhs_contracting_dims={0},
        sparsity=L.1@2:4 })"),
              HasSubstr("do not match the n:m ratio"));
  EXPECT_THAT(InferRoot(R"(ENTRY %e { %a = f32[2,8] parameter(0) %b = f32[16,3] parameter(1)
      %m = u16[2,2] parameter(2)
      ROOT %r = f32[2,3] dot(%a, %b, %m), lhs_contracting_dims={1}, rhs_contracting_dims={0},
        sparsity=L.1@2:4 })"),
              HasSubstr("metadata operand 2 must be u16[2,1], got u16[2,2]"));
}

TEST(InferShapeTest, DynamicSliceNeedsOneIndexPerDimension) {
  EXPECT_THAT(InferRoot(R"(ENTRY %e { %p = f32[10,8] parameter(0) %i = s32[] parameter(1)
      ROOT %r = f32[2,8] dynamic-slice(%p, %i), dynamic_slice_sizes={2,8} })"),
              HasSubstr("needs 2 start indices"));
}

TEST(InferShapeTest, ReduceScatterNeedsDivisibleDimension) {
  EXPECT_THAT(InferRoot(WithAdd(R"(ENTRY %e { %p = f32[6] parameter(0)
      ROOT %r = f32[1] reduce-scatter(%p), replica_groups={{0,1,2,3}}, dimensions={0},
        to_apply=%add })",
                                "HloModule m, replica_count=4\n")),
              HasSubstr("not divisible by the group size 4"));
}

// The verifier's fast path (WrittenShapeTriviallyHolds) may only accept what
// InferShape accepts: checked over every elementwise opcode with operands and
// results of matching and mismatching types and dimensions, unbounded `?`
// dimensions included.
TEST(WrittenShapeTriviallyHoldsTest, NeverAcceptsWhatInferenceRejects) {
  const char* kShapes[] = {"f32[2,3]", "f32[3,2]", "s32[2,3]", "pred[2,3]",
                           "c64[2,3]", "f32[?,3]", "f32[]",    "bf16[2,3]"};
  int accepted = 0, checked = 0;
  for (int i = 0; i < kNumOpcodes; ++i) {
    const HloOpcode op = static_cast<HloOpcode>(i);
    const int arity = OpcodeArity(op);
    if (!IsElementwiseOpcode(op) || (arity != 1 && arity != 2)) continue;
    for (const char* a : kShapes) {
      for (const char* b : kShapes) {
        for (const char* out : kShapes) {
          std::string operands = arity == 1 ? "%a" : "%a, %b";
          std::string text = absl::StrCat("ENTRY %e {\n  %a = ", a, " parameter(0)\n  %b = ", b,
                                          " parameter(1)\n  ROOT %r = ", out, " ",
                                          AsAbsl(OpcodeName(op)), "(", operands, ")\n}");
          absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
          if (!module.ok()) continue;  // e.g. an opcode that needs attributes
          const HloInstruction& root = *(*module)->entry_computation()->root_instruction();
          ++checked;
          if (!WrittenShapeTriviallyHolds(root)) continue;
          ++accepted;
          absl::StatusOr<Shape> inferred = InferShape(root);
          ASSERT_TRUE(inferred.ok()) << text << "\n" << inferred.status();
          EXPECT_TRUE(ShapesCompatible(*inferred, root.shape())) << text;
        }
      }
    }
  }
  // The property was exercised both ways.
  EXPECT_GT(accepted, 50);
  EXPECT_GT(checked - accepted, 1000);
}

TEST(WrittenShapeTriviallyHoldsTest, ParametersHoldOtherOpcodesNeedInference) {
  std::unique_ptr<HloModule> module = Parse(R"(ENTRY %e {
  %p = f32[2,3] parameter(0)
  ROOT %t = f32[3,2] transpose(%p), dimensions={1,0}
})");
  const HloComputation& entry = *module->entry_computation();
  EXPECT_TRUE(WrittenShapeTriviallyHolds(*entry.parameter_instruction(0)));
  EXPECT_FALSE(WrittenShapeTriviallyHolds(*entry.root_instruction()));
}

}  // namespace
}  // namespace xlite
