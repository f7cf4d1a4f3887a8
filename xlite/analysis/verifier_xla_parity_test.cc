// Forms XLA's verifier accepts that an over-strict rule once rejected: the
// in-place collective-permute (buffers of different shapes, slices repeating
// pairs), after-all over values, and send/recv pipelined to their -done
// through tuples; with the errors that must remain.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/analysis/test_util.h"
#include "xlite/inference/shape_inference.h"
#include "xlite/ir/computation.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;
using testing::Parse;
using testing::VerifyErrors;

// One slice of an 8x2 input written into columns of an 8x4 output.
constexpr char kInPlace[] = R"(HloModule m, replica_count=4
ENTRY %main {
  %in = f32[8,2] parameter(0)
  %out = f32[8,4] parameter(1)
  %zero = s32[] constant(0)
  %two = s32[] constant(2)
  %in_at = (s32[], s32[]) tuple(%zero, %zero)
  %out_at = (s32[], s32[]) tuple(%zero, %two)
  ROOT %cp = f32[8,4] collective-permute(%in, %out, %in_at, %out_at),
    source_target_pairs={{0,1},{1,2},{2,3}}, slice_sizes={{8,2}}
})";

TEST(InPlacePermuteTest, BuffersMayDifferAndTheResultIsTheOutputBuffer) {
  EXPECT_EQ(VerifyErrors(kInPlace), "");
  std::unique_ptr<HloModule> module = Parse(kInPlace);
  absl::StatusOr<Shape> shape = InferShape(*module->entry_computation()->root_instruction());
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->ToString(false), "f32[8,4]");
}

TEST(InPlacePermuteTest, StartAndDone) {
  EXPECT_EQ(VerifyErrors(R"(HloModule m, replica_count=4
ENTRY %main {
  %in = f32[8,2] parameter(0)
  %out = f32[8,4] parameter(1)
  %zero = s32[] constant(0)
  %at = (s32[], s32[]) tuple(%zero, %zero)
  %s = (f32[8,2], f32[8,4], u32[], u32[]) collective-permute-start(%in, %out, %at, %at),
    source_target_pairs={{0,1},{1,2}}, slice_sizes={{8,2}}
  ROOT %d = f32[8,4] collective-permute-done(%s)
})"),
            "");
}

TEST(InPlacePermuteTest, TupleBuffersTakeOneOffsetsEntryEach) {
  EXPECT_EQ(VerifyErrors(R"(HloModule m, replica_count=4
ENTRY %main {
  %a = f32[8,2] parameter(0)
  %b = f32[8,4] parameter(1)
  %ins = (f32[8,2], f32[8,2]) tuple(%a, %a)
  %outs = (f32[8,4], f32[8,4]) tuple(%b, %b)
  %zero = s32[] constant(0)
  %at = (s32[], s32[]) tuple(%zero, %zero)
  %each = ((s32[], s32[]), (s32[], s32[])) tuple(%at, %at)
  ROOT %cp = (f32[8,4], f32[8,4]) collective-permute(%ins, %outs, %each, %each),
    source_target_pairs={{0,1},{1,2}}, slice_sizes={{8,2},{8,2}}
})"),
            "");
}

// Two slices per device: each source and target may appear twice.
constexpr char kTwoSlices[] = R"(HloModule m, replica_count=4
ENTRY %main {
  %in = f32[4,8] parameter(0)
  %out = f32[4,8] parameter(1)
  %zero = s32[] constant(0)
  %one = s32[] constant(1)
  %first = (s32[], s32[]) tuple(%zero, %zero)
  %second = (s32[], s32[]) tuple(%one, %zero)
  %at = ((s32[], s32[]), (s32[], s32[])) tuple(%first, %second)
  ROOT %cp = f32[4,8] collective-permute(%in, %out, %at, %at),
    source_target_pairs=PAIRS, slice_sizes={{1,8},{1,8}}
})";

std::string TwoSlices(std::string_view pairs) {
  std::string text = kTwoSlices;
  text.replace(text.find("PAIRS"), 5, pairs);
  return text;
}

TEST(InPlacePermuteTest, SlicesMayRepeatPairsOncePerSlice) {
  EXPECT_EQ(VerifyErrors(TwoSlices("{{0,1},{1,2},{0,3},{2,1}}")), "");
  EXPECT_THAT(VerifyErrors(TwoSlices("{{0,1},{0,2},{0,3}}")),
              HasSubstr("%cp in computation %main: source_target_pairs repeats source or target "
                        "{0,3} more than 2 times"));
  EXPECT_THAT(VerifyErrors(TwoSlices("{{1,0},{2,0},{3,0}}")),
              HasSubstr("repeats source or target {3,0} more than 2 times"));
}

TEST(InPlacePermuteTest, PlainPermuteStillRejectsRepeats) {
  EXPECT_THAT(VerifyErrors(R"(HloModule m, replica_count=4
ENTRY %main {
  %p = f32[4] parameter(0)
  ROOT %cp = f32[4] collective-permute(%p), source_target_pairs={{0,1},{0,2}}
})"),
              HasSubstr("source_target_pairs repeats source or target {0,2}"));
}

// The in-place module with `%in_at`/`%out_at`/buffers replaced.
std::string InPlaceWith(std::string_view from, std::string_view to) {
  std::string text = kInPlace;
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(InPlacePermuteTest, OffsetsMustIndexEveryBufferDimension) {
  EXPECT_THAT(VerifyErrors(InPlaceWith("%in_at = (s32[], s32[]) tuple(%zero, %zero)",
                                       "%in_at = (s32[]) tuple(%zero)")),
              HasSubstr("in-place collective-permute input offsets (s32[]) need one index per "
                        "dimension of the buffer f32[8,2]"));
  EXPECT_THAT(VerifyErrors(InPlaceWith("%out_at = (s32[], s32[]) tuple(%zero, %two)",
                                       "%out_at = s32[] add(%zero, %two)")),
              HasSubstr("in-place collective-permute output offsets must be a tuple, got s32[]"));
  EXPECT_THAT(VerifyErrors(InPlaceWith("%out_at = (s32[], s32[]) tuple(%zero, %two)",
                                       "%pair = (s32[], s32[]) tuple(%zero, %two)\n"
                                       "  %out_at = ((s32[], s32[]), s32[]) tuple(%pair, %two)")),
              HasSubstr("output offsets must be a tuple of indices or a tuple of index tuples"));
}

TEST(InPlacePermuteTest, BuffersMustBeBothArraysOrBothTuples) {
  EXPECT_THAT(
      VerifyErrors(InPlaceWith("%out = f32[8,4] parameter(1)",
                               "%o = f32[8,4] parameter(1)\n  %out = (f32[8,4]) tuple(%o)")),
      HasSubstr("in-place collective-permute buffers must be two arrays or two tuples of "
                "equal size, got f32[8,2] and (f32[8,4])"));
  EXPECT_THAT(VerifyErrors(R"(HloModule m, replica_count=4
ENTRY %main {
  %a = f32[8,2] parameter(0)
  %ins = (f32[8,2], f32[8,2]) tuple(%a, %a)
  %zero = s32[] constant(0)
  %at = (s32[], s32[]) tuple(%zero, %zero)
  %one = ((s32[], s32[])) tuple(%at)
  %two = ((s32[], s32[]), (s32[], s32[])) tuple(%at, %at)
  ROOT %cp = (f32[8,2], f32[8,2]) collective-permute(%ins, %ins, %one, %two),
    source_target_pairs={{0,1}}, slice_sizes={{8,2},{8,2}}
})"),
              HasSubstr("input offsets ((s32[], s32[])) need one entry per buffer of "
                        "(f32[8,2], f32[8,2])"));
}

TEST(AfterAllTest, OrdersValuesAsWellAsTokens) {
  EXPECT_EQ(VerifyErrors(R"(ENTRY %main {
  %p = f32[] parameter(0)
  %t = token[] after-all()
  %all = token[] after-all(%p, %t)
  %q = f32[] add-dependency(%p, %all)
  ROOT %n = f32[] negate(%q)
})"),
            "");
  // add-dependency still needs a token to depend on.
  EXPECT_THAT(VerifyErrors(R"(ENTRY %main {
  %p = f32[] parameter(0)
  ROOT %q = f32[] add-dependency(%p, %p)
})"),
              HasSubstr("add-dependency operand 1 must be a token, got f32[]"));
}

// A recv/send started before a loop and finished inside it reach their -done
// through get-tuple-element, as in XLA's pipelined send/recv.
constexpr char kPipelined[] = R"(HloModule m
ENTRY %main {
  %tok = token[] after-all()
  %p = u32[2] parameter(0)
  %recv = (u32[2], u32[], token[]) recv(%tok), channel_id=1
  %send = (u32[2], u32[], token[]) send(%p, %tok), channel_id=1
  %carry = ((u32[2], u32[], token[]), (u32[2], u32[], token[])) tuple(%recv, %send)
  %r = (u32[2], u32[], token[]) get-tuple-element(%carry), index=0
  %s = (u32[2], u32[], token[]) get-tuple-element(%carry), index=1
  %rd = (u32[2], token[]) recv-done(%r), channel_id=1
  %sd = token[] send-done(%s), channel_id=1
  ROOT %v = u32[2] get-tuple-element(%rd), index=0
})";

TEST(SendRecvDoneTest, OperandMayBeForwardedThroughTuples) {
  EXPECT_EQ(VerifyErrors(kPipelined), "");
}

TEST(SendRecvDoneTest, OperandMustStillBeATransferTuple) {
  EXPECT_THAT(VerifyErrors(R"(ENTRY %main {
  %p = u32[2] parameter(0)
  ROOT %rd = (u32[2], token[]) recv-done(%p), channel_id=1
})"),
              HasSubstr("%rd in computation %main: recv-done operand"));
}

}  // namespace
}  // namespace xlite
