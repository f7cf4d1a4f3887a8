// XLA's non-shape verifier rules: comparison types, composite calls,
// execution threads, one consumer per start, async computations of any size,
// tuple all-to-all operand counts, replica group coverage, sharding agreement
// across loops and conditionals, constrain_layout across all-reduces, and
// pred iotas. Each rule has a module it accepts and one it rejects.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/analysis/test_util.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;
using testing::VerifyErrors;

// The scalar sum the all-reduces below apply.
constexpr char kSumReducer[] = R"(%sum {
  %l = f32[] parameter(0)
  %r = f32[] parameter(1)
  ROOT %s = f32[] add(%l, %r)
}
)";

// One compare of a parameter of type `operand` with itself, written `type=`.
std::string Compare(absl::string_view operand, absl::string_view type) {
  return absl::StrCat("HloModule m\nENTRY %e {\n  %a = ", operand, " parameter(0)\n  ROOT %x = ",
                      "pred[3] compare(%a, %a), direction=GE, type=", type, "\n}");
}

TEST(ComparisonTypeTest, MustSuitTheOperands) {
  struct Case {
    const char* operand;
    const char* type;
    const char* expected;  // "" = accepted
  };
  const Case cases[] = {
      {"f16[3]", "TOTALORDER", ""},
      {"f16[3]", "FLOAT", ""},
      {"s8[3]", "SIGNED", ""},
      {"u16[3]", "UNSIGNED", ""},
      {"pred[3]", "UNSIGNED", ""},
      {"f16[3]", "SIGNED", "SIGNED does not suit f16[3] operands; expected FLOAT or TOTALORDER"},
      {"s8[3]", "FLOAT", "FLOAT does not suit s8[3] operands; expected SIGNED"},
      {"u16[3]", "SIGNED", "SIGNED does not suit u16[3] operands; expected UNSIGNED"},
      {"pred[3]", "SIGNED", "SIGNED does not suit pred[3] operands; expected UNSIGNED"},
  };
  for (const Case& c : cases) {
    std::string errors = VerifyErrors(Compare(c.operand, c.type));
    if (*c.expected == '\0') {
      EXPECT_EQ(errors, "") << c.operand << " " << c.type;
    } else {
      EXPECT_THAT(errors,
                  HasSubstr(absl::StrCat("%x in computation %e: comparison type ", c.expected)));
    }
  }
}

constexpr char kComposite[] = R"(HloModule m
%double {
  %v = f32[2] parameter(0)
  ROOT %twice = f32[2] add(%v, %v)
}
ENTRY %e {
  %in = f32[2] parameter(0)
  ROOT %c = f32[2] call(%in), to_apply=%double, is_composite=trueATTRS
})";

std::string Composite(absl::string_view attrs) {
  return absl::StrReplaceAll(kComposite, {{"ATTRS", attrs}});
}

TEST(CompositeCallTest, NeedsANameAndANonNegativeVersion) {
  EXPECT_EQ(VerifyErrors(Composite(R"(, frontend_attributes={composite.name="my.twice"})")), "");
  EXPECT_EQ(VerifyErrors(Composite(
                R"(, frontend_attributes={composite.name="my.twice",composite.version="3"})")),
            "");
  EXPECT_THAT(VerifyErrors(Composite("")),
              HasSubstr("%c in computation %e: a composite call (is_composite=true) needs a "
                        "non-empty frontend attribute composite.name"));
  EXPECT_THAT(VerifyErrors(Composite(
                  R"(, frontend_attributes={composite.name="my.twice",composite.version="-2"})")),
              HasSubstr("%c in computation %e: composite.version must be a non-negative "
                        "integer, got \"-2\""));
}

TEST(ExecutionThreadTest, CalledComputationsRunOnTheCallersThread) {
  constexpr char kLoop[] = R"(HloModule m
%cond {
  %i = s32[] parameter(0)
  %ten = s32[] constant(10)
  ROOT %lt = pred[] compare(%i, %ten), direction=LT
}THREAD
%step {
  %j = s32[] parameter(0)
  %one = s32[] constant(1)
  ROOT %next = s32[] add(%j, %one)
}
ENTRY %e {
  %zero = s32[] constant(0)
  ROOT %loop = s32[] while(%zero), condition=%cond, body=%step
})";
  EXPECT_EQ(VerifyErrors(absl::StrReplaceAll(kLoop, {{"THREAD", ""}})), "");
  EXPECT_THAT(
      VerifyErrors(absl::StrReplaceAll(kLoop, {{"THREAD", R"(, execution_thread="side")"}})),
      HasSubstr("%loop in computation %e: calls computation %cond on execution thread "
                "\"side\" from thread \"main\""));
}

TEST(ExecutionThreadTest, AsyncOpsAndCustomCallsMayUseAnotherThread) {
  EXPECT_EQ(VerifyErrors(R"(HloModule m
%side_neg {
  %a = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%a)
}, execution_thread="side"
%pick {
  %l = f32[] parameter(0)
  %r = f32[] parameter(1)
  ROOT %mx = f32[] maximum(%l, %r)
}, execution_thread="side"
ENTRY %e {
  %x = f32[4] parameter(0)
  %st = ((f32[4]), f32[4], s32[]) async-start(%x), calls=%side_neg
  %dn = f32[4] async-done(%st)
  ROOT %cc = f32[4] custom-call(%dn), custom_call_target="k", to_apply=%pick
})"),
            "");
}

TEST(SingleConsumerTest, EachStartFeedsExactlyOneDone) {
  EXPECT_THAT(VerifyErrors(R"(HloModule m
ENTRY %e {
  %x = f32[5] parameter(0)
  %cs = (f32[5], f32[5], u32[]) copy-start(%x)
  %d1 = f32[5] copy-done(%cs)
  %d2 = f32[5] copy-done(%cs)
  ROOT %both = (f32[5], f32[5]) tuple(%d1, %d2)
})"),
              HasSubstr("%cs in computation %e: copy-start must have exactly one user ("
                        "copy-done), found 2"));
  EXPECT_THAT(VerifyErrors(R"(HloModule m
ENTRY %e {
  %x = f32[5] parameter(0)
  ROOT %st = ((f32[5]), f32[5], s32[]) custom-call-start(%x), custom_call_target="w"
})"),
              HasSubstr("%st in computation %e: async-start must have exactly one user ("
                        "async-update or async-done), found 0"));
  EXPECT_THAT(VerifyErrors(R"(HloModule m
ENTRY %e {
  %x = f32[5] parameter(0)
  %cs = (f32[5], f32[5], u32[]) copy-start(%x)
  %peek = f32[5] get-tuple-element(%cs), index=1
  ROOT %d = f32[5] copy-done(%cs)
})"),
              HasSubstr("%cs in computation %e: copy-start must have exactly one user ("
                        "copy-done), found 2"));
}

// Older XLA verifiers wanted only the root and parameters in an async
// computation; current XLA accepts more (its parser tests round-trip such a
// module verified, and its GPU backend runs NCCL groups that way).
TEST(AsyncComputationTest, MayHoldMoreThanTheRootAndParameters) {
  constexpr char kAsync[] = R"(HloModule m
%work {
  %a = f32[4] parameter(0)
  EXTRAROOT %r = f32[4] custom-call(ARG), custom_call_target="w"
}
ENTRY %e {
  %x = f32[4] parameter(0)
  %st = ((f32[4]), f32[4], s32[]) async-start(%x), calls=%work
  ROOT %dn = f32[4] async-done(%st)
})";
  EXPECT_EQ(VerifyErrors(absl::StrReplaceAll(kAsync, {{"EXTRA", ""}, {"ARG", "%a"}})), "");
  EXPECT_EQ(VerifyErrors(
                absl::StrReplaceAll(kAsync, {{"EXTRA", "%b = f32[4] abs(%a)\n  "}, {"ARG", "%b"}})),
            "");
}

TEST(AllToAllTest, TupleFormTakesOneOperandPerGroupMember) {
  constexpr char kA2a[] = R"(HloModule m, replica_count=3
ENTRY %e {
  %p = f32[6] parameter(0)
  ROOT %t = OUT all-to-all(ARGS), replica_groups={{0,1,2}}
})";
  EXPECT_EQ(VerifyErrors(absl::StrReplaceAll(
                kA2a, {{"OUT", "(f32[6], f32[6], f32[6])"}, {"ARGS", "%p, %p, %p"}})),
            "");
  EXPECT_THAT(
      VerifyErrors(absl::StrReplaceAll(kA2a, {{"OUT", "(f32[6], f32[6])"}, {"ARGS", "%p, %p"}})),
      HasSubstr("%t in computation %e: a tuple all-to-all takes one operand per group "
                "member: 3 expected, got 2"));
}

TEST(AllToAllTest, TupleOperandsShareOneShape) {
  EXPECT_THAT(VerifyErrors(R"(HloModule m, replica_count=2
ENTRY %e {
  %a = f32[6] parameter(0)
  %b = f32[4] parameter(1)
  ROOT %t = (f32[6], f32[4]) all-to-all(%a, %b), replica_groups={{0,1}}
})"),
              HasSubstr("%t in computation %e: tuple all-to-all operands must have one shape, "
                        "but %b is f32[4] and %a is f32[6]"));
}

TEST(LayoutSensitiveTest, PositionWiseOpsKeepTheLayout) {
  constexpr char kAdd[] = R"(HloModule m
ENTRY %e {
  %a = f32[2,3]{1,0} parameter(0)
  %b = f32[2,3]{LAYOUT} parameter(1)
  ROOT %s = f32[2,3]{1,0} add(%a, %b)
})";
  VerifyOptions sensitive;
  sensitive.layout_sensitive = true;
  const std::string changed = absl::StrReplaceAll(kAdd, {{"LAYOUT", "0,1"}});
  EXPECT_EQ(VerifyErrors(absl::StrReplaceAll(kAdd, {{"LAYOUT", "1,0"}}), sensitive), "");
  EXPECT_EQ(VerifyErrors(changed), "");  // layouts are ignored by default
  EXPECT_THAT(VerifyErrors(changed, sensitive),
              HasSubstr("%s in computation %e: add must not change the layout, but operand %b "
                        "is f32[2,3]{0,1} and the result is f32[2,3]{1,0}"));
  // A copy is how a layout changes.
  EXPECT_EQ(VerifyErrors(R"(HloModule m
ENTRY %e {
  %a = f32[2,3]{1,0} parameter(0)
  ROOT %c = f32[2,3]{0,1} copy(%a)
})",
                         sensitive),
            "");
}

TEST(LayoutSensitiveTest, ValuePassingOpsKeepTheLayoutsTheyPass) {
  constexpr char kPair[] = R"(HloModule m
ENTRY %e {
  %a = f32[4,2]{0,1} parameter(0)
  %cs = (f32[4,2]{0,1}, f32[4,2]{0,1}, u32[]) copy-start(%a)
  ROOT %cd = f32[4,2]{DONE} copy-done(%cs)
})";
  VerifyOptions sensitive;
  sensitive.layout_sensitive = true;
  const std::string changed = absl::StrReplaceAll(kPair, {{"DONE", "1,0"}});
  EXPECT_EQ(VerifyErrors(absl::StrReplaceAll(kPair, {{"DONE", "0,1"}}), sensitive), "");
  EXPECT_EQ(VerifyErrors(changed), "");
  EXPECT_THAT(VerifyErrors(changed, sensitive),
              HasSubstr("%cd in computation %e: copy-done is written as f32[4,2]{1,0} but "
                        "passes along f32[4,2]{0,1} (the layouts differ)"));
}

TEST(LayoutSensitiveTest, DynamicSlicesMoveHostDataOnlyOneWay) {
  constexpr char kSlices[] = R"(HloModule m
ENTRY %e {
  %buf = f32[4,8]{1,0:S(BUF)} parameter(0)
  %row = f32[1,8]{1,0} parameter(1)
  %i = s32[] parameter(2)
  %z = s32[] constant(0)
  %w = f32[4,8]{1,0:S(BUF)} dynamic-update-slice(%buf, %row, %i, %z)
  ROOT %r = f32[1,8]{1,0:S(OUT)} dynamic-slice(%w, %i, %z), dynamic_slice_sizes={1,8}
})";
  VerifyOptions sensitive;
  sensitive.layout_sensitive = true;
  // Host buffer: the update writes device data into it, the slice reads it back.
  EXPECT_EQ(VerifyErrors(absl::StrReplaceAll(kSlices, {{"BUF", "5"}, {"OUT", "0"}}), sensitive),
            "");
  EXPECT_THAT(VerifyErrors(absl::StrReplaceAll(kSlices, {{"BUF", "0"}, {"OUT", "5"}}), sensitive),
              HasSubstr("%r in computation %e: dynamic-slice must not move its buffer from memory "
                        "space S(0) to S(5)"));
}

TEST(AllReduceChannelTest, ChannelIdIsPositive) {
  const std::string kOne = absl::StrCat("HloModule m\n", kSumReducer, R"(ENTRY %e {
  %x = f32[8] parameter(0)
  ROOT %ar = f32[8] all-reduce(%x), channel_id=ID, replica_groups={}, to_apply=%sum
})");
  EXPECT_EQ(VerifyErrors(absl::StrReplaceAll(kOne, {{"ID", "3"}})), "");
  EXPECT_THAT(VerifyErrors(absl::StrReplaceAll(kOne, {{"ID", "0"}})),
              HasSubstr("%ar in computation %e: all-reduce channel_id must be positive, got 0"));
}

const std::string kSum = absl::StrCat("HloModule m, HEADER\n", kSumReducer, R"(ENTRY %e {
  %x = f32[8] parameter(0)
  ROOT %ar = f32[8] all-reduce(%x), replica_groups=GROUPS, to_apply=%sum
})");

std::string Sum(absl::string_view header, absl::string_view groups) {
  return absl::StrReplaceAll(kSum, {{"HEADER", header}, {"GROUPS", groups}});
}

TEST(ReplicaGroupCoverageTest, GroupsNameEveryIdOnce) {
  EXPECT_EQ(VerifyErrors(Sum("replica_count=4", "{{3,0},{1},{2}}")), "");
  EXPECT_EQ(VerifyErrors(Sum("num_partitions=1", "{{1,2},{0}}")), "");
  EXPECT_THAT(VerifyErrors(Sum("num_partitions=1", "{{0,1},{3,4}}")),
              HasSubstr("%ar in computation %e: replica_groups skip id 2; the 4 ids must be "
                        "0..3"));
  EXPECT_THAT(VerifyErrors(Sum("replica_count=6", "{{0,1},{2}}")),
              HasSubstr("%ar in computation %e: replica_groups name 3 ids, but the module has "
                        "6 for this group mode"));
}

TEST(ShardingAgreementTest, LoopParametersAndRootsShareTheLoopsSharding) {
  constexpr char kLoop[] = R"(HloModule m
%cond {
  %i = s32[] parameter(0), sharding={replicated}
  %ten = s32[] constant(10)
  ROOT %lt = pred[] compare(%i, %ten), direction=LT
}
%step {
  %j = s32[] parameter(0)
  %one = s32[] constant(1)
  ROOT %next = s32[] add(%j, %one), sharding=BODY
}
ENTRY %e {
  %zero = s32[] constant(0)
  ROOT %loop = s32[] while(%zero), condition=%cond, body=%step
})";
  EXPECT_EQ(VerifyErrors(absl::StrReplaceAll(kLoop, {{"BODY", "{replicated}"}})), "");
  EXPECT_THAT(VerifyErrors(absl::StrReplaceAll(kLoop, {{"BODY", "{maximal device=1}"}})),
              HasSubstr("%loop in computation %e: sharding of %next differs from that of %i; "
                        "a while and its parameters and roots must agree"));
}

TEST(ShardingAgreementTest, ConditionalBranchRootsShareItsSharding) {
  constexpr char kCond[] = R"(HloModule m
%yes {
  %a = f32[2] parameter(0)
  ROOT %na = f32[2] negate(%a), sharding={maximal device=0}
}
%no {
  %b = f32[2] parameter(0)
  ROOT %ab = f32[2] abs(%b)
}
ENTRY %e {
  %c = pred[] parameter(0)
  %v = f32[2] parameter(1)
  ROOT %pick = f32[2] conditional(%c, %v, %v), true_computation=%yes,
    false_computation=%no, sharding=SHARDING
})";
  EXPECT_EQ(VerifyErrors(absl::StrReplaceAll(kCond, {{"SHARDING", "{maximal device=0}"}})), "");
  EXPECT_THAT(VerifyErrors(absl::StrReplaceAll(kCond, {{"SHARDING", "{replicated}"}})),
              HasSubstr("%pick in computation %e: sharding of %na differs from that of %pick"));
}

TEST(AllReduceLayoutTest, ConstrainedAndUnconstrainedDoNotMix) {
  const std::string kTwo = absl::StrCat("HloModule m\n", kSumReducer, R"(ENTRY %e {
  %x = f32[8] parameter(0)
  %a1 = f32[8] all-reduce(%x), replica_groups={}, to_apply=%sum, constrain_layout=true
  %a2 = f32[8] all-reduce(%x), replica_groups={}, to_apply=%sum SECOND
  ROOT %t = (f32[8], f32[8]) tuple(%a1, %a2)
})");
  EXPECT_EQ(VerifyErrors(absl::StrReplaceAll(kTwo, {{"SECOND", ", constrain_layout=true"}})), "");
  EXPECT_THAT(VerifyErrors(absl::StrReplaceAll(kTwo, {{"SECOND", ""}})),
              HasSubstr("%a2 in computation %e: all-reduces must all be layout constrained or "
                        "all not: constrain_layout differs from %a1"));
}

TEST(IotaTest, PredResultIsRejected) {
  EXPECT_EQ(VerifyErrors("HloModule m\nENTRY %e {\n  ROOT %i = u8[4] iota(), iota_dimension=0\n}"),
            "");
  EXPECT_THAT(
      VerifyErrors("HloModule m\nENTRY %e {\n  ROOT %i = pred[4] iota(), iota_dimension=0\n}"),
      HasSubstr("%i in computation %e: iota result must be numeric, got PRED (pred[4])"));
}

}  // namespace
}  // namespace xlite
