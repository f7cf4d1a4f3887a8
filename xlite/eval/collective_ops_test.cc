#include <chrono>
#include <functional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/eval/eval_test_util.h"
#include "xlite/eval/multi_device.h"

namespace xlite::eval {
namespace {

using ::testing::ElementsAre;
using testing::EvaluateText;
using ::testing::HasSubstr;
using testing::MakeLiteral;
using testing::ToDoubles;

using ArgsOf = std::function<std::vector<Literal>(int64_t device)>;

// Parses (and verifies) `text`, then runs every device with args_of(device).
absl::StatusOr<std::vector<Literal>> RunOnAll(std::string_view text, const ArgsOf& args_of,
                                              bool verify = true) {
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  if (verify) XLITE_RETURN_IF_ERROR(VerifyModule(*module));
  int64_t devices = module->config().replica_count * module->config().num_partitions;
  std::vector<std::vector<Literal>> args;
  for (int64_t d = 0; d < devices; ++d) args.push_back(args_of(d));
  return EvaluateOnAllDevices(*module, args);
}

// Every leaf of a (possibly tuple) literal as doubles.
std::vector<double> Flat(const Literal& l) {
  if (!l.shape().IsTuple()) return ToDoubles(l);
  std::vector<double> out;
  for (const Literal& e : l.tuple_elements()) {
    std::vector<double> part = Flat(e);
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

std::vector<std::vector<double>> AllFlat(const std::vector<Literal>& results) {
  std::vector<std::vector<double>> out;
  for (const Literal& l : results) out.push_back(Flat(l));
  return out;
}

// Other helpers write the arithmetic ops; a test that needs one skips until
// it lands.
#define SKIP_IF_NO_RULE(status)                                                   \
  if (!(status).ok() && absl::StrContains((status).message(), "has no rule for")) \
  GTEST_SKIP() << (status).message()

ArgsOf ScalarPerDevice(const std::string& shape, std::function<std::vector<double>(int64_t)> fn) {
  std::string s(shape);
  return [s, fn](int64_t d) {
    std::vector<Literal> args;
    args.push_back(MakeLiteral(s, fn(d)));
    return args;
  };
}

constexpr const char* kAdd = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

std::string Module(const std::string& header, const std::string& body) {
  return absl::StrCat("HloModule m, ", header, "\n", kAdd, "\nENTRY e {\n", body, "\n}\n");
}

// ----------------------------------------------------------- all-reduce

TEST(CollectiveOps, AllReduceOddGroupsOn2And4And8) {
  auto squares = ScalarPerDevice("f32[2]", [](int64_t d) {
    return std::vector<double>{double(d * d), 1};
  });
  // 2 replicas, empty groups = everyone: 0 + 1.
  auto r2 = RunOnAll(Module("replica_count=2", R"(
  p = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(p), replica_groups={}, to_apply=add)"),
                     squares);
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_THAT(AllFlat(*r2), ElementsAre(ElementsAre(1, 2), ElementsAre(1, 2)));
  // {{0,3},{1,2}}: 0+9 and 1+4.
  auto r4 = RunOnAll(Module("replica_count=4", R"(
  p = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(p), replica_groups={{0,3},{1,2}}, to_apply=add)"),
                     squares);
  ASSERT_TRUE(r4.ok()) << r4.status();
  EXPECT_THAT(AllFlat(*r4), ElementsAre(ElementsAre(9, 2), ElementsAre(5, 2), ElementsAre(5, 2),
                                        ElementsAre(9, 2)));
  // [2,4]<=[4,2]T(1,0): iota 0..7 as [4,2] transposed to [2,4]; row i holds
  // the ids with id % 2 == i: {0,2,4,6} (0+4+16+36=56), {1,3,5,7} (1+9+25+49=84).
  auto r8 = RunOnAll(Module("replica_count=8", R"(
  p = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(p), replica_groups=[2,4]<=[4,2]T(1,0), to_apply=add)"),
                     squares);
  ASSERT_TRUE(r8.ok()) << r8.status();
  for (int64_t d = 0; d < 8; ++d) {
    EXPECT_THAT(Flat((*r8)[d]), ElementsAre(d % 2 == 0 ? 56 : 84, 4)) << "device " << d;
  }
}

TEST(CollectiveOps, AllReduceGroupsOfOneAreIdentity) {
  auto r = RunOnAll(Module("replica_count=4", R"(
  p = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(p), replica_groups={{0},{2},{1},{3}}, to_apply=add)"),
                    ScalarPerDevice("f32[2]", [](int64_t d) {
                      return std::vector<double>{double(d), double(-d)};
                    }));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(AllFlat(*r), ElementsAre(ElementsAre(0, 0), ElementsAre(1, -1), ElementsAre(2, -2),
                                       ElementsAre(3, -3)));
}

// Device d = replica * 2 + partition contributes d*d.
TEST(CollectiveOps, GroupModes) {
  auto squares =
      ScalarPerDevice("f32[]", [](int64_t d) { return std::vector<double>{double(d * d)}; });
  struct Case {
    const char* attrs;
    std::vector<double> expected;
  };
  const Case cases[] = {
      // No channel: replicas {0,1} of one partition: devices {p, 2+p}.
      {"replica_groups={}", {4, 10, 4, 10}},
      // Channel without global ids: replica group {0,1} with every partition.
      {"channel_id=1, replica_groups={}", {14, 14, 14, 14}},
      {"channel_id=1, replica_groups={{1},{0}}", {1, 1, 13, 13}},
      // Global ids.
      {"channel_id=1, replica_groups={{0,3},{1,2}}, use_global_device_ids=true", {9, 5, 5, 9}},
  };
  for (const Case& c : cases) {
    auto r =
        RunOnAll(Module("replica_count=2, num_partitions=2",
                        absl::StrCat("  p = f32[] parameter(0)\n  ROOT r = f32[] all-reduce(p), ",
                                     c.attrs, ", to_apply=add")),
                 squares);
    ASSERT_TRUE(r.ok()) << c.attrs << ": " << r.status();
    std::vector<double> got;
    for (const Literal& l : *r) got.push_back(l.GetDouble(0));
    EXPECT_EQ(got, c.expected) << c.attrs;
  }
}

TEST(CollectiveOps, AllReduceTupleFormAndAsync) {
  auto args = [](int64_t d) {
    std::vector<Literal> a;
    a.push_back(MakeLiteral("f32[2]", {double(d), 1}));
    a.push_back(MakeLiteral("f32[]", {double(10 * d)}));
    return a;
  };
  auto r = RunOnAll(Module("replica_count=4", R"(
  p = f32[2] parameter(0)
  q = f32[] parameter(1)
  s = (f32[2], f32[]) all-reduce-start(p, q), replica_groups={{0,1,2},{3}}, to_apply=add
  ROOT d = (f32[2], f32[]) all-reduce-done(s))"),
                    args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(AllFlat(*r), ElementsAre(ElementsAre(3, 3, 30), ElementsAre(3, 3, 30),
                                       ElementsAre(3, 3, 30), ElementsAre(3, 1, 30)));
}

TEST(CollectiveOps, ReducerIsCalledInGroupOrder) {
  // A reducer that keeps its second argument leaves the last member's
  // value; it takes the general (called) path, not the fast one.
  auto r = RunOnAll(
      R"(HloModule m, replica_count=4
last {
  a = s32[] parameter(0)
  ROOT b = s32[] parameter(1)
}
ENTRY e {
  p = s32[] parameter(0)
  ROOT r = s32[] all-reduce(p), replica_groups={{2,0},{1,3}}, to_apply=last
})",
      ScalarPerDevice("s32[]", [](int64_t d) { return std::vector<double>{double(100 + d)}; }));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(AllFlat(*r),
              ElementsAre(ElementsAre(100), ElementsAre(103), ElementsAre(100), ElementsAre(103)));
}

TEST(CollectiveOps, ArrayReducerCombinesWholeContributions) {
  // XLA's verifier accepts a reducer over whole arrays; subtract is not a
  // fast reducer, so the reducer is called once per pair of contributions in
  // group order: [10,20] - [1,2] on both members.
  const char* text = R"(HloModule m, replica_count=2
sub {
  a = s32[2] parameter(0)
  b = s32[2] parameter(1)
  ROOT d = s32[2] subtract(a, b)
}
ENTRY e {
  p = s32[2] parameter(0)
  ROOT r = s32[2] all-reduce(p), replica_groups={{0,1}}, to_apply=sub
})";
  auto args = [](int64_t d) {
    std::vector<Literal> a;
    a.push_back(
        MakeLiteral("s32[2]", d == 0 ? std::vector<double>{10, 20} : std::vector<double>{1, 2}));
    return a;
  };
  auto r = RunOnAll(text, args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(AllFlat(*r), ElementsAre(ElementsAre(9, 18), ElementsAre(9, 18)));

  // A reducer over another array shape is refused, not misread.
  std::string other = absl::StrReplaceAll(
      text,
      {{"a = s32[2]", "a = s32[3]"}, {"b = s32[2]", "b = s32[3]"}, {"d = s32[2]", "d = s32[3]"}});
  auto bad = RunOnAll(other, args);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("not supported yet: reducer %sub over s32[3]"));
}

TEST(CollectiveOps, FloatSumIsBitIdenticalInGroupOrder) {
  // f32: 1e8 + 1 rounds back to 1e8, so the order of the group matters:
  // {0,2,1,3} sums 1e8 - 1e8 + 1 + 1 = 2 on every device.
  const double values[] = {1e8, 1, -1e8, 1};
  auto r =
      RunOnAll(Module("replica_count=4", R"(
  p = f32[] parameter(0)
  ROOT r = f32[] all-reduce(p), replica_groups={{0,2,1,3}}, to_apply=add)"),
               ScalarPerDevice("f32[]", [&](int64_t d) { return std::vector<double>{values[d]}; }));
  ASSERT_TRUE(r.ok()) << r.status();
  for (const Literal& l : *r) EXPECT_EQ(l.GetDouble(0), 2);
  for (const Literal& l : *r) EXPECT_TRUE(l == (*r)[0]);
}

// XLA:CPU's AllReducePromotion: bf16 sums in f32 and rounds once. 1 plus
// 2^-8 three times: per step each 1 + 2^-8 ties back to 1; in f32 the sum
// 1 + 3 * 2^-8 rounds (a tie, to even) to 1 + 2^-6. The tuple form and
// reduce-scatter promote the same way, an f32 operand beside stays f32.
TEST(CollectiveOps, Bf16AllReduceAndReduceScatterSumInF32) {
  const std::string bf16_add = R"(
add_bf16 {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
)";
  const auto run = [&](const std::string& body, const std::string& shape) {
    return RunOnAll(absl::StrCat("HloModule m, replica_count=4\n", bf16_add, kAdd, "\nENTRY e {\n",
                                 body, "\n}\n"),
                    ScalarPerDevice(shape, [&](int64_t d) {
                      return std::vector<double>(shape == "bf16[]" ? 1 : 4,
                                                 d == 0 ? 1.0 : 1.0 / 256);
                    }));
  };
  auto r = run(R"(
  p = bf16[] parameter(0)
  ROOT r = bf16[] all-reduce(p), replica_groups={{0,1,2,3}}, to_apply=add_bf16)",
               "bf16[]");
  ASSERT_TRUE(r.ok()) << r.status();
  for (const Literal& l : *r) EXPECT_EQ(l.GetDouble(0), 1.0 + 1.0 / 64);
  auto rs = run(R"(
  p = bf16[4] parameter(0)
  ROOT r = bf16[1] reduce-scatter(p), replica_groups={{0,1,2,3}}, dimensions={0}, to_apply=add_bf16)",
                "bf16[4]");
  ASSERT_TRUE(rs.ok()) << rs.status();
  for (const Literal& l : *rs) {
    EXPECT_EQ(l.shape().element_type(), PrimitiveType::BF16);
    EXPECT_THAT(Flat(l), ElementsAre(1.0 + 1.0 / 64));
  }
}

TEST(CollectiveOps, FastReducersOnIntegersAndPred) {
  struct Case {
    const char* op;
    const char* type;
    std::vector<double> expected;  // from inputs d+1 (pred: d % 2)
  };
  const Case cases[] = {{"maximum", "s32", {4}}, {"minimum", "s32", {1}}, {"multiply", "s32", {24}},
                        {"add", "u8", {10}},     {"and", "pred", {0}},    {"or", "pred", {1}},
                        {"and", "s32", {0}},     {"or", "s32", {7}}};
  for (const Case& c : cases) {
    std::string text = absl::StrCat(
        "HloModule m, replica_count=4\nred {\n  a = ", c.type, "[] parameter(0)\n  b = ", c.type,
        "[] parameter(1)\n", "  ROOT r = ", c.type, "[] ", c.op, "(b, a)\n}\n",
        "ENTRY e {\n  p = ", c.type, "[] parameter(0)\n", "  ROOT r = ", c.type,
        "[] all-reduce(p), replica_groups={}, to_apply=red\n}\n");
    bool pred = std::string(c.type) == "pred";
    auto r = RunOnAll(text, ScalarPerDevice(absl::StrCat(c.type, "[]"), [&](int64_t d) {
                        return std::vector<double>{pred ? double(d % 2) : double(d + 1)};
                      }));
    ASSERT_TRUE(r.ok()) << c.op << " " << c.type << ": " << r.status();
    for (const Literal& l : *r) EXPECT_EQ(ToDoubles(l), c.expected) << c.op << " " << c.type;
  }
}

// ----------------------------------------------------------- all-gather

TEST(CollectiveOps, AllGatherOrdersByGroup) {
  auto args = [](int64_t d) {
    std::vector<Literal> a;
    a.push_back(MakeLiteral("s32[1,2]", {double(d), double(10 * d)}));
    a.push_back(MakeLiteral("s32[2,1]", {double(d), double(100 + d)}));
    return a;
  };
  auto r = RunOnAll(R"(HloModule m, replica_count=4
ENTRY e {
  p = s32[1,2] parameter(0)
  q = s32[2,1] parameter(1)
  g0 = s32[2,2] all-gather(p), replica_groups={{0,3},{1,2}}, dimensions={0}
  g1 = (s32[2,2], s32[1,4]) all-gather(q, p), replica_groups={{3,0},{1,2}}, dimensions={1}
  ROOT t = (s32[2,2], (s32[2,2], s32[1,4])) tuple(g0, g1)
})",
                    args);
  ASSERT_TRUE(r.ok()) << r.status();
  auto flat = AllFlat(*r);
  // Device 0: g0 = [[0,0],[3,30]]; g1 (order 3,0) = [[3,0],[103,100]] and
  // [[3,30,0,0]].
  EXPECT_THAT(flat[0], ElementsAre(0, 0, 3, 30, 3, 0, 103, 100, 3, 30, 0, 0));
  EXPECT_THAT(flat[3], ElementsAre(0, 0, 3, 30, 3, 0, 103, 100, 3, 30, 0, 0));
  EXPECT_THAT(flat[1], ElementsAre(1, 10, 2, 20, 1, 2, 101, 102, 1, 10, 2, 20));
  EXPECT_THAT(flat[2], ElementsAre(1, 10, 2, 20, 1, 2, 101, 102, 1, 10, 2, 20));
}

TEST(CollectiveOps, AllGatherAsyncOn8GlobalIds) {
  // 2 replicas x 4 partitions; global groups [2,4]<=[4,2]T(1,0) = {0,2,4,6},
  // {1,3,5,7}.
  auto r =
      RunOnAll(R"(HloModule m, replica_count=2, num_partitions=4
ENTRY e {
  x = u32[1] parameter(0)
  s = (u32[1], u32[4]) all-gather-start(x), channel_id=7, replica_groups=[2,4]<=[4,2]T(1,0), use_global_device_ids=true, dimensions={0}
  ROOT d = u32[4] all-gather-done(s)
})",
               ScalarPerDevice("u32[1]", [](int64_t d) { return std::vector<double>{double(d)}; }));
  ASSERT_TRUE(r.ok()) << r.status();
  for (int64_t d = 0; d < 8; ++d) {
    if (d % 2 == 0) {
      EXPECT_THAT(Flat((*r)[d]), ElementsAre(0, 2, 4, 6)) << d;
    } else {
      EXPECT_THAT(Flat((*r)[d]), ElementsAre(1, 3, 5, 7)) << d;
    }
  }
}

// ------------------------------------------------------- reduce-scatter

TEST(CollectiveOps, ReduceScatterKeepsTheMembersShard) {
  auto ramp = ScalarPerDevice("f32[4]", [](int64_t d) {
    return std::vector<double>{double(4 * d), double(4 * d + 1), double(4 * d + 2),
                               double(4 * d + 3)};
  });
  // Sum over both = [4,6,8,10]; order {1,0} gives device 1 the first half.
  auto r = RunOnAll(Module("replica_count=2", R"(
  p = f32[4] parameter(0)
  ROOT r = f32[2] reduce-scatter(p), replica_groups={{1,0}}, dimensions={0}, to_apply=add)"),
                    ramp);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(AllFlat(*r), ElementsAre(ElementsAre(8, 10), ElementsAre(4, 6)));
  // 8 devices, groups {0,2,4,6}, {1,3,5,7}; input [d, d+1, d+2, d+3]:
  // sums [12,16,20,24] and [16,20,24,28], one element per member.
  auto r8 =
      RunOnAll(Module("replica_count=8", R"(
  p = f32[4] parameter(0)
  ROOT r = f32[1] reduce-scatter(p), replica_groups=[2,4]<=[4,2]T(1,0), dimensions={0}, to_apply=add)"),
               ScalarPerDevice("f32[4]", [](int64_t d) {
                 return std::vector<double>{double(d), double(d + 1), double(d + 2), double(d + 3)};
               }));
  ASSERT_TRUE(r8.ok()) << r8.status();
  const double expected[] = {12, 16, 16, 20, 20, 24, 24, 28};
  for (int64_t d = 0; d < 8; ++d) EXPECT_THAT(Flat((*r8)[d]), ElementsAre(expected[d])) << d;
}

// ----------------------------------------------------------- all-to-all

TEST(CollectiveOps, AllToAllArrayForm) {
  auto r = RunOnAll(R"(HloModule m, replica_count=2
ENTRY e {
  p = s32[4] parameter(0)
  ROOT r = s32[4] all-to-all(p), replica_groups={}, dimensions={0}
})",
                    ScalarPerDevice("s32[4]", [](int64_t d) {
                      return std::vector<double>{double(10 * d), double(10 * d + 1),
                                                 double(10 * d + 2), double(10 * d + 3)};
                    }));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(AllFlat(*r), ElementsAre(ElementsAre(0, 1, 10, 11), ElementsAre(2, 3, 12, 13)));
  // Split dimension 1 over {{0,3},{1,2}}.
  auto r4 = RunOnAll(R"(HloModule m, replica_count=4
ENTRY e {
  p = s32[1,2] parameter(0)
  ROOT r = s32[1,2] all-to-all(p), replica_groups={{0,3},{1,2}}, dimensions={1}
})",
                     ScalarPerDevice("s32[1,2]", [](int64_t d) {
                       return std::vector<double>{double(10 * d), double(10 * d + 1)};
                     }));
  ASSERT_TRUE(r4.ok()) << r4.status();
  EXPECT_THAT(AllFlat(*r4), ElementsAre(ElementsAre(0, 30), ElementsAre(10, 20),
                                        ElementsAre(11, 21), ElementsAre(1, 31)));
}

TEST(CollectiveOps, AllToAllTupleFormCrossPartition) {
  // channel_id: the ids are partitions (2 replicas x 2 partitions).
  auto args = [](int64_t d) {
    std::vector<Literal> a;
    a.push_back(MakeLiteral("s32[1]", {double(10 * d)}));
    a.push_back(MakeLiteral("s32[1]", {double(10 * d + 1)}));
    return a;
  };
  auto r = RunOnAll(R"(HloModule m, replica_count=2, num_partitions=2
ENTRY e {
  a = s32[1] parameter(0)
  b = s32[1] parameter(1)
  ROOT r = (s32[1], s32[1]) all-to-all(a, b), channel_id=3, replica_groups={{0,1}}
})",
                    args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(AllFlat(*r), ElementsAre(ElementsAre(0, 10), ElementsAre(1, 11), ElementsAre(20, 30),
                                       ElementsAre(21, 31)));
}

TEST(CollectiveOps, RaggedAllToAll) {
  // Device 0 sends row 0 to itself and rows 1..3 to device 1 (at its row 0);
  // device 1 sends rows 0..1 to device 0 (at row 1) and rows 2..3 to itself
  // (at row 3).
  auto args = [](int64_t d) {
    std::vector<Literal> a;
    a.push_back(MakeLiteral(
        "f32[4]", {double(10 * d), double(10 * d + 1), double(10 * d + 2), double(10 * d + 3)}));
    a.push_back(MakeLiteral("f32[5]", {-1, -1, -1, -1, -1}));
    a.push_back(
        MakeLiteral("s64[2]", d == 0 ? std::vector<double>{0, 1} : std::vector<double>{0, 2}));
    a.push_back(
        MakeLiteral("s64[2]", d == 0 ? std::vector<double>{1, 3} : std::vector<double>{2, 2}));
    a.push_back(
        MakeLiteral("s64[2]", d == 0 ? std::vector<double>{0, 0} : std::vector<double>{1, 3}));
    a.push_back(
        MakeLiteral("s64[2]", d == 0 ? std::vector<double>{1, 2} : std::vector<double>{3, 2}));
    return a;
  };
  auto r = RunOnAll(R"(HloModule m, replica_count=2
ENTRY e {
  in = f32[4] parameter(0)
  out = f32[5] parameter(1)
  io = s64[2] parameter(2)
  ss = s64[2] parameter(3)
  oo = s64[2] parameter(4)
  rs = s64[2] parameter(5)
  ROOT r = f32[5] ragged-all-to-all(in, out, io, ss, oo, rs), replica_groups={{0,1}}
})",
                    args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(AllFlat(*r),
              ElementsAre(ElementsAre(0, 10, 11, -1, -1), ElementsAre(1, 2, 3, 12, 13)));
}

// ---------------------------------------------- permute, broadcast, p2p

TEST(CollectiveOps, CollectivePermuteWithMissingSource) {
  auto r = RunOnAll(
      R"(HloModule m, replica_count=4
ENTRY e {
  p = f32[1] parameter(0)
  ROOT r = f32[1] collective-permute(p), source_target_pairs={{0,1},{1,2},{2,0}}
})",
      ScalarPerDevice("f32[1]", [](int64_t d) { return std::vector<double>{double(d + 1)}; }));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(AllFlat(*r),
              ElementsAre(ElementsAre(3), ElementsAre(1), ElementsAre(2), ElementsAre(0)));
}

TEST(CollectiveOps, CollectivePermuteAsyncCrossPartitionTuple) {
  // channel_id: pairs name partitions within each replica.
  auto args = [](int64_t d) {
    std::vector<Literal> a;
    a.push_back(MakeLiteral("f32[1]", {double(d + 1)}));
    a.push_back(MakeLiteral("s32[]", {double(-d)}));
    return a;
  };
  auto r = RunOnAll(R"(HloModule m, replica_count=2, num_partitions=2
ENTRY e {
  p = f32[1] parameter(0)
  q = s32[] parameter(1)
  s = ((f32[1], s32[]), (f32[1], s32[]), u32[], u32[]) collective-permute-start(p, q), channel_id=2, source_target_pairs={{0,1}}
  ROOT d = (f32[1], s32[]) collective-permute-done(s)
})",
                    args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(AllFlat(*r), ElementsAre(ElementsAre(0, 0), ElementsAre(1, 0), ElementsAre(0, 0),
                                       ElementsAre(3, -2)));
}

TEST(CollectiveOps, CollectiveBroadcastRootIsFirstMember) {
  constexpr const char* kText = R"(HloModule m, replica_count=2, num_partitions=2
ENTRY e {
  p = f32[1] parameter(0)
  ROOT r = f32[1] collective-broadcast(p), %s replica_groups={{1,0}}
})";
  auto ids = ScalarPerDevice("f32[1]", [](int64_t d) { return std::vector<double>{double(d)}; });
  std::string cross_partition(kText), cross_replica(kText);
  cross_partition.replace(cross_partition.find("%s"), 2, "channel_id=4,");
  cross_replica.replace(cross_replica.find("%s"), 2, "");
  auto rp = RunOnAll(cross_partition, ids);
  ASSERT_TRUE(rp.ok()) << rp.status();
  EXPECT_THAT(AllFlat(*rp),
              ElementsAre(ElementsAre(1), ElementsAre(1), ElementsAre(3), ElementsAre(3)));
  auto rr = RunOnAll(cross_replica, ids);
  ASSERT_TRUE(rr.ok()) << rr.status();
  EXPECT_THAT(AllFlat(*rr),
              ElementsAre(ElementsAre(2), ElementsAre(3), ElementsAre(2), ElementsAre(3)));
}

// Each device posts its receive first, then sends: sends never wait.
constexpr char kSendRecvPair[] = R"(HloModule m, num_partitions=2
ENTRY e {
  x = f32[2] parameter(0)
  tok = token[] after-all()
  rv = (f32[2], u32[], token[]) recv(tok), channel_id=5
  sd = (f32[2], u32[], token[]) send(x, tok), channel_id=5
  sdd = token[] send-done(sd), channel_id=5
  rvd = (f32[2], token[]) recv-done(rv), channel_id=5
  ROOT v = f32[2] get-tuple-element(rvd), index=0
})";

std::vector<Literal> TwoValues(int64_t device) {
  return ScalarPerDevice("f32[2]", [](int64_t d) {
    return std::vector<double>{double(d), 7};
  })(device);
}

// `r` failed with "not supported yet: ...<what>...".
template <typename T>
void ExpectNotSupported(const absl::StatusOr<T>& r, std::string_view what) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(r.status().message(), HasSubstr(what));
}

TEST(CollectiveOps, SendRecvBetweenTwoPartitions) {
  auto r = RunOnAll(kSendRecvPair, TwoValues);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(AllFlat(*r), ElementsAre(ElementsAre(1, 7), ElementsAre(0, 7)));
}

TEST(CollectiveOps, SendRecvPairsAttributeInALoopOrder) {
  // A chain 0->1->2->3 over partitions; partition 0 receives nothing (zeros).
  auto r = RunOnAll(
      R"(HloModule m, num_partitions=4
ENTRY e {
  x = s32[] parameter(0)
  tok = token[] after-all()
  sd = (s32[], u32[], token[]) send(x, tok), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2},{2,3}}"}
  rv = (s32[], u32[], token[]) recv(tok), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2},{2,3}}"}
  rvd = (s32[], token[]) recv-done(rv), channel_id=1
  sdd = token[] send-done(sd), channel_id=1
  ROOT v = s32[] get-tuple-element(rvd), index=0
})",
      ScalarPerDevice("s32[]", [](int64_t d) { return std::vector<double>{double(100 + d)}; }));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(AllFlat(*r),
              ElementsAre(ElementsAre(0), ElementsAre(100), ElementsAre(101), ElementsAre(102)));
}

TEST(CollectiveOps, HostTransferIsUnimplemented) {
  auto r = EvaluateText(R"(HloModule m
ENTRY e {
  x = s32[] parameter(0)
  tok = token[] after-all()
  sd = (s32[], u32[], token[]) send(x, tok), channel_id=1, is_host_transfer=true
  ROOT sdd = token[] send-done(sd), channel_id=1, is_host_transfer=true
})",
                        {MakeLiteral("s32[]", {1})});
  ExpectNotSupported(r, "host transfer");
}

TEST(CollectiveOps, PipelinedRecvDoneIsUnimplemented) {
  // The -done reaches its recv through a tuple: the route is not known here.
  std::string text = kSendRecvPair;
  std::string_view from = "  rvd = (f32[2], token[]) recv-done(rv)";
  text.replace(text.find(from), from.size(),
               "  carry = ((f32[2], u32[], token[])) tuple(rv)\n"
               "  fwd = (f32[2], u32[], token[]) get-tuple-element(carry), index=0\n"
               "  rvd = (f32[2], token[]) recv-done(fwd)");
  ExpectNotSupported(RunOnAll(text, TwoValues), "pipelined through tuples or loops");
}

TEST(CollectiveOps, InPlaceCollectivePermuteIsUnimplemented) {
  auto r = RunOnAll(R"(HloModule m, replica_count=2
ENTRY e {
  in = f32[2] parameter(0)
  zero = s32[] constant(0)
  zero_f = f32[] constant(0)
  out = f32[4] broadcast(zero_f), dimensions={}
  at = (s32[]) tuple(zero)
  ROOT cp = f32[4] collective-permute(in, out, at, at), source_target_pairs={{0,1},{1,0}},
    slice_sizes={{2}}
})",
                    TwoValues);
  ExpectNotSupported(r, "in-place collective-permute");
}

// -------------------------------------------------------- single device

TEST(CollectiveOps, SingleDeviceGroupOfOneIsIdentity) {
  auto r = EvaluateText(Module("replica_count=1", R"(
  p = f32[2] parameter(0)
  ar = f32[2] all-reduce(p), replica_groups={}, to_apply=add
  ag = f32[2] all-gather(ar), replica_groups={{0}}, dimensions={0}
  ROOT cp = f32[2] collective-permute(ag), source_target_pairs={{0,0}})"),
                        {MakeLiteral("f32[2]", {1, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(ToDoubles(*r), ElementsAre(1, 2));
}

TEST(CollectiveOps, SingleDeviceWiderGroupIsAnError) {
  auto r = EvaluateText(Module("replica_count=2", R"(
  p = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(p), replica_groups={}, to_apply=add)"),
                        {MakeLiteral("f32[2]", {1, 2})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("spans 2 devices"));
}

// ------------------------------------------- failures end, never hang

TEST(CollectiveOps, GroupsThatMissADeviceFail) {
  auto start = std::chrono::steady_clock::now();
  auto r = RunOnAll(Module("replica_count=4", R"(
  p = f32[] parameter(0)
  ROOT r = f32[] all-reduce(p), replica_groups={{0,1},{2}}, to_apply=add)"),
                    ScalarPerDevice("f32[]", [](int64_t) { return std::vector<double>{1}; }),
                    /*verify=*/false);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("no group of replica 3"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(CollectiveOps, OverlappingGroupsFail) {
  auto r = RunOnAll(Module("replica_count=3", R"(
  p = f32[] parameter(0)
  ROOT r = f32[] all-reduce(p), replica_groups={{0,1},{1,2}}, to_apply=add)"),
                    ScalarPerDevice("f32[]", [](int64_t) { return std::vector<double>{1}; }),
                    /*verify=*/false);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("replica 1 twice"));
}

// Branch 0 (device 0) all-reduces; branch 1 does not.
constexpr const char* kSkipBody = R"(
with_ar {
  x = f32[] parameter(0)
  ROOT r = f32[] all-reduce(x), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add
}
without_ar {
  ROOT x = f32[] parameter(0)
}
)";

TEST(CollectiveOps, DeviceSkippingACollectiveFails) {
  auto start = std::chrono::steady_clock::now();
  auto args = [](int64_t d) {
    std::vector<Literal> a;
    a.push_back(MakeLiteral("s32[]", {double(d)}));
    a.push_back(MakeLiteral("f32[]", {1}));
    return a;
  };
  auto r = RunOnAll(absl::StrCat("HloModule m, num_partitions=2\n", kAdd, kSkipBody, R"(
ENTRY e {
  i = s32[] parameter(0)
  v = f32[] parameter(1)
  ROOT c = f32[] conditional(i, v, v), branch_computations={with_ar, without_ar}
})"),
                    args);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("device 1 finished without joining it"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(CollectiveOps, DeviceSkippingACollectiveByPartitionIdFails) {
  auto r = RunOnAll(absl::StrCat("HloModule m, num_partitions=2\n", kAdd, kSkipBody, R"(
ENTRY e {
  p = u32[] partition-id()
  i = s32[] convert(p)
  v = f32[] parameter(0)
  ROOT c = f32[] conditional(i, v, v), branch_computations={with_ar, without_ar}
})"),
                    ScalarPerDevice("f32[]", [](int64_t) { return std::vector<double>{1}; }));
  SKIP_IF_NO_RULE(r.status());
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("device 1 finished without joining it"));
}

TEST(CollectiveOps, DevicesInDifferentCollectivesDeadlockIsReported) {
  auto start = std::chrono::steady_clock::now();
  auto r = RunOnAll(absl::StrCat("HloModule m, num_partitions=2\n", kAdd, R"(
b0 {
  x = f32[] parameter(0)
  ROOT r0 = f32[] all-reduce(x), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add
}
b1 {
  x = f32[] parameter(0)
  ROOT r1 = f32[] all-reduce(x), channel_id=2, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add
}
ENTRY e {
  i = s32[] parameter(0)
  v = f32[] parameter(1)
  ROOT c = f32[] conditional(i, v, v), branch_computations={b0, b1}
})"),
                    [](int64_t d) {
                      std::vector<Literal> a;
                      a.push_back(MakeLiteral("s32[]", {double(d)}));
                      a.push_back(MakeLiteral("f32[]", {1}));
                      return a;
                    });
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("deadlock"));
  EXPECT_THAT(r.status().message(), HasSubstr("all-reduce %r1"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(CollectiveOps, FirstRealErrorWinsOverPeerCascade) {
  // Device 1 fails before the all-reduce (bad argument shape is caught by
  // Run); device 0 waits and is aborted. The reported error is device 1's.
  std::unique_ptr<HloModule> module = *ParseHloModule(Module("replica_count=2", R"(
  p = f32[] parameter(0)
  ROOT r = f32[] all-reduce(p), replica_groups={}, to_apply=add)"));
  std::vector<std::vector<Literal>> args(2);
  args[0].push_back(MakeLiteral("f32[]", {1}));
  args[1].push_back(MakeLiteral("s32[]", {1}));
  auto r = EvaluateOnAllDevices(*module, args);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("argument 0 has shape s32[]"));
}

// ------------------------------------------------- SPMD vs. one device

TEST(CollectiveOps, SpmdModuleMatchesItsOneDeviceOriginal) {
  // The original adds the two halves of x; the 2-partition version slices
  // its half by partition-id and all-reduces.
  auto x = MakeLiteral("f32[4]", {1, 2, 30, 40});
  auto original = EvaluateText(R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  lo = f32[2] slice(x), slice={[0:2]}
  hi = f32[2] slice(x), slice={[2:4]}
  ROOT s = f32[2] add(lo, hi)
})",
                               {x});
  SKIP_IF_NO_RULE(original.status());
  ASSERT_TRUE(original.ok()) << original.status();
  auto spmd = RunOnAll(Module("num_partitions=2", R"(
  x = f32[4] parameter(0)
  pid = u32[] partition-id()
  two = u32[] constant(2)
  start = u32[] multiply(pid, two)
  half = f32[2] dynamic-slice(x, start), dynamic_slice_sizes={2}
  ROOT s = f32[2] all-reduce(half), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add)"),
                       [&](int64_t) { return std::vector<Literal>{x}; });
  SKIP_IF_NO_RULE(spmd.status());
  ASSERT_TRUE(spmd.ok()) << spmd.status();
  EXPECT_THAT(ToDoubles(*original), ElementsAre(31, 42));
  for (const Literal& l : *spmd) EXPECT_TRUE(l == *original);
}

}  // namespace
}  // namespace xlite::eval
