#include "xlite/ir/module.h"

#include "gtest/gtest.h"
#include "xlite/ir/equality.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite {
namespace {

// Everything a clone must carry: a scheduled module with a fusion, a while,
// control dependencies, sharding, metadata, frontend attributes, backend
// config, aliasing and a constant.
constexpr char kModule[] =
    R"(HloModule m, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }, num_partitions=2

fused {
  a = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(a)
}

cond {
  t = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(i, k), direction=LT
}

body {
  t = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  v = f32[4]{0} get-tuple-element(t), index=1
  f = f32[4]{0} fusion(v), kind=kLoop, calls=fused
  ROOT r = (s32[], f32[4]{0}) tuple(j, f)
}

ENTRY e {
  x = f32[4]{0} parameter(0), sharding={devices=[2]0,1}, metadata={op_name="x" source_line=7}
  c = f32[4]{0} constant({1, 2, 3, 4}), frontend_attributes={a="b"}
  s = f32[4]{0} add(x, c), backend_config="cfg"
  zero = s32[] constant(0)
  init = (s32[], f32[4]{0}) tuple(zero, s), control-predecessors={c}
  w = (s32[], f32[4]{0}) while(init), condition=cond, body=body
  ROOT out = f32[4]{0} get-tuple-element(w), index=1
}
)";

TEST(HloModuleTest, CloneIsTheSameModuleSharingNothing) {
  auto parsed = ParseHloModule(kModule);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const HloModule& original = **parsed;
  std::unique_ptr<HloModule> clone = original.Clone();
  std::string difference;
  EXPECT_TRUE(ModulesEqual(original, *clone, &difference)) << difference;
  EXPECT_EQ(PrintModule(*clone), PrintModule(original));
  ASSERT_TRUE(clone->is_scheduled());
  EXPECT_EQ(clone->schedule().sequence(*clone->entry_computation()).size(), 7u);

  // Every pointer leads into the clone.
  for (const auto& c : clone->computations()) {
    EXPECT_EQ(c->parent(), clone.get());
    for (const auto& inst : c->instructions()) {
      EXPECT_EQ(inst->parent(), c.get());
      for (const HloInstruction* op : inst->operands()) EXPECT_EQ(op->parent(), c.get());
      for (const HloComputation* called : inst->called_computations()) {
        EXPECT_EQ(called->parent(), clone.get());
      }
    }
  }
  // Changing the clone leaves the original as it was.
  const std::string before = PrintModule(original);
  clone->entry_computation()->root_instruction()->set_name("renamed");
  clone->entry_computation()->parameter_instruction(0)->clear_sharding();
  EXPECT_EQ(PrintModule(original), before);
  // New instructions in the clone get ids the original never handed out.
  EXPECT_GT(clone->NextUniqueId(), original.entry_computation()->root_instruction()->unique_id());
}

}  // namespace
}  // namespace xlite
