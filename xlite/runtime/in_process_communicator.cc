#include "xlite/runtime/in_process_communicator.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"

namespace xlite {

struct InProcessCommunicator::Rendezvous {
  std::string key;  // "key#sequence"
  std::vector<int64_t> group;
  std::vector<Literal> values;
  std::vector<bool> arrived;
  int64_t arrived_count = 0;
  std::shared_ptr<const std::vector<Literal>> result;  // set when complete
};

namespace {

std::string GroupStr(absl::Span<const int64_t> group) {
  return absl::StrCat("{", absl::StrJoin(group, ","), "}");
}

bool Overlaps(absl::Span<const int64_t> a, absl::Span<const int64_t> b) {
  for (int64_t x : a) {
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  }
  return false;
}

}  // namespace

InProcessCommunicator::InProcessCommunicator(int64_t num_devices, std::chrono::milliseconds timeout)
    : timeout_(timeout), devices_(static_cast<size_t>(std::max<int64_t>(num_devices, 0))) {}

InProcessCommunicator::~InProcessCommunicator() = default;

absl::Status InProcessCommunicator::CheckDevice(int64_t device) const {
  if (device < 0 || device >= num_devices()) {
    return InvalidArgument("device ", device, " is out of range for ", num_devices(), " devices");
  }
  return absl::OkStatus();
}

std::string InProcessCommunicator::DescribeWaitLocked(int64_t device) const {
  const Device& d = devices_[device];
  switch (d.state) {
    case State::kFinished:
      return absl::StrCat("device ", device, " has finished");
    case State::kFailed:
      return absl::StrCat("device ", device, " has failed");
    case State::kRunning:
      return absl::StrCat("device ", device, " is running");
    case State::kBlocked:
      break;
  }
  if (d.rendezvous != nullptr) {
    return absl::StrCat("device ", device, " waits in ", d.rendezvous->key, " with group ",
                        GroupStr(d.rendezvous->group));
  }
  return absl::StrCat("device ", device, " waits to receive ", std::get<0>(d.mailbox),
                      " from device ", std::get<1>(d.mailbox));
}

void InProcessCommunicator::FailWaitLocked(int64_t device, const absl::Status& status) {
  Device& d = devices_[device];
  if (d.state != State::kBlocked || !d.wake_error.ok()) return;
  d.wake_error = status;
  d.state = State::kRunning;
  cv_.notify_all();
}

void InProcessCommunicator::FailRendezvousLocked(const std::shared_ptr<Rendezvous>& r,
                                                 const absl::Status& status) {
  auto it = pending_.find(r->key);
  if (it != pending_.end()) {
    std::erase(it->second, r);
    if (it->second.empty()) pending_.erase(it);
  }
  for (size_t i = 0; i < r->group.size(); ++i) {
    if (r->arrived[i]) FailWaitLocked(r->group[i], status);
  }
}

void InProcessCommunicator::CheckProgressLocked() {
  auto gone = [&](int64_t device) {
    State s = devices_[device].state;
    return s == State::kFinished || s == State::kFailed;
  };
  for (int64_t d = 0; d < num_devices(); ++d) {
    Device& dev = devices_[d];
    if (dev.state != State::kBlocked) continue;
    if (dev.rendezvous != nullptr) {
      std::shared_ptr<Rendezvous> r = dev.rendezvous;
      for (size_t i = 0; i < r->group.size(); ++i) {
        int64_t member = r->group[i];
        if (r->arrived[i] || !gone(member)) continue;
        FailRendezvousLocked(
            r, absl::FailedPreconditionError(
                   absl::StrCat("collective ", r->key, " over devices ", GroupStr(r->group),
                                " cannot complete: device ", member,
                                devices_[member].state == State::kFailed ? " failed" : " finished",
                                " without joining it")));
        break;
      }
    } else {
      const auto& [key, source, target] = dev.mailbox;
      auto box = mailboxes_.find(dev.mailbox);
      if (gone(source) && (box == mailboxes_.end() || box->second.empty())) {
        FailWaitLocked(d, absl::FailedPreconditionError(absl::StrCat(
                              "device ", target, " waits to receive ", key, " from device ", source,
                              ", which ended without sending it")));
      }
    }
  }
  bool any_blocked = false;
  for (const Device& dev : devices_) {
    if (dev.state == State::kRunning) return;  // it may still unblock the others
    any_blocked |= dev.state == State::kBlocked;
  }
  if (!any_blocked) return;
  std::vector<std::string> waits;
  for (int64_t d = 0; d < num_devices(); ++d) waits.push_back(DescribeWaitLocked(d));
  absl::Status deadlock = absl::FailedPreconditionError(absl::StrCat(
      "collectives deadlock: no device can make progress (", absl::StrJoin(waits, "; "), ")"));
  for (int64_t d = 0; d < num_devices(); ++d) FailWaitLocked(d, deadlock);
}

template <typename Ready>
absl::Status InProcessCommunicator::WaitLocked(std::unique_lock<std::mutex>& lock, int64_t self,
                                               Ready ready) {
  Device& dev = devices_[self];
  dev.state = State::kBlocked;
  dev.wake_error = absl::OkStatus();
  CheckProgressLocked();
  auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (dev.state == State::kBlocked && !ready()) {
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && dev.state == State::kBlocked &&
        !ready()) {
      absl::Status late = absl::DeadlineExceededError(absl::StrCat(
          "collective wait timed out after ", timeout_.count(), " ms: ", DescribeWaitLocked(self)));
      for (int64_t d = 0; d < num_devices(); ++d) FailWaitLocked(d, late);
    }
  }
  dev.state = State::kRunning;
  dev.rendezvous = nullptr;
  absl::Status status = std::exchange(dev.wake_error, absl::OkStatus());
  return status;
}

absl::StatusOr<std::shared_ptr<const std::vector<Literal>>> InProcessCommunicator::Exchange(
    std::string_view key, int64_t self, absl::Span<const int64_t> group, Literal value) {
  XLITE_RETURN_IF_ERROR(CheckDevice(self));
  auto position = std::find(group.begin(), group.end(), self);
  if (position == group.end()) {
    return InvalidArgument("device ", self, " is not in its own group ", GroupStr(group));
  }
  for (size_t i = 0; i < group.size(); ++i) {
    XLITE_RETURN_IF_ERROR(CheckDevice(group[i]));
    if (std::find(group.begin(), group.begin() + i, group[i]) != group.begin() + i) {
      return InvalidArgument("group ", GroupStr(group), " repeats device ", group[i]);
    }
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (!abort_status_.ok()) return abort_status_;
  Device& dev = devices_[self];
  std::string id = absl::StrCat(AsAbsl(key), "#", dev.calls[std::string(key)]++);
  std::vector<std::shared_ptr<Rendezvous>>& open = pending_[id];
  std::shared_ptr<Rendezvous> r;
  for (const auto& candidate : open) {
    if (std::equal(candidate->group.begin(), candidate->group.end(), group.begin(), group.end())) {
      r = candidate;
    } else if (Overlaps(candidate->group, group)) {
      absl::Status mismatch = absl::FailedPreconditionError(
          absl::StrCat("devices disagree on the group of ", id, ": device ", self, " joins with ",
                       GroupStr(group), ", others with ", GroupStr(candidate->group)));
      std::shared_ptr<Rendezvous> failed = candidate;
      FailRendezvousLocked(failed, mismatch);
      return mismatch;
    }
  }
  if (r == nullptr) {
    r = std::make_shared<Rendezvous>();
    r->key = id;
    r->group.assign(group.begin(), group.end());
    r->values.resize(group.size());
    r->arrived.assign(group.size(), false);
    open.push_back(r);
  }
  size_t slot = static_cast<size_t>(position - group.begin());
  r->values[slot] = std::move(value);
  r->arrived[slot] = true;
  if (++r->arrived_count == static_cast<int64_t>(group.size())) {
    r->result = std::make_shared<const std::vector<Literal>>(std::move(r->values));
    std::erase(open, r);
    if (open.empty()) pending_.erase(id);
    for (int64_t member : r->group) {
      if (member == self) continue;
      devices_[member].state = State::kRunning;
    }
    cv_.notify_all();
    return r->result;
  }
  dev.rendezvous = r;
  XLITE_RETURN_IF_ERROR(WaitLocked(lock, self, [&] { return r->result != nullptr; }));
  return r->result;
}

absl::Status InProcessCommunicator::Send(std::string_view key, int64_t source, int64_t target,
                                         Literal value) {
  XLITE_RETURN_IF_ERROR(CheckDevice(source));
  XLITE_RETURN_IF_ERROR(CheckDevice(target));
  std::lock_guard<std::mutex> lock(mu_);
  if (!abort_status_.ok()) return abort_status_;
  MailboxKey box{std::string(key), source, target};
  mailboxes_[box].push_back(std::move(value));
  Device& receiver = devices_[target];
  if (receiver.state == State::kBlocked && receiver.rendezvous == nullptr &&
      receiver.mailbox == box) {
    receiver.state = State::kRunning;
    cv_.notify_all();
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> InProcessCommunicator::Recv(std::string_view key, int64_t source,
                                                    int64_t target) {
  XLITE_RETURN_IF_ERROR(CheckDevice(source));
  XLITE_RETURN_IF_ERROR(CheckDevice(target));
  std::unique_lock<std::mutex> lock(mu_);
  if (!abort_status_.ok()) return abort_status_;
  MailboxKey box{std::string(key), source, target};
  std::deque<Literal>& queue = mailboxes_[box];
  if (queue.empty()) {
    devices_[target].mailbox = box;
    XLITE_RETURN_IF_ERROR(WaitLocked(lock, target, [&] { return !queue.empty(); }));
  }
  Literal value = std::move(queue.front());
  queue.pop_front();
  return value;
}

void InProcessCommunicator::DeviceFinished(int64_t device, const absl::Status& status) {
  if (!CheckDevice(device).ok()) return;
  std::lock_guard<std::mutex> lock(mu_);
  devices_[device].state = status.ok() ? State::kFinished : State::kFailed;
  if (!status.ok() && abort_status_.ok()) {
    abort_status_ =
        absl::AbortedError(absl::StrCat("device ", device, " failed: ", status.message()));
    for (int64_t d = 0; d < num_devices(); ++d) FailWaitLocked(d, abort_status_);
  }
  CheckProgressLocked();
  cv_.notify_all();
}

}  // namespace xlite
