// gather and scatter in their canonical forms. Inputs and expected outputs
// come from scripts/gather_scatter_goldens.py (numpy indexing, independent of
// the evaluator), committed as testdata/gather_scatter_goldens.txt.
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/eval/eval_test_util.h"

namespace xlite::eval {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::EvaluateText;
using testing::MakeLiteral;
using testing::ToDoubles;

const std::map<std::string, std::vector<double>>& Goldens() {
  static const auto* goldens = [] {
    auto* m = new std::map<std::string, std::vector<double>>();
    std::ifstream in(XLITE_SOURCE_DIR "/xlite/eval/testdata/gather_scatter_goldens.txt");
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string name, array;
      fields >> name >> array;
      std::vector<double>& values = (*m)[name + "/" + array];
      double v;
      while (fields >> v) values.push_back(v);
    }
    return m;
  }();
  return *goldens;
}

std::vector<double> Golden(const std::string& name, const std::string& array) {
  auto it = Goldens().find(name + "/" + array);
  EXPECT_NE(it, Goldens().end()) << "missing golden " << name << "/" << array;
  return it == Goldens().end() ? std::vector<double>{} : it->second;
}

Literal Arg(const std::string& name, const std::string& array, std::string_view shape) {
  return MakeLiteral(shape, Golden(name, array));
}

std::vector<double> Eval(const std::string& text, const std::vector<Literal>& args) {
  auto r = EvaluateText(text, args);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? ToDoubles(*r) : std::vector<double>{};
}

TEST(Gather, TakeAlongAxisWithBatchingDims) {
  // torch.gather(x, 1, idx): rows pair up through the batching dims; the
  // index vector is implicit (index_vector_dim == rank of the indices).
  EXPECT_THAT(Eval(R"(HloModule m
ENTRY e {
  x = f32[3,4] parameter(0)
  i = s32[3,2] parameter(1)
  ROOT g = f32[3,2] gather(x, i), offset_dims={}, collapsed_slice_dims={1},
    start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0},
    index_vector_dim=2, slice_sizes={1,1}
})",
                   {Arg("take_along_axis", "operand", "f32[3,4]"),
                    Arg("take_along_axis", "indices", "s32[3,2]")}),
              ElementsAreArray(Golden("take_along_axis", "expected")));
}

TEST(Gather, TakeAlongAxisWithIndexPairs) {
  EXPECT_THAT(Eval(R"(HloModule m
ENTRY e {
  x = f32[3,4] parameter(0)
  i = s32[3,2,2] parameter(1)
  ROOT g = f32[3,2] gather(x, i), offset_dims={}, collapsed_slice_dims={0,1},
    start_index_map={0,1}, index_vector_dim=2, slice_sizes={1,1}
})",
                   {Arg("take_along_axis", "operand", "f32[3,4]"),
                    Arg("take_along_axis_pairs", "indices", "s32[3,2,2]")}),
              ElementsAreArray(Golden("take_along_axis", "expected")));
}

TEST(Gather, EmbeddingLookupClampsIds) {
  EXPECT_THAT(
      Eval(R"(HloModule m
ENTRY e {
  t = f32[5,3] parameter(0)
  i = s32[4] parameter(1)
  ROOT g = f32[4,3] gather(t, i), offset_dims={1}, collapsed_slice_dims={0},
    start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
})",
           {Arg("embedding", "operand", "f32[5,3]"), Arg("embedding", "indices", "s32[4]")}),
      ElementsAreArray(Golden("embedding", "expected")));
}

TEST(Gather, BatchingDimsNotLeading) {
  // operand [V,B,D], indices [S,B]: out[s,b,:] = operand[idx[s,b], b, :].
  EXPECT_THAT(
      Eval(R"(HloModule m
ENTRY e {
  x = f32[5,2,3] parameter(0)
  i = s32[4,2] parameter(1)
  ROOT g = f32[4,2,3] gather(x, i), offset_dims={2}, collapsed_slice_dims={0},
    start_index_map={0}, operand_batching_dims={1}, start_indices_batching_dims={1},
    index_vector_dim=2, slice_sizes={1,1,3}
})",
           {Arg("batched", "operand", "f32[5,2,3]"), Arg("batched", "indices", "s32[4,2]")}),
      ElementsAreArray(Golden("batched", "expected")));
}

TEST(Gather, IndexVectorDimFirstWithClampedWindows) {
  // Columns of the indices are (row, col) starts of 2x3 windows; the batch
  // dim of the output sits between the two offset dims.
  EXPECT_THAT(
      Eval(R"(HloModule m
ENTRY e {
  x = f32[5,6] parameter(0)
  i = s32[2,3] parameter(1)
  ROOT g = f32[2,3,3] gather(x, i), offset_dims={0,2}, collapsed_slice_dims={},
    start_index_map={0,1}, index_vector_dim=0, slice_sizes={2,3}
})",
           {Arg("ivd_first", "operand", "f32[5,6]"), Arg("ivd_first", "indices", "s32[2,3]")}),
      ElementsAreArray(Golden("ivd_first", "expected")));
}

TEST(Gather, UnsignedIndicesClamp) {
  // u8 200 is past the end (not negative): clamped to the last row.
  EXPECT_THAT(Eval(R"(HloModule m
ENTRY e {
  t = s16[3,2] parameter(0)
  i = u8[2] parameter(1)
  ROOT g = s16[2,2] gather(t, i), offset_dims={1}, collapsed_slice_dims={0},
    start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}
})",
                   {MakeLiteral("s16[3,2]", {1, 2, 3, 4, 5, 6}), MakeLiteral("u8[2]", {200, 1})}),
              ElementsAre(5, 6, 3, 4));
}

constexpr const char* kAdd = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

TEST(Scatter, AddWithDuplicateIndices) {
  EXPECT_THAT(
      Eval(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[4,3] parameter(0)
  i = s32[5] parameter(1)
  u = f32[5,3] parameter(2)
  ROOT s = f32[4,3] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0},
    scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})",
           {Arg("scatter_add", "operand", "f32[4,3]"), Arg("scatter_add", "indices", "s32[5]"),
            Arg("scatter_add", "updates", "f32[5,3]")}),
      ElementsAreArray(Golden("scatter_add", "expected")));
}

TEST(Scatter, OverwriteAppliesInOrder) {
  EXPECT_THAT(Eval(R"(HloModule m
assign {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
ENTRY e {
  x = f32[4,3] parameter(0)
  i = s32[3,1] parameter(1)
  u = f32[3,3] parameter(2)
  ROOT s = f32[4,3] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0},
    scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign
})",
                   {Arg("scatter_overwrite", "operand", "f32[4,3]"),
                    Arg("scatter_overwrite", "indices", "s32[3,1]"),
                    Arg("scatter_overwrite", "updates", "f32[3,3]")}),
              ElementsAreArray(Golden("scatter_overwrite", "expected")));
}

TEST(Scatter, OutOfBoundsWindowIsSkipped) {
  EXPECT_THAT(
      Eval(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[6] parameter(0)
  i = s32[4,1] parameter(1)
  u = f32[4,2] parameter(2)
  ROOT s = f32[6] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={},
    scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})",
           {Arg("scatter_oob", "operand", "f32[6]"), Arg("scatter_oob", "indices", "s32[4,1]"),
            Arg("scatter_oob", "updates", "f32[4,2]")}),
      ElementsAreArray(Golden("scatter_oob", "expected")));
}

// A two-operand scatter of T[n] operands and T[k] updates at s32[k] indices
// whose update computation returns `root` over parameters a0 a1 upd0 upd1.
std::string VariadicScatter(const std::string& t, int n, int k, const std::string& root) {
  std::string op = t + "[" + std::to_string(n) + "]", up = t + "[" + std::to_string(k) + "]";
  return "HloModule m\ncombine {\n  a0 = " + t + "[] parameter(0)\n  a1 = " + t +
         "[] parameter(1)\n  upd0 = " + t + "[] parameter(2)\n  upd1 = " + t +
         "[] parameter(3)\n  ROOT t = (" + t + "[], " + t + "[]) tuple(" + root +
         ")\n}\nENTRY e {\n  x0 = " + op + " parameter(0)\n  x1 = " + op +
         " parameter(1)\n  i = s32[" + std::to_string(k) + "] parameter(2)\n  upd0 = " + up +
         " parameter(3)\n  upd1 = " + up + " parameter(4)\n  ROOT s = (" + op + ", " + op +
         ") scatter(x0, x1, i, upd0, upd1), update_window_dims={}, inserted_window_dims={0}, "
         "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine\n}\n";
}

TEST(Scatter, VariadicRunsTheComputation) {
  // (a0, a1, u0, u1) -> (u1, a0): not a fast-path shape, so each element goes
  // through the computation; duplicates chain through the updated a0.
  auto r = EvaluateText(
      VariadicScatter("f32", 5, 3, "upd1, a0"),
      {Arg("scatter_variadic", "operand0", "f32[5]"), Arg("scatter_variadic", "operand1", "f32[5]"),
       MakeLiteral("s32[3]", Golden("scatter_variadic", "indices")),
       Arg("scatter_variadic", "updates0", "f32[3]"),
       Arg("scatter_variadic", "updates1", "f32[3]")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(r->tuple_elements()[0]),
              ElementsAreArray(Golden("scatter_variadic", "expected0")));
  EXPECT_THAT(ToDoubles(r->tuple_elements()[1]),
              ElementsAreArray(Golden("scatter_variadic", "expected1")));
}

TEST(Scatter, VariadicOverwrite) {
  // u0 = [7, 8] to positions 2 and 0 of x0; u1 = [1, 2] likewise into x1.
  auto r = EvaluateText(VariadicScatter("s32", 3, 2, "upd0, upd1"),
                        {MakeLiteral("s32[3]", {0, 0, 0}), MakeLiteral("s32[3]", {5, 5, 5}),
                         MakeLiteral("s32[2]", {2, 0}), MakeLiteral("s32[2]", {7, 8}),
                         MakeLiteral("s32[2]", {1, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(r->tuple_elements()[0]), ElementsAre(8, 0, 7));
  EXPECT_THAT(ToDoubles(r->tuple_elements()[1]), ElementsAre(2, 5, 1));
}

TEST(Scatter, BatchingDimsWithMaximum) {
  // operand [B,N], indices [S,B]: operand[b, idx[s,b]] = max(., updates[s,b]).
  EXPECT_THAT(Eval(R"(HloModule m
max {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY e {
  x = s32[2,4] parameter(0)
  i = s32[3,2] parameter(1)
  u = s32[3,2] parameter(2)
  ROOT s = s32[2,4] scatter(x, i, u), update_window_dims={}, inserted_window_dims={1},
    scatter_dims_to_operand_dims={1}, input_batching_dims={0},
    scatter_indices_batching_dims={1}, index_vector_dim=2, to_apply=max
})",
                   {Arg("scatter_batching", "operand", "s32[2,4]"),
                    Arg("scatter_batching", "indices", "s32[3,2]"),
                    Arg("scatter_batching", "updates", "s32[3,2]")}),
              ElementsAreArray(Golden("scatter_batching", "expected")));
}

TEST(Scatter, ComputationCalledPerElement) {
  // A computation that ignores its inputs (constant 7) is not a fast path:
  // every in-bounds position written gets 7; index 9 is skipped.
  EXPECT_THAT(Eval(R"(HloModule m
seven {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT c = bf16[] constant(7)
}
ENTRY e {
  x = bf16[4] parameter(0)
  i = s32[2] parameter(1)
  u = bf16[2] parameter(2)
  ROOT s = bf16[4] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0},
    scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=seven
})",
                   {MakeLiteral("bf16[4]", {1, 2, 3, 4}), MakeLiteral("s32[2]", {1, 9}),
                    MakeLiteral("bf16[2]", {0, 0})}),
              ElementsAre(1, 7, 3, 4));
}

TEST(Scatter, MultiplyNarrowFloat) {
  // bf16 products round once per store: 3 * 1.5 = 4.5, then * 2 = 9.
  EXPECT_THAT(Eval(R"(HloModule m
mul {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT m = bf16[] multiply(b, a)
}
ENTRY e {
  x = bf16[3] parameter(0)
  i = s32[2] parameter(1)
  u = bf16[2] parameter(2)
  ROOT s = bf16[3] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0},
    scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mul
})",
                   {MakeLiteral("bf16[3]", {1, 3, 5}), MakeLiteral("s32[2]", {1, 1}),
                    MakeLiteral("bf16[2]", {1.5, 2})}),
              ElementsAre(1, 9, 5));
}

TEST(Gather, StartIndexMapOutOfOrder) {
  // x[r,c] = 4r + c; vector (1,2) means column 1, row 2 -> 9; (3,0) -> x[0,3] = 3.
  std::vector<double> x(12);
  for (int i = 0; i < 12; ++i) x[i] = i;
  EXPECT_THAT(Eval(R"(HloModule m
ENTRY e {
  x = f32[3,4] parameter(0)
  i = s32[2,2] parameter(1)
  ROOT g = f32[2] gather(x, i), offset_dims={}, collapsed_slice_dims={0,1},
    start_index_map={1,0}, index_vector_dim=1, slice_sizes={1,1}
})",
                   {MakeLiteral("f32[3,4]", x), MakeLiteral("s32[2,2]", {1, 2, 3, 0})}),
              ElementsAre(9, 3));
}

TEST(Scatter, WindowDimBeforeScatterDim) {
  // updates[w, s] goes to operand[w, idx[s]]: column 1 gets (1,3,5), column 0
  // gets (2,4,6).
  EXPECT_THAT(Eval(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  x = f32[3,2] parameter(0)
  i = s32[2] parameter(1)
  u = f32[3,2] parameter(2)
  ROOT s = f32[3,2] scatter(x, i, u), update_window_dims={0}, inserted_window_dims={1},
    scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=add
})",
                   {MakeLiteral("f32[3,2]", {0, 0, 0, 0, 0, 0}), MakeLiteral("s32[2]", {1, 0}),
                    MakeLiteral("f32[3,2]", {1, 2, 3, 4, 5, 6})}),
              ElementsAre(2, 1, 4, 3, 6, 5));
}

TEST(Scatter, IntegerAddAndMultiplyWrap) {
  // s8: 127 + 1 wraps to -128. u16: 65535 * 65535 = 2^32 - 2^17 + 1 = 1 mod 2^16.
  auto text = [](const std::string& t, const std::string& op) {
    return "HloModule m\nf {\n  a = " + t + "[] parameter(0)\n  b = " + t +
           "[] parameter(1)\n  ROOT r = " + t + "[] " + op + "(a, b)\n}\nENTRY e {\n  x = " + t +
           "[2] parameter(0)\n  i = s32[1] parameter(1)\n  u = " + t +
           "[1] parameter(2)\n  ROOT s = " + t +
           "[2] scatter(x, i, u), update_window_dims={}, "
           "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
           "to_apply=f\n}\n";
  };
  EXPECT_THAT(Eval(text("s8", "add"), {MakeLiteral("s8[2]", {127, 3}), MakeLiteral("s32[1]", {0}),
                                       MakeLiteral("s8[1]", {1})}),
              ElementsAre(-128, 3));
  EXPECT_THAT(
      Eval(text("u16", "multiply"), {MakeLiteral("u16[2]", {4, 65535}), MakeLiteral("s32[1]", {1}),
                                     MakeLiteral("u16[1]", {65535})}),
      ElementsAre(4, 1));
}

}  // namespace
}  // namespace xlite::eval
