// A Communicator for N devices running as N threads of one process: group
// exchanges and transfers meet under one mutex, and a device that can never
// be served (peers finished, failed, or all waiting on something else) is
// woken with an error instead of hanging.
#ifndef XLITE_RUNTIME_IN_PROCESS_COMMUNICATOR_H_
#define XLITE_RUNTIME_IN_PROCESS_COMMUNICATOR_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "xlite/runtime/communicator.h"

namespace xlite {

class InProcessCommunicator : public Communicator {
 public:
  // `timeout` is the last resort for waits the deadlock check cannot see
  // through (a device computing forever while its peers wait).
  explicit InProcessCommunicator(int64_t num_devices,
                                 std::chrono::milliseconds timeout = std::chrono::minutes(10));
  ~InProcessCommunicator() override;

  int64_t num_devices() const override { return static_cast<int64_t>(devices_.size()); }
  absl::StatusOr<std::shared_ptr<const std::vector<Literal>>> Exchange(
      std::string_view key, int64_t self, absl::Span<const int64_t> group, Literal value) override;
  absl::Status Send(std::string_view key, int64_t source, int64_t target, Literal value) override;
  absl::StatusOr<Literal> Recv(std::string_view key, int64_t source, int64_t target) override;
  void DeviceFinished(int64_t device, const absl::Status& status) override;

 private:
  struct Rendezvous;
  using MailboxKey = std::tuple<std::string, int64_t, int64_t>;  // key, source, target
  enum class State : uint8_t { kRunning, kBlocked, kFinished, kFailed };
  struct Device {
    State state = State::kRunning;
    std::map<std::string, int64_t, std::less<>> calls;  // exchanges made per key
    // What a blocked device waits on: a rendezvous, or a mailbox.
    std::shared_ptr<Rendezvous> rendezvous;
    MailboxKey mailbox;
    absl::Status wake_error;  // set to end the wait with an error
  };

  absl::Status CheckDevice(int64_t device) const;
  // Blocks `self` until `ready()` or its wait is failed.
  template <typename Ready>
  absl::Status WaitLocked(std::unique_lock<std::mutex>& lock, int64_t self, Ready ready);
  void FailRendezvousLocked(const std::shared_ptr<Rendezvous>& r, const absl::Status& status);
  void FailWaitLocked(int64_t device, const absl::Status& status);
  // Fails every wait that can no longer be served, and all waits when every
  // live device is blocked (nothing can make progress).
  void CheckProgressLocked();
  std::string DescribeWaitLocked(int64_t device) const;

  const std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Device> devices_;
  // Open rendezvous by "key#sequence" (several when disjoint groups share a
  // collective).
  std::map<std::string, std::vector<std::shared_ptr<Rendezvous>>> pending_;
  std::map<MailboxKey, std::deque<Literal>> mailboxes_;
  absl::Status abort_status_;  // set once a device fails
};

}  // namespace xlite

#endif  // XLITE_RUNTIME_IN_PROCESS_COMMUNICATOR_H_
