#include "xlite/analysis/verifier.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/analysis/call_graph.h"
#include "xlite/analysis/test_util.h"
#include "xlite/ir/builder.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;
using testing::Parse;
using testing::VerifyErrors;

std::string Errors(const HloModule& module, const VerifyOptions& options = {}) {
  return absl::StrJoin(VerifyModuleAll(module, options), "\n");
}

constexpr char kAdd[] = R"(
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
)";

TEST(VerifierTest, AcceptsValidModule) {
  EXPECT_EQ(VerifyErrors(absl::StrCat("HloModule m\n", kAdd, R"(
ENTRY %main (p: f32[2,3]) -> f32[3] {
  %p = f32[2,3] parameter(0)
  %z = f32[] constant(0)
  %r = f32[3] reduce(%p, %z), dimensions={0}, to_apply=%add
  ROOT %n = f32[3] negate(%r)
})")),
            "");
  EXPECT_TRUE(VerifyModule(*Parse("ENTRY %e { ROOT %p = f32[] parameter(0) }")).ok());
}

TEST(VerifierTest, ReportsElementwiseDimensionMismatch) {
  EXPECT_EQ(VerifyErrors(R"(HloModule m
ENTRY %main {
  %a = f32[2,3] parameter(0)
  %b = f32[3,2] parameter(1)
  ROOT %add.3 = f32[2,3] add(%a, %b)
})"),
            "%add.3 in computation %main: operands must have identical dimensions, got "
            "f32[2,3] and f32[3,2]");
}

TEST(VerifierTest, ReportsWrongDeclaredShape) {
  EXPECT_EQ(VerifyErrors(R"(ENTRY %main {
  %a = f32[2,3] parameter(0)
  ROOT %t = f32[2,3] transpose(%a), dimensions={1,0}
})"),
            "%t in computation %main: shape inference gives f32[3,2] but the instruction is "
            "f32[2,3]");
}

TEST(VerifierTest, ReportsOperandCount) {
  HloBuilder b("main");
  HloInstruction* p = b.AddParameter(0, Shape(PrimitiveType::F32, {2}));
  b.AddInstruction(HloOpcode::kAdd, Shape(PrimitiveType::F32, {2}), {p}, nullptr, "sum");
  std::vector<std::unique_ptr<HloComputation>> comps;
  comps.push_back(b.Build());
  std::unique_ptr<HloModule> module = MakeModule("m", std::move(comps));
  EXPECT_EQ(Errors(*module), "%sum in computation %main: add takes 2 operands, got 1");
}

TEST(VerifierTest, ReportsReducerSignature) {
  EXPECT_THAT(VerifyErrors(absl::StrCat(kAdd, R"(
ENTRY %main {
  %p = s32[4] parameter(0)
  %z = s32[] constant(0)
  ROOT %r = s32[] reduce(%p, %z), dimensions={0}, to_apply=%add
})")),
              HasSubstr("%r in computation %main: reducer computation %add parameter 0 must "
                        "be s32[], got f32[]"));
}

TEST(VerifierTest, ReportsTupleIndexOutOfRange) {
  HloBuilder b("main");
  HloInstruction* p = b.AddParameter(
      0, Shape::Tuple({Shape(PrimitiveType::F32, {}), Shape(PrimitiveType::S32, {})}));
  auto attrs = std::make_unique<IntAttrs>();
  attrs->value = 2;
  b.AddInstruction(HloOpcode::kGetTupleElement, Shape(PrimitiveType::F32, {}), {p},
                   std::move(attrs), "gte");
  std::vector<std::unique_ptr<HloComputation>> comps;
  comps.push_back(b.Build());
  std::unique_ptr<HloModule> module = MakeModule("m", std::move(comps));
  EXPECT_EQ(Errors(*module),
            "%gte in computation %main: tuple index 2 is out of range for (f32[], s32[])");
}

TEST(VerifierTest, ReportsDuplicateNames) {
  std::unique_ptr<HloModule> module = Parse(absl::StrCat(kAdd, R"(
ENTRY %main {
  %p = f32[] parameter(0)
  ROOT %n = f32[] negate(%p)
})"));
  ASSERT_NE(module, nullptr);
  module->entry_computation()->root_instruction()->set_name("p");
  EXPECT_EQ(Errors(*module),
            "%p in computation %main: instruction name is not unique in the computation");
  module->entry_computation()->set_name("add");
  EXPECT_THAT(Errors(*module),
              HasSubstr("computation %add: computation name is not unique in the module"));
}

TEST(VerifierTest, ReportsParameterNumberGap) {
  HloBuilder b("main");
  b.AddParameter(0, Shape(PrimitiveType::F32, {}));
  b.AddParameter(2, Shape(PrimitiveType::F32, {}));
  std::vector<std::unique_ptr<HloComputation>> comps;
  comps.push_back(b.Build());
  std::unique_ptr<HloModule> module = MakeModule("m", std::move(comps));
  EXPECT_THAT(Errors(*module), HasSubstr("computation %main: parameter numbers must be 0..1 "
                                         "without gaps, parameter 1 is missing"));
}

TEST(VerifierTest, ReportsRepeatedParameterNumber) {
  HloBuilder b("main");
  b.AddParameter(0, Shape(PrimitiveType::F32, {}), "x");
  b.AddParameter(0, Shape(PrimitiveType::F32, {}), "y");
  std::vector<std::unique_ptr<HloComputation>> comps;
  comps.push_back(b.Build());
  std::unique_ptr<HloModule> module = MakeModule("m", std::move(comps));
  EXPECT_THAT(Errors(*module),
              HasSubstr("%x in computation %main: parameter number 0 is used more than once"));
}

TEST(VerifierTest, ReportsControlDependencyCycle) {
  std::unique_ptr<HloModule> module = Parse(R"(ENTRY %main {
  %p = f32[] parameter(0)
  %a = f32[] negate(%p)
  ROOT %b = f32[] negate(%a)
})");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  entry->root_instruction()->AddControlDependencyTo(entry->instructions()[1].get());
  EXPECT_THAT(Errors(*module),
              HasSubstr("in computation %main: lies on a cycle of operands and control "
                        "dependencies"));
}

TEST(VerifierTest, ReportsCallCycleAndNestingDeeperThanTheLimit) {
  std::unique_ptr<HloModule> module = Parse(R"(
%leaf (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  ROOT %n = f32[] negate(%x)
}
%inner (y: f32[]) -> f32[] {
  %y = f32[] parameter(0)
  ROOT %c = f32[] call(%y), to_apply=%leaf
}
ENTRY %main (p: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  ROOT %c = f32[] call(%p), to_apply=%inner
})");
  ASSERT_NE(module, nullptr);
  HloComputation* inner = module->GetComputation("inner");
  inner->root_instruction()->set_called_computation(0, inner);
  EXPECT_THAT(Errors(*module),
              HasSubstr("computation %inner: calls %inner, which calls it back (a cycle"));

  std::string chain = "c0 {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n";
  for (int64_t i = 1; i <= kMaxCallDepth; ++i) {
    absl::StrAppend(&chain, i == kMaxCallDepth ? "ENTRY " : "", "c", i,
                    " {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=c", i - 1,
                    "\n}\n");
  }
  EXPECT_EQ(VerifyErrors(chain),
            absl::StrCat("computation %c", kMaxCallDepth, ": ", CallDepthMessage()));
}

TEST(VerifierTest, ReportsOperandFromAnotherComputation) {
  std::unique_ptr<HloModule> module = Parse(absl::StrCat(kAdd, R"(
ENTRY %main {
  %p = f32[] parameter(0)
  ROOT %n = f32[] negate(%p)
})"));
  ASSERT_NE(module, nullptr);
  HloInstruction* foreign = module->computations()[0]->root_instruction();
  module->entry_computation()->root_instruction()->ReplaceOperandWith(0, foreign);
  EXPECT_THAT(Errors(*module),
              HasSubstr("%n in computation %main: operand %s is not in the computation"));
}

TEST(VerifierTest, ReportsFusionParameterCount) {
  EXPECT_THAT(VerifyErrors(R"(
%fused (x: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%x)
}
ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %f = f32[4] fusion(%p, %p), kind=kLoop, calls=%fused
})"),
              HasSubstr("%f in computation %main: fusion has 2 operands but its computation "
                        "takes 1 parameters"));
}

TEST(VerifierTest, ReportsInvalidSharding) {
  EXPECT_THAT(VerifyErrors(R"(HloModule m, num_partitions=2
ENTRY %main {
  ROOT %p = f32[8] parameter(0), sharding={devices=[2,1]0,1}
})"),
              HasSubstr("%p in computation %main: invalid sharding: sharding tiles 2 dimensions"));
  EXPECT_THAT(VerifyErrors(R"(HloModule m, num_partitions=2
ENTRY %main {
  ROOT %p = f32[8] parameter(0), sharding={devices=[4]0,1,2,3}
})"),
              HasSubstr("tile assignment has 4 devices but the module has 2"));
  EXPECT_EQ(VerifyErrors(R"(HloModule m
ENTRY %main {
  ROOT %p = f32[8] parameter(0), sharding={maximal device=3}
})"),
            "");
}

TEST(VerifierTest, ReportsEntryLayoutMismatch) {
  EXPECT_EQ(VerifyErrors(R"(HloModule m, entry_computation_layout={(f32[4]{0})->f32[5]{0}}
ENTRY %main {
  ROOT %p = f32[4] parameter(0)
})"),
            "module: entry_computation_layout result is f32[5]{0} but the root is f32[4]");
  EXPECT_THAT(
      VerifyErrors(R"(HloModule m, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}
ENTRY %main {
  ROOT %p = f32[4] parameter(0)
})"),
      HasSubstr("entry_computation_layout has 2 parameters"));
}

TEST(VerifierTest, ComparesEntryLayoutsWhenLayoutSensitive) {
  std::string text = R"(HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{1,0}}
ENTRY %main {
  ROOT %p = f32[2,3]{1,0} parameter(0)
})";
  EXPECT_EQ(VerifyErrors(text), "");
  EXPECT_THAT(VerifyErrors(text, {.layout_sensitive = true}),
              HasSubstr("entry_computation_layout parameter 0 is f32[2,3]{0,1}"));
}

TEST(VerifierTest, ReportsBitcastByteSizeWhenLayoutSensitive) {
  std::string text = R"(ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %b = f32[2] bitcast(%p)
})";
  EXPECT_EQ(VerifyErrors(text), "");
  EXPECT_THAT(VerifyErrors(text, {.layout_sensitive = true}),
              HasSubstr("%b in computation %main: bitcast must keep the byte size"));
}

TEST(VerifierTest, ReportsBadInputOutputAlias) {
  EXPECT_EQ(VerifyErrors(R"(HloModule m, input_output_alias={ {1}: (0, {}, may-alias) }
ENTRY %main {
  %p = f32[4] parameter(0)
  %i = s32[4] convert(%p)
  ROOT %t = (f32[4], s32[4]) tuple(%p, %i)
})"),
            "module: input_output_alias pairs output {1} s32[4] with parameter 0 {} f32[4]: "
            "shapes must be equal");
  EXPECT_THAT(VerifyErrors(R"(HloModule m, input_output_alias={ {0}: (3, {}, may-alias) }
ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %t = (f32[4]) tuple(%p)
})"),
              HasSubstr("input_output_alias names parameter 3 but the entry has 1"));
}

TEST(VerifierTest, ReportsMissingBufferDonor) {
  EXPECT_THAT(VerifyErrors(R"(HloModule m, buffer_donor={ (0, {1}) }
ENTRY %main {
  ROOT %p = f32[4] parameter(0)
})"),
              HasSubstr("buffer_donor names index {1} of parameter 0"));
}

TEST(VerifierTest, ReportsParameterReplicationLength) {
  EXPECT_THAT(VerifyErrors(R"(ENTRY %main {
  ROOT %p = (f32[4], f32[]) parameter(0), parameter_replication={true}
})"),
              HasSubstr("%p in computation %main: parameter_replication has 1 entries, the "
                        "shape has 2 leaves"));
}

TEST(VerifierTest, ReportsReplicaGroupProblems) {
  std::string prefix = absl::StrCat("HloModule m, replica_count=4\n", kAdd);
  EXPECT_THAT(VerifyErrors(absl::StrCat(prefix, R"(ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %r = f32[4] all-reduce(%p), replica_groups={{0,1},{1,2}}, to_apply=%add
})")),
              HasSubstr("%r in computation %main: replica_groups id 1 appears in more than one "
                        "place"));
  EXPECT_THAT(VerifyErrors(absl::StrCat(prefix, R"(ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %r = f32[4] all-reduce(%p), replica_groups={{0,7}}, to_apply=%add
})")),
              HasSubstr("replica_groups id 7 is out of range [0, 4)"));
  EXPECT_THAT(VerifyErrors(absl::StrCat(prefix, R"(ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %r = f32[4] all-reduce(%p), replica_groups={{0,1}}, use_global_device_ids=true,
    to_apply=%add
})")),
              HasSubstr("use_global_device_ids=true requires a channel_id"));
  EXPECT_THAT(VerifyErrors(absl::StrCat(prefix, R"(ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %r = f32[6] all-gather(%p), replica_groups={{0,1},{2}}, dimensions={0}
})")),
              HasSubstr("replica_groups must have equal sizes"));
}

// A buffer reads as the array it holds, so it may alias an array operand.
TEST(VerifierTest, BufferShapesAliasTheirArray) {
  EXPECT_EQ(VerifyErrors(R"(HloModule m
ENTRY %main {
  %c = f32[4] constant({1, 2, 3, 4})
  %b = b(f32[4]) custom-call(%c), custom_call_target="Pin", output_to_operand_aliasing={{}: (0, {})}
  ROOT %n = f32[4] custom-call(%b), custom_call_target="Unpin"
})"),
            "");
  EXPECT_THAT(VerifyErrors(R"(HloModule m
ENTRY %main {
  %c = f32[4] constant({1, 2, 3, 4})
  ROOT %b = b(f32[3]) custom-call(%c), custom_call_target="Pin", output_to_operand_aliasing={{}: (0, {})}
})"),
              HasSubstr("output_to_operand_aliasing pairs shapes that do not match"));
}

TEST(VerifierTest, MeshReplicaGroupsGiveTheGroupSize) {
  std::string prefix = absl::StrCat("HloModule m, replica_count=4\n", kAdd);
  EXPECT_EQ(VerifyErrors(absl::StrCat(prefix, R"(ENTRY %main {
  %p = f32[4] parameter(0)
  %g = f32[8] all-gather(%p), replica_groups=mesh['a'=2,'b'=2] {'b'}, dimensions={0}
  ROOT %r = f32[8] all-reduce(%g), replica_groups=mesh['a'=2,'b'=2] {'a','b'}, to_apply=%add
})")),
            "");
  EXPECT_THAT(VerifyErrors(absl::StrCat(prefix, R"(ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %g = f32[16] all-gather(%p), replica_groups=mesh['a'=2,'b'=2] {'b'}, dimensions={0}
})")),
              HasSubstr("%g in computation %main"));
  EXPECT_THAT(VerifyErrors(absl::StrCat(prefix, R"(ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %r = f32[4] all-reduce(%p), replica_groups=mesh['a'=4,'b'=2] {'b'}, to_apply=%add
})")),
              HasSubstr("mesh replica_groups address 8 ids, more than the 4 available"));
}

TEST(VerifierTest, ReportsChannelAndPairProblems) {
  EXPECT_THAT(VerifyErrors(R"(HloModule m, num_partitions=2
ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %r = f32[4] collective-permute(%p), channel_id=1, source_target_pairs={{0,5}}
})"),
              HasSubstr("%r in computation %main: source_target_pairs {0,5} is out of range "
                        "[0, 2)"));
  EXPECT_THAT(VerifyErrors(absl::StrCat("HloModule m, num_partitions=4\n", kAdd, R"(
ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %r = f32[4] all-reduce(%p), channel_id=1, use_global_device_ids=true, to_apply=%add
})")),
              HasSubstr("use_global_device_ids=true requires non-empty replica_groups"));
  EXPECT_THAT(VerifyErrors(absl::StrCat("HloModule m, num_partitions=4\n", kAdd, R"(
ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %r = f32[4] all-reduce(%p), channel_id=1, replica_groups=[2,4]<=[8],
    use_global_device_ids=true, to_apply=%add
})")),
              HasSubstr("iota replica_groups address 8 ids, more than the 4 available"));
  EXPECT_THAT(VerifyErrors(R"(ENTRY %main {
  %p = f32[4] parameter(0)
  %t = token[] after-all()
  %s = (f32[4], u32[], token[]) send(%p, %t), channel_id=1
  ROOT %d = token[] send-done(%s), channel_id=2
})"),
              HasSubstr("%d in computation %main: channel_id 2 differs from %s's channel_id 1"));
}

TEST(VerifierTest, ReportsUnpairedAsyncDone) {
  EXPECT_THAT(VerifyErrors(R"(ENTRY %main {
  %p = (f32[4], f32[4]) parameter(0)
  ROOT %d = f32[4] all-gather-done(%p)
})"),
              HasSubstr("%d in computation %main: operand must be a all-gather-start, got %p "
                        "(parameter)"));
}

TEST(VerifierTest, AcceptsCollectivePermuteStartForms) {
  EXPECT_EQ(VerifyErrors(R"(HloModule m, replica_count=2
ENTRY %main {
  %p = f32[4] parameter(0)
  %s = (f32[4], f32[4], u32[], u32[]) collective-permute-start(%p), source_target_pairs={{0,1},{1,0}}
  %d = f32[4] collective-permute-done(%s)
  %s2 = (f32[4], f32[4]) collective-permute-start(%d), source_target_pairs={{0,1}}
  ROOT %d2 = f32[4] collective-permute-done(%s2)
})"),
            "");
}

// Builds a one-computation module around `b`'s computation.
std::unique_ptr<HloModule> ModuleOf(HloBuilder& b) {
  std::vector<std::unique_ptr<HloComputation>> comps;
  comps.push_back(b.Build());
  return MakeModule("m", std::move(comps));
}

TEST(VerifierTest, ReportsNegativeParameterNumber) {
  HloBuilder b("main");
  b.AddParameter(-1, Shape(PrimitiveType::F32, {}), "x");
  std::unique_ptr<HloModule> module = ModuleOf(b);
  EXPECT_THAT(Errors(*module),
              HasSubstr("%x in computation %main: parameter number -1 is negative"));
}

TEST(VerifierTest, ReportsMissingOrForeignRoot) {
  std::unique_ptr<HloModule> module = Parse(absl::StrCat(kAdd, R"(
ENTRY %main {
  ROOT %p = f32[] parameter(0)
})"));
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  entry->set_root_instruction(nullptr);
  EXPECT_THAT(Errors(*module), HasSubstr("computation %main: has no root instruction"));
  entry->set_root_instruction(module->computations()[0]->root_instruction());
  EXPECT_THAT(Errors(*module),
              HasSubstr("computation %main: root instruction belongs to another computation"));
}

TEST(VerifierTest, ReportsMissingEntryComputation) {
  std::unique_ptr<HloModule> module = Parse("ENTRY %main { ROOT %p = f32[] parameter(0) }");
  ASSERT_NE(module, nullptr);
  module->set_entry_computation(nullptr);
  EXPECT_EQ(Errors(*module), "module: has no entry computation");
}

TEST(VerifierTest, ReportsNonPositiveReplicaCount) {
  std::unique_ptr<HloModule> module = Parse("ENTRY %main { ROOT %p = f32[] parameter(0) }");
  ASSERT_NE(module, nullptr);
  module->config().replica_count = 0;
  EXPECT_EQ(Errors(*module), "module: replica_count=0 and num_partitions=1 must be positive");
  module->config().replica_count = 1;
  module->config().num_partitions = -2;
  EXPECT_EQ(Errors(*module), "module: replica_count=1 and num_partitions=-2 must be positive");
}

TEST(VerifierTest, ReportsAliasOfMissingOutputIndex) {
  std::unique_ptr<HloModule> module = Parse("ENTRY %main { ROOT %p = f32[] parameter(0) }");
  ASSERT_NE(module, nullptr);
  InputOutputAlias alias;
  alias.output_index = {5};
  alias.parameter = 0;
  module->config().input_output_alias.push_back(alias);
  EXPECT_EQ(Errors(*module), "module: input_output_alias names output index {5} of f32[]");
}

TEST(VerifierTest, ReportsCallOfComputationOutsideTheModule) {
  std::unique_ptr<HloModule> module = Parse(absl::StrCat(kAdd, R"(
ENTRY %main {
  %a = f32[] parameter(0)
  ROOT %c = f32[] call(%a, %a), to_apply=%add
})"));
  ASSERT_NE(module, nullptr);
  HloBuilder outside("outside");
  HloInstruction* x = outside.AddParameter(0, Shape(PrimitiveType::F32, {}));
  HloInstruction* y = outside.AddParameter(1, Shape(PrimitiveType::F32, {}));
  outside.AddInstruction(HloOpcode::kAdd, Shape(PrimitiveType::F32, {}), {x, y});
  std::unique_ptr<HloComputation> foreign = outside.Build();
  module->entry_computation()->root_instruction()->set_called_computation(0, foreign.get());
  EXPECT_THAT(Errors(*module),
              HasSubstr("%c in computation %main: calls a computation that is not in the "
                        "module"));
}

TEST(VerifierTest, ReportsMalformedReplicaGroupForms) {
  std::unique_ptr<HloModule> module = Parse(absl::StrCat("HloModule m, replica_count=4\n", kAdd, R"(
ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %r = f32[4] all-reduce(%p), replica_groups={{0,1},{2,3}}, to_apply=%add
})"));
  ASSERT_NE(module, nullptr);
  ReplicaGroups& groups = module->entry_computation()
                              ->root_instruction()
                              ->mutable_attrs<CollectiveAttrs>()
                              ->replica_groups;
  groups.groups = {{}, {}};
  EXPECT_THAT(Errors(*module), HasSubstr("%r in computation %main: replica_groups contains an "
                                         "empty group"));
  groups = ReplicaGroups();
  groups.is_iota = true;
  groups.num_groups = 3;
  groups.group_size = 2;
  groups.iota_reshape = {4};
  EXPECT_THAT(Errors(*module), HasSubstr("iota replica_groups [3,2] does not match its 4 devices"));
  groups = ReplicaGroups();
  groups.mesh.axes = {{"a", 2}, {"b", 2}};
  groups.mesh_group_axes = {{.axis = 2}};
  EXPECT_THAT(Errors(*module), HasSubstr("mesh replica_groups: mesh axis index 2 is out of range"));
  groups.mesh_group_axes = {{.axis = 0}, {.axis = 0}};
  EXPECT_THAT(Errors(*module), HasSubstr("mesh replica_groups: mesh axis 'a' (replica groups) "
                                         "overlaps 'a' (replica groups)"));
  groups.mesh.axes = {{"a", 0}, {"b", 2}};
  groups.mesh_group_axes = {{.axis = 1}};
  EXPECT_THAT(Errors(*module), HasSubstr("mesh axis 'a' makes the mesh larger than"));
}

constexpr char kAsyncBodies[] = R"(
%wrapped (w: f32[4]) -> f32[4] {
  %w = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%w)
}

%other (v: f32[4]) -> f32[4] {
  %v = f32[4] parameter(0)
  ROOT %a = f32[4] abs(%v)
}
)";

TEST(VerifierTest, ReportsAsyncDoneOfAnotherComputation) {
  std::unique_ptr<HloModule> module = Parse(absl::StrCat(kAsyncBodies, R"(
ENTRY %main {
  %p = f32[4] parameter(0)
  %s = ((f32[4]), f32[4], s32[]) async-start(%p), calls=%wrapped
  ROOT %d = f32[4] async-done(%s), calls=%wrapped
})"));
  ASSERT_NE(module, nullptr);
  module->entry_computation()->root_instruction()->set_called_computation(
      0, module->GetComputation("other"));
  EXPECT_THAT(Errors(*module), HasSubstr("%d in computation %main: wraps a different "
                                         "computation than its operand %s"));
}

TEST(VerifierTest, ReportsAsyncComputationWithTwoStarts) {
  const std::string text = absl::StrCat(kAsyncBodies, R"(
ENTRY %main {
  %p = f32[4] parameter(0)
  %s1 = ((f32[4]), f32[4], s32[]) async-start(%p), calls=%wrapped
  %d1 = f32[4] async-done(%s1), calls=%wrapped
  %s2 = ((f32[4]), f32[4], s32[]) async-start(%d1), calls=%)");
  EXPECT_EQ(VerifyErrors(absl::StrCat(text, R"(other
  ROOT %d2 = f32[4] async-done(%s2), calls=%other
})")),
            "");
  EXPECT_EQ(VerifyErrors(absl::StrCat(text, R"(wrapped
  ROOT %d2 = f32[4] async-done(%s2), calls=%wrapped
})")),
            "%s2 in computation %main: starts async computation %wrapped, which %s1 already "
            "starts (an async computation has one async-start caller)");
}

TEST(VerifierTest, VerifyModuleJoinsErrors) {
  absl::Status status = VerifyModule(*Parse(R"(ENTRY %main {
  %a = f32[2] parameter(0)
  %b = f32[3] parameter(1)
  %x = f32[2] add(%a, %b)
  ROOT %y = f32[2] subtract(%a, %b)
})"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("%x in computation %main"));
  EXPECT_THAT(status.message(), HasSubstr("\n%y in computation %main"));
}

}  // namespace
}  // namespace xlite
