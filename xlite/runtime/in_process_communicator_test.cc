#include "xlite/runtime/in_process_communicator.h"

#include <functional>
#include <thread>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;

Literal Scalar(int32_t v) {
  Literal l(Shape::Scalar(PrimitiveType::S32));
  l.Set<int32_t>(0, v);
  return l;
}

// Runs body(device) on one thread per device, reporting each end to `comm`.
std::vector<absl::Status> RunDevices(InProcessCommunicator& comm,
                                     const std::function<absl::Status(int64_t)>& body) {
  std::vector<absl::Status> results(comm.num_devices());
  std::vector<std::thread> threads;
  for (int64_t d = 0; d < comm.num_devices(); ++d) {
    threads.emplace_back([&, d] {
      results[d] = body(d);
      comm.DeviceFinished(d, results[d]);
    });
  }
  for (std::thread& t : threads) t.join();
  return results;
}

TEST(InProcessCommunicator, ExchangeReturnsGroupOrder) {
  InProcessCommunicator comm(4);
  std::vector<std::vector<int32_t>> seen(4);
  auto results = RunDevices(comm, [&](int64_t d) -> absl::Status {
    // Groups {3,0} and {1,2}; two rounds of the same key pair in order.
    std::vector<int64_t> group =
        d == 0 || d == 3 ? std::vector<int64_t>{3, 0} : std::vector<int64_t>{1, 2};
    for (int round = 0; round < 2; ++round) {
      auto got = comm.Exchange("k", d, group, Scalar(static_cast<int32_t>(10 * round + d)));
      if (!got.ok()) return got.status();
      for (const Literal& l : **got) seen[d].push_back(l.Get<int32_t>(0));
    }
    return absl::OkStatus();
  });
  for (const absl::Status& s : results) ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(seen[0], ::testing::ElementsAre(3, 0, 13, 10));
  EXPECT_THAT(seen[3], ::testing::ElementsAre(3, 0, 13, 10));
  EXPECT_THAT(seen[1], ::testing::ElementsAre(1, 2, 11, 12));
  EXPECT_THAT(seen[2], ::testing::ElementsAre(1, 2, 11, 12));
}

TEST(InProcessCommunicator, SendIsBufferedRecvWaits) {
  InProcessCommunicator comm(2);
  int32_t got = -1;
  auto results = RunDevices(comm, [&](int64_t d) -> absl::Status {
    if (d == 0) {
      auto v = comm.Recv("ch", 1, 0);
      if (!v.ok()) return v.status();
      got = v->Get<int32_t>(0);
      return absl::OkStatus();
    }
    return comm.Send("ch", 1, 0, Scalar(42));
  });
  for (const absl::Status& s : results) ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(got, 42);
}

TEST(InProcessCommunicator, FinishedPeerFailsTheWait) {
  InProcessCommunicator comm(2);
  auto results = RunDevices(comm, [&](int64_t d) -> absl::Status {
    if (d == 1) return absl::OkStatus();
    return comm.Exchange("k", 0, {0, 1}, Scalar(0)).status();
  });
  EXPECT_THAT(results[0].message(), HasSubstr("device 1 finished without joining it"));
  EXPECT_TRUE(results[1].ok());
}

TEST(InProcessCommunicator, DifferentCollectivesDeadlock) {
  InProcessCommunicator comm(2);
  auto results = RunDevices(comm, [&](int64_t d) -> absl::Status {
    return comm.Exchange(d == 0 ? "a" : "b", d, {0, 1}, Scalar(0)).status();
  });
  for (const absl::Status& s : results) {
    EXPECT_THAT(s.message(), HasSubstr("deadlock")) << s;
    EXPECT_THAT(s.message(), HasSubstr("device 1 waits in b#0")) << s;
  }
}

TEST(InProcessCommunicator, RecvFromSilentPeerIsDetected) {
  InProcessCommunicator comm(2);
  auto results = RunDevices(comm, [&](int64_t d) -> absl::Status {
    if (d == 1) return absl::OkStatus();
    return comm.Recv("ch", 1, 0).status();
  });
  EXPECT_THAT(results[0].message(), HasSubstr("ended without sending"));
}

TEST(InProcessCommunicator, MismatchedGroupsFail) {
  InProcessCommunicator comm(3);
  auto results = RunDevices(comm, [&](int64_t d) -> absl::Status {
    std::vector<int64_t> group = d == 2 ? std::vector<int64_t>{1, 2} : std::vector<int64_t>{0, 1};
    if (d == 1) group = {1, 2};
    return comm.Exchange("k", d, group, Scalar(0)).status();
  });
  // 1 and 2 agree; 0 meets one of them with another group, or waits on 1.
  bool mismatch = false;
  for (const absl::Status& s : results) {
    mismatch |= absl::StrContains(s.message(), "disagree on the group") ||
                absl::StrContains(s.message(), "finished without joining");
  }
  EXPECT_TRUE(mismatch);
  EXPECT_FALSE(results[0].ok());
}

TEST(InProcessCommunicator, FailureWakesWaiters) {
  InProcessCommunicator comm(3);
  auto results = RunDevices(comm, [&](int64_t d) -> absl::Status {
    if (d == 2) return absl::InternalError("boom");
    return comm.Exchange("k", d, {0, 1, 2}, Scalar(0)).status();
  });
  EXPECT_EQ(results[2].message(), "boom");
  for (int d : {0, 1}) {
    EXPECT_FALSE(results[d].ok());
    EXPECT_THAT(results[d].message(), ::testing::AnyOf(HasSubstr("device 2 failed"),
                                                       HasSubstr("device 2 failed without")));
  }
}

TEST(InProcessCommunicator, TimeoutIsTheLastResort) {
  InProcessCommunicator comm(2, std::chrono::milliseconds(50));
  auto results = RunDevices(comm, [&](int64_t d) -> absl::Status {
    if (d == 1) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      return absl::OkStatus();
    }
    return comm.Exchange("k", 0, {0, 1}, Scalar(0)).status();
  });
  EXPECT_EQ(results[0].code(), absl::StatusCode::kDeadlineExceeded) << results[0];
}

TEST(InProcessCommunicator, RejectsBadGroups) {
  InProcessCommunicator comm(2);
  EXPECT_FALSE(comm.Exchange("k", 0, {1}, Scalar(0)).ok());
  EXPECT_FALSE(comm.Exchange("k", 0, {0, 0}, Scalar(0)).ok());
  EXPECT_FALSE(comm.Exchange("k", 0, {0, 5}, Scalar(0)).ok());
}

}  // namespace
}  // namespace xlite
