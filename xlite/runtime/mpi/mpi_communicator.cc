#include "xlite/runtime/mpi/mpi_communicator.h"

#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <list>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/runtime/array_summary.h"
#include "xlite/runtime/wire_format.h"

namespace xlite {
namespace {

using Clock = std::chrono::steady_clock;

// Every point-to-point message travels on one tag of a private duplicate of
// MPI_COMM_WORLD, so messages from one peer arrive in the order sent (MPI's
// non-overtaking rule): a peer's "finished" notice never overtakes its data.
constexpr int kTag = 7;

enum class Kind : uint64_t {
  kTransfer = 1,  // Send/Recv data
  kJoin,          // "I am creating the communicator of this group"
  kFinished,      // the device ended ok; payload: its collective counts
  kFailed,        // the device failed; payload: the error
  kResult,        // a device's result for rank 0
  kVerdict,       // rank 0's outcome of the run
};

std::string GroupStr(absl::Span<const int64_t> group) {
  return absl::StrCat("{", absl::StrJoin(group, ","), "}");
}

absl::Status MpiError(int code, std::string_view what) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return absl::InternalError(absl::StrCat(AsAbsl(what), " failed: ", std::string(text, length)));
}

#define XLITE_MPI(call)                                                    \
  do {                                                                     \
    int xlite_mpi_rc = (call);                                             \
    if (xlite_mpi_rc != MPI_SUCCESS) return MpiError(xlite_mpi_rc, #call); \
  } while (false)

// The message printed when mpirun stops this rank because another rank
// ended abnormally or the job was interrupted (OpenMPI sends SIGTERM to the
// ranks still running).
char g_terminated_message[160];

void OnTerminate(int signal_number) {
  ssize_t ignored = write(STDERR_FILENO, g_terminated_message, strlen(g_terminated_message));
  (void)ignored;
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

// XLITE_MPI_FAULT=kill:R|exit:R|stall:R makes rank R die (SIGKILL), exit
// without MPI_Finalize, or stop responding at its first communication: the
// failure tests use it to check that the other ranks end with an error.
void MaybeInjectFault(int rank) {
  static bool checked = false;
  if (checked) return;
  checked = true;
  const char* spec = std::getenv("XLITE_MPI_FAULT");
  if (spec == nullptr) return;
  std::string_view text(spec);
  size_t colon = text.find(':');
  int target = -1;
  if (colon == std::string_view::npos ||
      !absl::SimpleAtoi(AsAbsl(text.substr(colon + 1)), &target) || target != rank) {
    return;
  }
  std::string_view what = text.substr(0, colon);
  std::fprintf(stderr, "xlite: rank %d (pid %d): XLITE_MPI_FAULT=%s\n", rank,
               static_cast<int>(getpid()), spec);
  std::fflush(stderr);
  if (what == "kill") ::raise(SIGKILL);
  if (what == "exit") ::_exit(3);
  if (what == "stall") {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
}

// The MPI type and op that reduce `type` with `kind` exactly (independent
// of the combining order): integers and pred only, since a floating-point
// sum depends on the order MPI picks. Integer sums and products use the
// unsigned type of the same width, which wraps as the evaluator does.
std::optional<std::pair<MPI_Datatype, MPI_Op>> ExactReduction(PrimitiveType type,
                                                              ReductionKind kind) {
  using PT = PrimitiveType;
  MPI_Datatype unsigned_type, signed_type;
  switch (type) {
    case PT::PRED:
      if (kind == ReductionKind::kAnd || kind == ReductionKind::kMinimum) {
        return std::make_pair(MPI_UINT8_T, MPI_BAND);
      }
      if (kind == ReductionKind::kOr || kind == ReductionKind::kMaximum) {
        return std::make_pair(MPI_UINT8_T, MPI_BOR);
      }
      if (kind == ReductionKind::kXor) return std::make_pair(MPI_UINT8_T, MPI_BXOR);
      return std::nullopt;
    case PT::S8:
    case PT::U8:
      unsigned_type = MPI_UINT8_T, signed_type = MPI_INT8_T;
      break;
    case PT::S16:
    case PT::U16:
      unsigned_type = MPI_UINT16_T, signed_type = MPI_INT16_T;
      break;
    case PT::S32:
    case PT::U32:
      unsigned_type = MPI_UINT32_T, signed_type = MPI_INT32_T;
      break;
    case PT::S64:
    case PT::U64:
      unsigned_type = MPI_UINT64_T, signed_type = MPI_INT64_T;
      break;
    default:
      return std::nullopt;
  }
  MPI_Datatype ordered = IsSignedInt(type) ? signed_type : unsigned_type;
  switch (kind) {
    case ReductionKind::kAdd:
      return std::make_pair(unsigned_type, MPI_SUM);
    case ReductionKind::kMultiply:
      return std::make_pair(unsigned_type, MPI_PROD);
    case ReductionKind::kMaximum:
      return std::make_pair(ordered, MPI_MAX);
    case ReductionKind::kMinimum:
      return std::make_pair(ordered, MPI_MIN);
    case ReductionKind::kAnd:
      return std::make_pair(unsigned_type, MPI_BAND);
    case ReductionKind::kOr:
      return std::make_pair(unsigned_type, MPI_BOR);
    case ReductionKind::kXor:
      return std::make_pair(unsigned_type, MPI_BXOR);
  }
  return std::nullopt;
}

absl::StatusOr<int> MpiCount(size_t bytes) {
  if (bytes > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return Unimplemented("MPI messages over 2 GiB (", bytes, " bytes)");
  }
  return static_cast<int>(bytes);
}

// One array block per member, all of one shape: what the native
// all-to-all and reduce-scatter move.
bool SameArrayBlocks(const std::vector<Literal>& blocks, absl::Span<const int64_t> group) {
  if (blocks.size() != group.size() || blocks.empty()) return false;
  for (const Literal& b : blocks) {
    if (!b.shape().IsArray() || !b.shape().SameElementTypeAndDimensions(blocks[0].shape()))
      return false;
  }
  return true;
}

std::string_view View(const Literal& l) {
  absl::Span<const uint8_t> raw = l.raw_data();
  return std::string_view(reinterpret_cast<const char*>(raw.data()), raw.size());
}

}  // namespace

struct MpiCommunicator::State {
  struct Peer {
    bool finished = false, failed = false;
    std::string error;                                  // when failed
    std::map<std::string, int64_t, std::less<>> calls;  // when finished
  };
  struct PendingSend {
    MPI_Request request;
    std::string bytes;
  };
  // One collective in progress: what Check and the error messages need.
  struct Collective {
    std::string key;  // "key#sequence"
    std::string_view base_key;
    int64_t sequence;
    absl::Span<const int64_t> group;
  };

  int rank = 0, size = 1;
  std::chrono::milliseconds timeout{60000};
  MPI_Comm control = MPI_COMM_NULL;
  std::map<std::string, int64_t, std::less<>> calls;  // collectives made per key
  std::map<std::tuple<Kind, std::string, int>, std::deque<std::string>> inbox;
  std::vector<Peer> peers;
  std::list<PendingSend> sends;
  std::map<std::vector<int64_t>, MPI_Comm> group_comms;
  bool dirty = false;  // an MPI request was abandoned
  bool finished = false;

  // Receives every message that has arrived and retires completed sends.
  absl::Status Pump();
  // Polls until `done` (which may fail) is true, `check` fails, or the
  // deadline passes; `describe` names what is awaited.
  absl::Status Poll(const std::function<absl::StatusOr<bool>()>& done,
                    const std::function<absl::Status()>& check,
                    const std::function<std::string()>& describe);
  // Waits for `request`; marks the state dirty when it is abandoned.
  absl::Status WaitRequest(MPI_Request& request, const Collective& c);
  absl::Status PostSend(int target, Kind kind, std::string_view key, std::string_view payload);
  // Waits for the next message of `kind` and `key` from `source`.
  absl::StatusOr<std::string> Receive(Kind kind, const std::string& key, int source,
                                      const std::function<absl::Status()>& check,
                                      const std::function<std::string()>& describe);
  // An error when a member of the collective can no longer join it.
  absl::Status CheckCollective(const Collective& c) const;
  absl::Status CheckMembers(absl::Span<const int64_t> group) const;
  absl::StatusOr<MPI_Comm> GroupComm(absl::Span<const int64_t> group);
  absl::Status CheckGroup(int64_t self, absl::Span<const int64_t> group) const;
  Collective Begin(std::string_view key, absl::Span<const int64_t> group);
  // The first steps of every collective: checks, sequence number, group
  // communicator.
  absl::StatusOr<std::pair<Collective, MPI_Comm>> StartCollective(std::string_view key,
                                                                  int64_t self,
                                                                  absl::Span<const int64_t> group);
  // Checks a transfer of this rank (`self`) with `peer`.
  absl::Status StartTransfer(int64_t self, int64_t peer, std::string_view what);
  // Every member says which collective it is in and how many bytes it
  // brings; a member elsewhere is an error, never a silent mismatch.
  absl::StatusOr<std::vector<uint64_t>> Agree(MPI_Comm comm, const Collective& c,
                                              std::string_view signature, uint64_t bytes);
};

absl::Status MpiCommunicator::State::Pump() {
  for (;;) {
    int flag = 0;
    MPI_Message message;
    MPI_Status status;
    XLITE_MPI(MPI_Improbe(MPI_ANY_SOURCE, kTag, control, &flag, &message, &status));
    if (!flag) break;
    int count = 0;
    XLITE_MPI(MPI_Get_count(&status, MPI_BYTE, &count));
    std::string bytes(static_cast<size_t>(count), '\0');
    XLITE_MPI(MPI_Mrecv(bytes.data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE));
    int source = status.MPI_SOURCE;
    runtime::WireReader reader(bytes);
    XLITE_ASSIGN_OR_RETURN(uint64_t kind, reader.GetU64());
    XLITE_ASSIGN_OR_RETURN(std::string key, reader.GetString());
    XLITE_ASSIGN_OR_RETURN(std::string payload, reader.GetString());
    Peer& peer = peers[source];
    if (static_cast<Kind>(kind) == Kind::kFinished) {
      runtime::WireReader counts(payload);
      XLITE_ASSIGN_OR_RETURN(uint64_t n, counts.GetU64());
      for (uint64_t i = 0; i < n; ++i) {
        XLITE_ASSIGN_OR_RETURN(std::string k, counts.GetString());
        XLITE_ASSIGN_OR_RETURN(uint64_t c, counts.GetU64());
        peer.calls[k] = static_cast<int64_t>(c);
      }
      peer.finished = true;
    } else if (static_cast<Kind>(kind) == Kind::kFailed) {
      peer.failed = true;
      peer.error = payload;
    } else {
      inbox[{static_cast<Kind>(kind), key, source}].push_back(std::move(payload));
    }
  }
  for (auto it = sends.begin(); it != sends.end();) {
    int flag = 0;
    XLITE_MPI(MPI_Test(&it->request, &flag, MPI_STATUS_IGNORE));
    it = flag ? sends.erase(it) : std::next(it);
  }
  return absl::OkStatus();
}

absl::Status MpiCommunicator::State::Poll(const std::function<absl::StatusOr<bool>()>& done,
                                          const std::function<absl::Status()>& check,
                                          const std::function<std::string()>& describe) {
  Clock::time_point start = Clock::now();
  Clock::time_point deadline = start + timeout;
  for (;;) {
    XLITE_RETURN_IF_ERROR(Pump());
    XLITE_ASSIGN_OR_RETURN(bool ready, done());
    if (ready) return absl::OkStatus();
    XLITE_RETURN_IF_ERROR(check());
    Clock::time_point now = Clock::now();
    if (now >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat(describe(), " did not complete within the collective timeout (",
                       timeout.count() / 1000.0, " s); a peer rank is stuck or gone"));
    }
    // MPI moves a large message in fragments, each needing a call like
    // MPI_Test on both sides, so a waiter that gives up its core slows the
    // transfer itself: spin for a millisecond, then spin yielding the core
    // to other ranks, and only a wait that lasts sleeps, briefly, so idle
    // ranks leave the cores to the busy ones.
    Clock::duration waited = now - start;
    if (waited < std::chrono::milliseconds(1)) continue;
    if (waited < std::chrono::milliseconds(100)) {
      sched_yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
}

absl::Status MpiCommunicator::State::CheckMembers(absl::Span<const int64_t> group) const {
  for (int64_t member : group) {
    if (member != rank && peers[member].failed) {
      return absl::AbortedError(absl::StrCat("device ", member, " failed: ", peers[member].error));
    }
  }
  return absl::OkStatus();
}

absl::Status MpiCommunicator::State::CheckCollective(const Collective& c) const {
  XLITE_RETURN_IF_ERROR(CheckMembers(c.group));
  for (int64_t member : c.group) {
    if (member == rank || !peers[member].finished) continue;
    auto it = peers[member].calls.find(c.base_key);
    int64_t made = it == peers[member].calls.end() ? 0 : it->second;
    if (made <= c.sequence) {
      return absl::FailedPreconditionError(
          absl::StrCat("collective ", c.key, " over devices ", GroupStr(c.group),
                       " cannot complete: device ", member, " finished without joining it"));
    }
  }
  return absl::OkStatus();
}

absl::Status MpiCommunicator::State::WaitRequest(MPI_Request& request, const Collective& c) {
  absl::Status status = Poll(
      [&]() -> absl::StatusOr<bool> {
        int flag = 0;
        XLITE_MPI(MPI_Test(&request, &flag, MPI_STATUS_IGNORE));
        return flag != 0;
      },
      [&] { return CheckCollective(c); },
      [&] { return absl::StrCat("collective ", c.key, " over devices ", GroupStr(c.group)); });
  if (!status.ok()) dirty = true;  // the request stays posted; only MPI_Abort ends it
  return status;
}

absl::Status MpiCommunicator::State::PostSend(int target, Kind kind, std::string_view key,
                                              std::string_view payload) {
  runtime::WireWriter writer;
  writer.PutU64(static_cast<uint64_t>(kind));
  writer.PutString(key);
  writer.PutString(payload);
  sends.push_back({MPI_REQUEST_NULL, std::move(writer.bytes())});
  PendingSend& send = sends.back();
  XLITE_ASSIGN_OR_RETURN(int count, MpiCount(send.bytes.size()));
  XLITE_MPI(MPI_Isend(send.bytes.data(), count, MPI_BYTE, target, kTag, control, &send.request));
  return absl::OkStatus();
}

absl::StatusOr<std::string> MpiCommunicator::State::Receive(
    Kind kind, const std::string& key, int source, const std::function<absl::Status()>& check,
    const std::function<std::string()>& describe) {
  std::tuple<Kind, std::string, int> box{kind, key, source};
  XLITE_RETURN_IF_ERROR(Poll(
      [&]() -> absl::StatusOr<bool> {
        auto it = inbox.find(box);
        return it != inbox.end() && !it->second.empty();
      },
      check, describe));
  std::deque<std::string>& queue = inbox[box];
  std::string payload = std::move(queue.front());
  queue.pop_front();
  return payload;
}

absl::Status MpiCommunicator::State::CheckGroup(int64_t self,
                                                absl::Span<const int64_t> group) const {
  if (self != rank) {
    return InvalidArgument("rank ", rank, " cannot act for device ", self,
                           " (each rank runs its own device)");
  }
  if (std::find(group.begin(), group.end(), self) == group.end()) {
    return InvalidArgument("device ", self, " is not in its own group ", GroupStr(group));
  }
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] < 0 || group[i] >= size) {
      return InvalidArgument("device ", group[i], " is out of range for ", size, " ranks");
    }
    if (std::find(group.begin(), group.begin() + i, group[i]) != group.begin() + i) {
      return InvalidArgument("group ", GroupStr(group), " repeats device ", group[i]);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<MPI_Comm> MpiCommunicator::State::GroupComm(absl::Span<const int64_t> group) {
  std::vector<int64_t> members(group.begin(), group.end());
  if (auto it = group_comms.find(members); it != group_comms.end()) return it->second;
  // MPI_Comm_create_group blocks until every member calls it, so first make
  // sure (with a deadline) that every member is here to create it too.
  std::string key = absl::StrCat("group ", GroupStr(group));
  for (int64_t member : members) {
    if (member != rank) XLITE_RETURN_IF_ERROR(PostSend(member, Kind::kJoin, key, ""));
  }
  for (int64_t member : members) {
    if (member == rank) continue;
    XLITE_RETURN_IF_ERROR(Receive(
                              Kind::kJoin, key, static_cast<int>(member),
                              [&]() -> absl::Status {
                                XLITE_RETURN_IF_ERROR(CheckMembers(group));
                                if (peers[member].finished) {
                                  return absl::FailedPreconditionError(absl::StrCat(
                                      "devices ", GroupStr(group), " cannot communicate: device ",
                                      member, " finished before its first collective with them"));
                                }
                                return absl::OkStatus();
                              },
                              [&] { return absl::StrCat("setting up devices ", GroupStr(group)); })
                              .status());
  }
  std::vector<int> ranks(members.begin(), members.end());
  MPI_Group world_group, sub_group;
  MPI_Comm comm;
  XLITE_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  XLITE_MPI(MPI_Group_incl(world_group, static_cast<int>(ranks.size()), ranks.data(), &sub_group));
  int tag = static_cast<int>(runtime::Fnv1a64(key) % 30000) + 100;
  XLITE_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, sub_group, tag, &comm));
  MPI_Group_free(&sub_group);
  MPI_Group_free(&world_group);
  XLITE_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  group_comms.emplace(std::move(members), comm);
  return comm;
}

MpiCommunicator::State::Collective MpiCommunicator::State::Begin(std::string_view key,
                                                                 absl::Span<const int64_t> group) {
  auto it = calls.find(key);
  if (it == calls.end()) it = calls.emplace(std::string(key), 0).first;
  int64_t sequence = it->second++;
  return Collective{absl::StrCat(AsAbsl(key), "#", sequence), it->first, sequence, group};
}

absl::StatusOr<std::pair<MpiCommunicator::State::Collective, MPI_Comm>>
MpiCommunicator::State::StartCollective(std::string_view key, int64_t self,
                                        absl::Span<const int64_t> group) {
  MaybeInjectFault(rank);
  XLITE_RETURN_IF_ERROR(CheckGroup(self, group));
  Collective c = Begin(key, group);
  XLITE_ASSIGN_OR_RETURN(MPI_Comm comm, GroupComm(group));
  return std::make_pair(std::move(c), comm);
}

absl::Status MpiCommunicator::State::StartTransfer(int64_t self, int64_t peer,
                                                   std::string_view what) {
  MaybeInjectFault(rank);
  if (self != rank) {
    return InvalidArgument("rank ", rank, " cannot ", AsAbsl(what), " for device ", self);
  }
  if (peer < 0 || peer >= size) {
    return InvalidArgument("device ", peer, " is out of range for ", size, " ranks");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<uint64_t>> MpiCommunicator::State::Agree(MPI_Comm comm,
                                                                    const Collective& c,
                                                                    std::string_view signature,
                                                                    uint64_t bytes) {
  uint64_t mine[2] = {
      runtime::Fnv1a64(absl::StrCat(c.key, "|", GroupStr(c.group), "|", AsAbsl(signature))), bytes};
  std::vector<uint64_t> all(2 * c.group.size());
  MPI_Request request;
  XLITE_MPI(MPI_Iallgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, comm, &request));
  XLITE_RETURN_IF_ERROR(WaitRequest(request, c));
  std::vector<uint64_t> sizes;
  for (size_t m = 0; m < c.group.size(); ++m) {
    if (all[2 * m] != mine[0]) {
      return absl::FailedPreconditionError(absl::StrCat(
          "devices disagree on collective ", c.key, " over devices ", GroupStr(c.group),
          ": device ", c.group[m], " is in a different collective or passes a different ",
          "shape (the devices' programs diverged)"));
    }
    sizes.push_back(all[2 * m + 1]);
  }
  return sizes;
}

// ------------------------------------------------------------ public

MpiCommunicator::MpiCommunicator(std::unique_ptr<State> state) : state_(std::move(state)) {}

MpiCommunicator::~MpiCommunicator() {
  if (!state_->finished) Finish(0);
}

absl::StatusOr<std::unique_ptr<MpiCommunicator>> MpiCommunicator::Create(
    std::chrono::milliseconds timeout) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return absl::FailedPreconditionError("MPI is already started in this process");
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    return absl::UnavailableError("MPI_Init_thread failed");
  }
  auto state = std::make_unique<State>();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &state->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &state->size);
  XLITE_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &state->control));
  state->timeout = timeout;
  state->peers.resize(state->size);
  std::snprintf(g_terminated_message, sizeof(g_terminated_message),
                "xlite: rank %d: stopped by mpirun: another rank ended abnormally or the "
                "job was interrupted (see mpirun's message)\n",
                state->rank);
  ::signal(SIGTERM, OnTerminate);
  return std::unique_ptr<MpiCommunicator>(new MpiCommunicator(std::move(state)));
}

int64_t MpiCommunicator::rank() const { return state_->rank; }
int64_t MpiCommunicator::num_devices() const { return state_->size; }

absl::StatusOr<std::shared_ptr<const std::vector<Literal>>> MpiCommunicator::Exchange(
    std::string_view key, int64_t self, absl::Span<const int64_t> group, Literal value) {
  XLITE_ASSIGN_OR_RETURN(auto started, state_->StartCollective(key, self, group));
  const auto& [c, comm] = started;
  runtime::WireWriter writer;
  writer.PutLiteral(value);
  std::string& mine = writer.bytes();
  XLITE_ASSIGN_OR_RETURN(std::vector<uint64_t> sizes,
                         state_->Agree(comm, c, "exchange", mine.size()));
  std::vector<int> counts, offsets;
  size_t total = 0;
  for (uint64_t s : sizes) {
    XLITE_ASSIGN_OR_RETURN(int count, MpiCount(s));
    XLITE_ASSIGN_OR_RETURN(int offset, MpiCount(total));
    counts.push_back(count);
    offsets.push_back(offset);
    total += s;
  }
  XLITE_RETURN_IF_ERROR(MpiCount(total).status());
  std::string all(total, '\0');
  MPI_Request request;
  XLITE_MPI(MPI_Iallgatherv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, all.data(),
                            counts.data(), offsets.data(), MPI_BYTE, comm, &request));
  XLITE_RETURN_IF_ERROR(state_->WaitRequest(request, c));
  auto values = std::make_shared<std::vector<Literal>>();
  for (size_t m = 0; m < group.size(); ++m) {
    runtime::WireReader reader(std::string_view(all).substr(offsets[m], counts[m]));
    XLITE_ASSIGN_OR_RETURN(Literal v, reader.GetLiteral());
    values->push_back(std::move(v));
  }
  return std::shared_ptr<const std::vector<Literal>>(std::move(values));
}

absl::StatusOr<std::optional<Literal>> MpiCommunicator::AllReduce(std::string_view key,
                                                                  int64_t self,
                                                                  absl::Span<const int64_t> group,
                                                                  ReductionKind kind,
                                                                  const Literal& value) {
  std::optional<std::pair<MPI_Datatype, MPI_Op>> exact =
      ExactReduction(value.shape().element_type(), kind);
  if (!exact || !value.shape().IsArray()) return std::nullopt;
  XLITE_ASSIGN_OR_RETURN(auto started, state_->StartCollective(key, self, group));
  const auto& [c, comm] = started;
  std::string signature =
      absl::StrCat("all-reduce ", static_cast<int>(kind), " ", value.shape().ToString(false));
  XLITE_RETURN_IF_ERROR(state_->Agree(comm, c, signature, value.raw_data().size()).status());
  XLITE_ASSIGN_OR_RETURN(int count, MpiCount(value.element_count()));
  Literal result(value.shape());
  MPI_Request request;
  XLITE_MPI(MPI_Iallreduce(value.raw_data().data(), result.mutable_raw_data().data(), count,
                           exact->first, exact->second, comm, &request));
  XLITE_RETURN_IF_ERROR(state_->WaitRequest(request, c));
  return std::optional<Literal>(std::move(result));
}

absl::StatusOr<std::optional<std::vector<Literal>>> MpiCommunicator::AllToAll(
    std::string_view key, int64_t self, absl::Span<const int64_t> group,
    const std::vector<Literal>& blocks) {
  if (!SameArrayBlocks(blocks, group)) return std::nullopt;
  const Shape& shape = blocks[0].shape();
  XLITE_ASSIGN_OR_RETURN(auto started, state_->StartCollective(key, self, group));
  const auto& [c, comm] = started;
  size_t block_bytes = blocks[0].raw_data().size();
  XLITE_RETURN_IF_ERROR(
      state_->Agree(comm, c, absl::StrCat("all-to-all ", shape.ToString(false)), block_bytes)
          .status());
  XLITE_ASSIGN_OR_RETURN(int count, MpiCount(block_bytes));
  XLITE_RETURN_IF_ERROR(MpiCount(block_bytes * blocks.size()).status());
  std::string send, receive(block_bytes * blocks.size(), '\0');
  for (const Literal& b : blocks) send.append(View(b));
  MPI_Request request;
  XLITE_MPI(
      MPI_Ialltoall(send.data(), count, MPI_BYTE, receive.data(), count, MPI_BYTE, comm, &request));
  XLITE_RETURN_IF_ERROR(state_->WaitRequest(request, c));
  std::vector<Literal> out;
  for (size_t m = 0; m < blocks.size(); ++m) {
    Literal block(shape);
    if (block_bytes > 0) {
      std::memcpy(block.mutable_raw_data().data(), receive.data() + m * block_bytes, block_bytes);
    }
    out.push_back(std::move(block));
  }
  return std::optional<std::vector<Literal>>(std::move(out));
}

absl::StatusOr<std::optional<Literal>> MpiCommunicator::ReduceScatter(
    std::string_view key, int64_t self, absl::Span<const int64_t> group, ReductionKind kind,
    const std::vector<Literal>& blocks) {
  if (!SameArrayBlocks(blocks, group)) return std::nullopt;
  const Shape& shape = blocks[0].shape();
  std::optional<std::pair<MPI_Datatype, MPI_Op>> exact = ExactReduction(shape.element_type(), kind);
  if (!exact) return std::nullopt;
  XLITE_ASSIGN_OR_RETURN(auto started, state_->StartCollective(key, self, group));
  const auto& [c, comm] = started;
  std::string signature =
      absl::StrCat("reduce-scatter ", static_cast<int>(kind), " ", shape.ToString(false));
  size_t block_bytes = blocks[0].raw_data().size();
  XLITE_RETURN_IF_ERROR(state_->Agree(comm, c, signature, block_bytes).status());
  XLITE_ASSIGN_OR_RETURN(int count, MpiCount(blocks[0].element_count()));
  XLITE_RETURN_IF_ERROR(MpiCount(block_bytes * blocks.size()).status());
  std::string send;
  for (const Literal& b : blocks) send.append(View(b));
  Literal result(shape);
  MPI_Request request;
  XLITE_MPI(MPI_Ireduce_scatter_block(send.data(), result.mutable_raw_data().data(), count,
                                      exact->first, exact->second, comm, &request));
  XLITE_RETURN_IF_ERROR(state_->WaitRequest(request, c));
  return std::optional<Literal>(std::move(result));
}

absl::Status MpiCommunicator::Send(std::string_view key, int64_t source, int64_t target,
                                   Literal value) {
  XLITE_RETURN_IF_ERROR(state_->StartTransfer(source, target, "send"));
  runtime::WireWriter writer;
  writer.PutLiteral(value);
  return state_->PostSend(static_cast<int>(target), Kind::kTransfer, key, writer.bytes());
}

absl::StatusOr<Literal> MpiCommunicator::Recv(std::string_view key, int64_t source,
                                              int64_t target) {
  XLITE_RETURN_IF_ERROR(state_->StartTransfer(target, source, "receive"));
  const int64_t members[] = {source};
  XLITE_ASSIGN_OR_RETURN(
      std::string payload,
      state_->Receive(
          Kind::kTransfer, std::string(key), static_cast<int>(source),
          [&]() -> absl::Status {
            XLITE_RETURN_IF_ERROR(state_->CheckMembers(members));
            // Messages from one peer arrive in order, so once its "finished"
            // notice is in, nothing it sent is still on the way.
            if (state_->peers[source].finished) {
              return absl::FailedPreconditionError(
                  absl::StrCat("device ", target, " waits to receive ", AsAbsl(key),
                               " from device ", source, ", which ended without sending it"));
            }
            return absl::OkStatus();
          },
          [&] { return absl::StrCat("receiving ", AsAbsl(key), " from device ", source); }));
  runtime::WireReader reader(payload);
  return reader.GetLiteral();
}

void MpiCommunicator::DeviceFinished(int64_t device, const absl::Status& status) {
  if (device != state_->rank) return;
  std::string payload;
  Kind kind = Kind::kFinished;
  if (status.ok()) {
    runtime::WireWriter writer;
    writer.PutU64(state_->calls.size());
    for (const auto& [key, count] : state_->calls) {
      writer.PutString(key);
      writer.PutU64(static_cast<uint64_t>(count));
    }
    payload = std::move(writer.bytes());
  } else {
    kind = Kind::kFailed;
    payload = std::string(status.message());
  }
  for (int peer = 0; peer < state_->size; ++peer) {
    if (peer == state_->rank) continue;
    // A failed post leaves the peer to its deadline, which still ends it.
    absl::Status posted = state_->PostSend(peer, kind, "", payload);
    (void)posted;
  }
}

absl::StatusOr<std::vector<absl::StatusOr<Literal>>> MpiCommunicator::GatherResults(
    absl::StatusOr<Literal> mine) {
  State& s = *state_;
  auto no_check = [] { return absl::OkStatus(); };
  if (s.rank != 0) {
    runtime::WireWriter writer;
    writer.PutU64(mine.ok() ? 0 : static_cast<uint64_t>(mine.status().code()));
    if (mine.ok()) {
      writer.PutLiteral(*mine);
    } else {
      writer.PutString(std::string(mine.status().message()));
    }
    XLITE_RETURN_IF_ERROR(s.PostSend(0, Kind::kResult, "", writer.bytes()));
    XLITE_ASSIGN_OR_RETURN(std::string verdict, s.Receive(Kind::kVerdict, "", 0, no_check, [] {
      return std::string("waiting for rank 0's verdict");
    }));
    if (verdict != "ok") {
      return absl::AbortedError("the run failed; rank 0 reports the cause");
    }
    return std::vector<absl::StatusOr<Literal>>();
  }
  std::vector<absl::StatusOr<Literal>> all;
  all.push_back(std::move(mine));
  bool ok = all[0].ok();
  for (int peer = 1; peer < s.size; ++peer) {
    XLITE_ASSIGN_OR_RETURN(std::string payload, s.Receive(Kind::kResult, "", peer, no_check, [&] {
      return absl::StrCat("collecting the result of device ", peer);
    }));
    runtime::WireReader reader(payload);
    XLITE_ASSIGN_OR_RETURN(uint64_t code, reader.GetU64());
    if (code == 0) {
      XLITE_ASSIGN_OR_RETURN(Literal result, reader.GetLiteral());
      all.push_back(std::move(result));
    } else {
      XLITE_ASSIGN_OR_RETURN(std::string message, reader.GetString());
      all.push_back(absl::Status(static_cast<absl::StatusCode>(code), message));
      ok = false;
    }
  }
  for (int peer = 1; peer < s.size; ++peer) {
    XLITE_RETURN_IF_ERROR(s.PostSend(peer, Kind::kVerdict, "", ok ? "ok" : "failed"));
  }
  return all;
}

int MpiCommunicator::Finish(int exit_code) {
  State& s = *state_;
  if (s.finished) return exit_code;
  s.finished = true;
  if (s.dirty) {
    Abort(
        "ending every rank: a collective of this rank was left incomplete, and only "
        "MPI_Abort can end it");
  }
  // Every rank keeps receiving until its own sends are delivered, then all
  // meet in a barrier (still receiving), so no send is left unmatched.
  absl::Status wound_down = s.Poll([&]() -> absl::StatusOr<bool> { return s.sends.empty(); },
                                   [] { return absl::OkStatus(); },
                                   [] { return std::string("delivering the last messages"); });
  if (wound_down.ok()) {
    MPI_Request barrier;
    if (MPI_Ibarrier(s.control, &barrier) != MPI_SUCCESS) {
      wound_down = absl::InternalError("MPI_Ibarrier failed");
    } else {
      wound_down = s.Poll(
          [&]() -> absl::StatusOr<bool> {
            int flag = 0;
            XLITE_MPI(MPI_Test(&barrier, &flag, MPI_STATUS_IGNORE));
            return flag != 0;
          },
          [] { return absl::OkStatus(); },
          [] { return std::string("waiting for every rank to finish"); });
    }
  }
  if (!wound_down.ok()) Abort(std::string(wound_down.message()));
  for (auto& [group, comm] : s.group_comms) MPI_Comm_free(&comm);
  MPI_Comm_free(&s.control);
  MPI_Finalize();
  return exit_code;
}

void MpiCommunicator::Abort(std::string_view message) {
  std::fflush(stdout);
  std::fprintf(stderr, "xlite: rank %d: %.*s\n", state_->rank, static_cast<int>(message.size()),
               message.data());
  std::fflush(stderr);
  state_->finished = true;
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

}  // namespace xlite
