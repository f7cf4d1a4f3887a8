// The evaluator's use of a communicator's native collective forms
// (Communicator::AllReduce / AllToAll / ReduceScatter, which the MPI
// communicator maps to MPI calls): taken exactly for one-operand collectives
// with a plain reducer, and giving the same results as Exchange.
#include <atomic>
#include <thread>

#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/eval/evaluator.h"
#include "xlite/eval/multi_device.h"
#include "xlite/runtime/in_process_communicator.h"
#include "xlite/text/parser.h"

namespace xlite::eval {
namespace {

// Carries the native forms on top of Exchange, the way a runtime with its
// own reduction would (s32 add only, declining everything else), and counts
// what it carried.
class NativeFormsCommunicator : public InProcessCommunicator {
 public:
  using InProcessCommunicator::InProcessCommunicator;

  absl::StatusOr<std::optional<Literal>> AllReduce(std::string_view key, int64_t self,
                                                   absl::Span<const int64_t> group,
                                                   ReductionKind kind,
                                                   const Literal& value) override {
    if (kind != ReductionKind::kAdd || value.shape().element_type() != PrimitiveType::S32) {
      return std::nullopt;
    }
    ++all_reduces;
    auto values = Exchange(key, self, group, value);
    if (!values.ok()) return values.status();
    return Sum(**values);
  }
  absl::StatusOr<std::optional<std::vector<Literal>>> AllToAll(
      std::string_view key, int64_t self, absl::Span<const int64_t> group,
      const std::vector<Literal>& blocks) override {
    ++all_to_alls;
    absl::StatusOr<std::vector<Literal>> mine = BlocksFor(key, self, group, blocks);
    if (!mine.ok()) return mine.status();
    return std::optional<std::vector<Literal>>(*std::move(mine));
  }
  absl::StatusOr<std::optional<Literal>> ReduceScatter(
      std::string_view key, int64_t self, absl::Span<const int64_t> group, ReductionKind kind,
      const std::vector<Literal>& blocks) override {
    if (kind != ReductionKind::kAdd || blocks[0].shape().element_type() != PrimitiveType::S32) {
      return std::nullopt;
    }
    ++reduce_scatters;
    absl::StatusOr<std::vector<Literal>> mine = BlocksFor(key, self, group, blocks);
    if (!mine.ok()) return mine.status();
    return Sum(*mine);
  }

  std::atomic<int> all_reduces{0}, all_to_alls{0}, reduce_scatters{0};

 private:
  // The block every member addressed to `self`, in group order.
  absl::StatusOr<std::vector<Literal>> BlocksFor(std::string_view key, int64_t self,
                                                 absl::Span<const int64_t> group,
                                                 const std::vector<Literal>& blocks) {
    auto values = Exchange(key, self, group, Literal::Tuple(blocks));
    if (!values.ok()) return values.status();
    size_t position = std::find(group.begin(), group.end(), self) - group.begin();
    std::vector<Literal> mine;
    for (const Literal& v : **values) mine.push_back(v.tuple_elements()[position]);
    return mine;
  }
  static std::optional<Literal> Sum(const std::vector<Literal>& values) {
    Literal sum = values[0];
    for (size_t m = 1; m < values.size(); ++m) {
      for (int64_t i = 0; i < sum.element_count(); ++i) {
        sum.SetInt64(i, sum.GetInt64(i) + values[m].GetInt64(i));
      }
    }
    return sum;
  }
};

constexpr char kModule[] = R"(HloModule m, num_partitions=4
add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] add(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY e {
  n = s32[8,4] parameter(0)
  x = f32[8,4] parameter(1)
  pid = u32[] partition-id()
  ps = s32[] convert(pid)
  pb = s32[8,4] broadcast(ps), dimensions={}
  mine = s32[8,4] multiply(n, pb)
  ar = s32[8,4] all-reduce(mine), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add_s32
  arf = f32[8,4] all-reduce(x), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add_f32
  pair = (s32[8,4], s32[8,4]) all-reduce(mine, n), channel_id=3, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add_s32
  rs = s32[8,1] reduce-scatter(mine), channel_id=4, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={1}, to_apply=add_s32
  a2a = s32[8,4] all-to-all(mine), channel_id=5, replica_groups={{0,1},{2,3}}, dimensions={0}
  ROOT out = (s32[8,4], f32[8,4], (s32[8,4], s32[8,4]), s32[8,1], s32[8,4]) tuple(ar, arf, pair, rs, a2a)
})";

TEST(NativeCollectives, TakenForPlainOneOperandCollectivesWithEqualResults) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  std::vector<Literal> args;
  args.emplace_back(Shape(PrimitiveType::S32, {8, 4}));
  args.emplace_back(Shape(PrimitiveType::F32, {8, 4}));
  for (int64_t i = 0; i < 32; ++i) {
    args[0].SetInt64(i, i * 37 % 11 - 5);
    args[1].SetDouble(i, 0.1 * i);
  }
  std::vector<std::vector<Literal>> per_device = {args};
  absl::StatusOr<std::vector<Literal>> expected = EvaluateOnAllDevices(**module, per_device);
  ASSERT_TRUE(expected.ok()) << expected.status();

  NativeFormsCommunicator communicator(4);
  std::vector<absl::StatusOr<Literal>> results(4, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < 4; ++d) {
    threads.emplace_back([&, d] {
      EvalOptions options;
      options.partition_id = d;
      options.communicator = &communicator;
      Evaluator evaluator(options);
      results[d] = evaluator.Run(**module, args);
      communicator.DeviceFinished(d, results[d].status());
    });
  }
  for (std::thread& t : threads) t.join();
  for (int64_t d = 0; d < 4; ++d) {
    ASSERT_TRUE(results[d].ok()) << results[d].status();
    EXPECT_TRUE(*results[d] == (*expected)[d]) << "device " << d;
  }
  // One per device each: the s32 all-reduce, the reduce-scatter and the
  // all-to-all; the f32 all-reduce is declined and the two-operand one is
  // never offered.
  EXPECT_EQ(communicator.all_reduces, 4);
  EXPECT_EQ(communicator.reduce_scatters, 4);
  EXPECT_EQ(communicator.all_to_alls, 4);
}

}  // namespace
}  // namespace xlite::eval
