#include "xlite/passes/cse.h"

#include <string>

#include "gtest/gtest.h"
#include "xlite/passes/pass_test_util.h"

namespace xlite {
namespace {

using testing::RunPassAndCompare;

int64_t CountOpcode(const HloComputation& computation, HloOpcode opcode) {
  int64_t count = 0;
  for (const auto& inst : computation.instructions()) count += inst->opcode() == opcode;
  return count;
}

TEST(Cse, MergesEqualSlicesAndGetTupleElementsOnly) {
  CsePass pass;
  auto module = RunPassAndCompare(R"(
HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  sl1 = f32[2] slice(p), slice={[0:2]}
  sl2 = f32[2] slice(p), slice={[0:2]}
  sl3 = f32[2] slice(p), slice={[2:4]}
  sl4 = f32[2] slice(p), slice={[0:4:2]}
  t = (f32[2], f32[2], f32[2], f32[2]) tuple(sl1, sl2, sl3, sl4)
  g1 = f32[2] get-tuple-element(t), index=0
  g2 = f32[2] get-tuple-element(t), index=0
  g3 = f32[2] get-tuple-element(t), index=1
  ROOT r = (f32[2], f32[2], f32[2]) tuple(g1, g2, g3)
})",
                                  pass, true);
  ASSERT_NE(module, nullptr);
  const HloComputation& e = *module->entry_computation();
  EXPECT_EQ(CountOpcode(e, HloOpcode::kSlice), 3);
  EXPECT_EQ(CountOpcode(e, HloOpcode::kGetTupleElement), 2);
}

// The growth benchmark's wide module: many distinct slices of one parameter,
// each used once. Nothing merges; with attributes hashed every slice has a
// bucket of its own (see AttrsHash.DistinguishesRecordsOfOneKind).
TEST(Cse, KeepsManyDistinctSlicesOfOneParameter) {
  constexpr int64_t kCount = 20000;
  std::string text =
      "HloModule m\nENTRY e {\n  p = f32[" + std::to_string(2 * kCount) + "] parameter(0)\n";
  std::string root_shape, root_operands;
  for (int64_t i = 0; i < kCount; ++i) {
    std::string name = "sl" + std::to_string(i);
    text += "  " + name + " = f32[2] slice(p), slice={[" + std::to_string(2 * i) + ":" +
            std::to_string(2 * i + 2) + "]}\n";
    root_shape += std::string(i == 0 ? "" : ", ") + "f32[2]";
    root_operands += std::string(i == 0 ? "" : ", ") + name;
  }
  text += "  ROOT t = (" + root_shape + ") tuple(" + root_operands + ")\n}\n";
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  CsePass pass;
  auto changed = pass.Run(**module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(CountOpcode(*(*module)->entry_computation(), HloOpcode::kSlice), kCount);
}

}  // namespace
}  // namespace xlite
