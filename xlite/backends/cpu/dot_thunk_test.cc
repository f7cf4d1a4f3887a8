// Batched dots on the cpu backend's library thunk against the interpreter:
// batch dimensions leading or in the middle, transposed operands, f32 and
// f64, batches the pool splits (even and uneven shares) and batches run one
// gemm after another, on one thread and on several; other element types go
// through the evaluator.
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "xlite/backends/cpu/cpu_test_util.h"

namespace xlite::cpu {
namespace {

constexpr int kThreadCounts[] = {1, 2, 3};

// A module of one dot of parameters `lhs` and `rhs` giving `out`.
std::string DotModule(const std::string& type, const std::string& lhs, const std::string& rhs,
                      const std::string& out, const std::string& dims) {
  return absl::StrCat("HloModule m\nENTRY e {\n  x = ", type, lhs, " parameter(0)\n  w = ", type,
                      rhs, " parameter(1)\n  ROOT d = ", type, out, " dot(x, w), ", dims, "\n}\n");
}

struct BatchedCase {
  const char* lhs;
  const char* rhs;
  const char* out;
  const char* dims;
};

// Each large enough for the pool to split where the batch allows it.
constexpr BatchedCase kBatchedCases[] = {
    // Leading batch, plain operands; 4 and 9 (uneven over 2) elements.
    {"[4,32,64]", "[4,64,40]", "[4,32,40]",
     "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}"},
    {"[9,32,64]", "[9,64,40]", "[9,32,40]",
     "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}"},
    // 5 elements over 2 threads: one gemm after another.
    {"[5,32,64]", "[5,64,40]", "[5,32,40]",
     "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}"},
    // Both operands transposed.
    {"[6,64,32]", "[6,40,64]", "[6,32,40]",
     "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_contracting_dims={2}"},
    // Attention's bqhd,bkhd->bhqk: batch dimensions split around the free one.
    {"[2,48,3,64]", "[2,40,3,64]", "[2,3,48,40]",
     "lhs_batch_dims={0,2}, rhs_batch_dims={0,2}, lhs_contracting_dims={3}, "
     "rhs_contracting_dims={3}"},
    // Attention's bhqk,bkhd->bhqd: the rhs batch in the middle, untransposed.
    {"[2,3,48,40]", "[2,40,3,64]", "[2,3,48,64]",
     "lhs_batch_dims={0,1}, rhs_batch_dims={0,2}, lhs_contracting_dims={3}, "
     "rhs_contracting_dims={1}"},
    // The lhs batch after its free dimension, the rhs transposed.
    {"[32,4,64]", "[4,40,64]", "[4,32,40]",
     "lhs_batch_dims={1}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}"},
};

TEST(DotThunkTest, BatchedDotsMatchTheInterpreterInF32AndF64) {
  for (const BatchedCase& c : kBatchedCases) {
    for (int threads : kThreadCounts) {
      for (const auto& [type, relative] : {std::pair{"f32", 1e-5}, std::pair{"f64", 1e-12}}) {
        SCOPED_TRACE(absl::StrCat(type, c.lhs, " x ", c.rhs, " on ", threads, " threads"));
        const std::string report = ExpectSameAsInterpreter(
            DotModule(type, c.lhs, c.rhs, c.out, c.dims), relative, threads);
        EXPECT_TRUE(HasLine(report, "dot", "d (dot)")) << report;
      }
    }
  }
}

TEST(DotThunkTest, BatchedDotsOfOtherTypesFallBack) {
  for (const char* type : {"s32", "bf16"}) {
    SCOPED_TRACE(type);
    const BatchedCase& c = kBatchedCases[0];
    const std::string report =
        ExpectSameAsInterpreter(DotModule(type, c.lhs, c.rhs, c.out, c.dims), 0, 2);
    EXPECT_TRUE(HasLine(report, "fallback", "d (dot)")) << report;
  }
}

}  // namespace
}  // namespace xlite::cpu
