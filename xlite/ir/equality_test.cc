#include "xlite/ir/equality.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/ir/builder.h"

namespace xlite {
namespace {

using PT = PrimitiveType;
using ::testing::HasSubstr;

// entry(p0: f32[4]{0}) = add(p0, reduce(p0, 0, to_apply=sum)); distinct
// modules from each call so that the tests can mutate one side.
std::unique_ptr<HloModule> MakeTestModule() {
  NameUniquer names;
  HloBuilder sum_builder("sum", &names);
  HloInstruction* a = sum_builder.AddParameter(0, Shape::Scalar(PT::F32));
  HloInstruction* b = sum_builder.AddParameter(1, Shape::Scalar(PT::F32));
  sum_builder.AddInstruction(HloOpcode::kAdd, Shape::Scalar(PT::F32), {a, b});
  std::unique_ptr<HloComputation> sum = sum_builder.Build();

  HloBuilder entry_builder("main", &names);
  Shape vec(PT::F32, {4});
  vec.set_layout(Layout({0}));
  HloInstruction* p0 = entry_builder.AddParameter(0, vec);
  HloInstruction* zero = entry_builder.AddScalarConstant(PT::F32, 0);
  HloInstruction* reduce =
      entry_builder.AddInstruction(HloOpcode::kReduce, Shape::Scalar(PT::F32), {p0, zero});
  reduce->set_dimensions({0});
  reduce->AppendCalledComputation(sum.get());
  HloInstruction* bcast = entry_builder.AddInstruction(HloOpcode::kBroadcast, vec, {reduce});
  bcast->set_dimensions({});
  entry_builder.AddInstruction(HloOpcode::kAdd, vec, {p0, bcast});
  std::vector<std::unique_ptr<HloComputation>> comps;
  comps.push_back(std::move(sum));
  comps.push_back(entry_builder.Build());
  return MakeModule("m", std::move(comps));
}

HloInstruction* Find(const HloModule& m, std::string_view name) {
  for (const auto& c : m.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->name() == name) return i.get();
    }
  }
  return nullptr;
}

TEST(BuilderTest, NamesAreUniqueAcrossSharedBuilders) {
  auto m = MakeTestModule();
  ASSERT_EQ(m->computations().size(), 2u);
  EXPECT_EQ(m->entry_computation()->name(), "main");
  EXPECT_NE(Find(*m, "add"), nullptr);
  EXPECT_NE(Find(*m, "add.1"), nullptr);
  EXPECT_EQ(Find(*m, "parameter.2")->parameter_number(), 0);
  EXPECT_EQ(m->entry_computation()->root_instruction()->name(), "add.1");
  EXPECT_EQ(Find(*m, "constant")->literal().GetDouble(0), 0.0);
  EXPECT_EQ(m->EntryParameterShapes()[0].ToString(), "f32[4]{0}");
  EXPECT_EQ(m->EntryResultShape().ToString(), "f32[4]{0}");
  NameUniquer names;
  names.Reserve("x.1");
  EXPECT_EQ(names.GetUniqueName("x"), "x");
  EXPECT_EQ(names.GetUniqueName("x"), "x.2");
}

TEST(BuilderTest, TuplesAndDefaultRecords) {
  HloBuilder b("t");
  HloInstruction* p = b.AddParameter(0, Shape(PT::S32, {2}));
  HloInstruction* t = b.AddTuple({p, p});
  HloInstruction* gte = b.AddGetTupleElement(t, 1);
  EXPECT_EQ(t->shape().ToString(), "(s32[2], s32[2])");
  EXPECT_EQ(gte->tuple_index(), 1);
  EXPECT_TRUE(b.AddInstruction(HloOpcode::kCompare, Shape(PT::PRED, {2}), {p, p})->has_attrs());
  EXPECT_FALSE(b.AddInstruction(HloOpcode::kExp, Shape(PT::F32, {}), {})->has_attrs());
  std::unique_ptr<HloComputation> c = b.Build();
  EXPECT_EQ(c->instruction_count(), 5);
  EXPECT_EQ(c->parameter_instruction(0), p);
}

TEST(EqualityTest, IdenticalModulesAreEqual) {
  auto a = MakeTestModule();
  auto b = MakeTestModule();
  std::string diff;
  EXPECT_TRUE(ModulesEqual(*a, *b, &diff)) << diff;
}

TEST(EqualityTest, ReportsFirstDifference) {
  auto a = MakeTestModule();
  std::string diff;
  {
    auto b = MakeTestModule();
    Find(*b, "add.1")->mutable_shape()->clear_layout();
    EXPECT_FALSE(ModulesEqual(*a, *b, &diff));
    EXPECT_THAT(diff, HasSubstr("instruction add.1: shape f32[4]{0} vs f32[4]"));
  }
  {
    auto b = MakeTestModule();
    Find(*b, "broadcast")->set_dimensions({0});
    EXPECT_FALSE(ModulesEqual(*a, *b, &diff));
    EXPECT_THAT(diff, HasSubstr("broadcast: dimensions"));
  }
  {
    auto b = MakeTestModule();
    Find(*b, "constant")->mutable_attrs<ConstantAttrs>()->literal.SetDouble(0, 1);
    EXPECT_FALSE(ModulesEqual(*a, *b, &diff));
    EXPECT_THAT(diff, HasSubstr("constant: attributes differ"));
  }
  {
    auto b = MakeTestModule();
    HloSharding s = HloSharding::Replicated();
    Find(*a, "add.1")->set_sharding(s);
    OpMetadata meta;
    meta.op_name = "jit(f)";
    s.mutable_metadata().push_back(meta);
    Find(*b, "add.1")->set_sharding(s);
    EXPECT_FALSE(ModulesEqual(*a, *b, &diff));
    EXPECT_THAT(diff, HasSubstr("sharding"));
    Find(*a, "add.1")->clear_sharding();
  }
  {
    auto b = MakeTestModule();
    Find(*b, "add")->mutable_metadata()->op_name = "x";
    EXPECT_FALSE(ModulesEqual(*a, *b, &diff));
    EXPECT_THAT(diff, HasSubstr("computation sum, instruction add: metadata"));
  }
  {
    auto b = MakeTestModule();
    Find(*b, "parameter.2")->AddControlDependencyTo(Find(*b, "constant"));
    EXPECT_FALSE(ModulesEqual(*a, *b, &diff));
    EXPECT_THAT(diff, HasSubstr("control predecessors"));
  }
  {
    auto b = MakeTestModule();
    b->config().num_partitions = 2;
    EXPECT_FALSE(ModulesEqual(*a, *b, &diff));
    EXPECT_THAT(diff, HasSubstr("num_partitions"));
  }
  {
    auto b = MakeTestModule();
    b->set_schedule(HloSchedule::FromDefinitionOrder(*b));
    EXPECT_FALSE(ModulesEqual(*a, *b, &diff));
    EXPECT_THAT(diff, HasSubstr("is_scheduled"));
  }
  {
    auto b = MakeTestModule();
    b->stack_frames().file_names.push_back("a.py");
    EXPECT_FALSE(ModulesEqual(*a, *b, &diff));
    EXPECT_THAT(diff, HasSubstr("stack frame"));
  }
  {
    auto b = MakeTestModule();
    Find(*b, "reduce")->set_backend_config("x", false);
    EXPECT_FALSE(ModulesEqual(*a, *b, &diff));
    EXPECT_THAT(diff, HasSubstr("backend_config"));
  }
}

}  // namespace
}  // namespace xlite
