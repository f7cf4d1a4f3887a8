// The Communicator carries collectives between the devices of one run: a
// group exchange (every member contributes a literal and receives all
// contributions in group order) and buffered point-to-point transfers. The
// in-process implementation runs devices as threads; the MPI one (runtime/mpi)
// runs one device per rank.
#ifndef XLITE_RUNTIME_COMMUNICATOR_H_
#define XLITE_RUNTIME_COMMUNICATOR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/ir/literal.h"
#include "xlite/ir/reduction_kind.h"

namespace xlite {

// Devices are global ids in [0, num_devices()). A `key` names one collective
// of the program (e.g. "all-reduce %ar.3"); the n-th call a device makes with
// a key is matched with the n-th call of every other member with that key, so
// loops and repeated calls pair up in program order. Devices that reach
// different collectives, disagree on a group, or wait on a device that has
// finished or failed get an error, never a hang.
class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int64_t num_devices() const = 0;

  // `self` (a member of `group`) contributes `value`; returns the values of
  // every member of `group`, in group order, once all have contributed.
  // Every member must pass the same group.
  virtual absl::StatusOr<std::shared_ptr<const std::vector<Literal>>> Exchange(
      std::string_view key, int64_t self, absl::Span<const int64_t> group, Literal value) = 0;

  // Optional native forms of collectives that Exchange can also express. Each
  // returns std::nullopt when this communicator does not carry the case
  // natively, and the caller then uses Exchange; a communicator takes a case
  // only when its result is bit-identical to what Exchange gives, and every
  // member makes the same choice (it depends only on the arguments' shapes
  // and `kind`), so sequence numbers per key stay matched. The defaults carry
  // nothing.
  //
  // AllReduce: `value` (an array) reduced elementwise over `group`.
  virtual absl::StatusOr<std::optional<Literal>> AllReduce(std::string_view key, int64_t self,
                                                           absl::Span<const int64_t> group,
                                                           ReductionKind kind,
                                                           const Literal& value) {
    (void)key, (void)self, (void)group, (void)kind, (void)value;
    return std::nullopt;
  }
  // AllToAll: blocks[i] (arrays) go to member i; returns the block every
  // member sent to `self`, in group order.
  virtual absl::StatusOr<std::optional<std::vector<Literal>>> AllToAll(
      std::string_view key, int64_t self, absl::Span<const int64_t> group,
      const std::vector<Literal>& blocks) {
    (void)key, (void)self, (void)group, (void)blocks;
    return std::nullopt;
  }
  // ReduceScatter: blocks[i] of every member reduced elementwise; member i
  // receives the reduction of the members' blocks[i].
  virtual absl::StatusOr<std::optional<Literal>> ReduceScatter(std::string_view key, int64_t self,
                                                               absl::Span<const int64_t> group,
                                                               ReductionKind kind,
                                                               const std::vector<Literal>& blocks) {
    (void)key, (void)self, (void)group, (void)kind, (void)blocks;
    return std::nullopt;
  }

  // Queues `value` from `source` to `target` (does not wait for the receiver).
  virtual absl::Status Send(std::string_view key, int64_t source, int64_t target,
                            Literal value) = 0;
  // Waits for the next value `source` sent to `target` under `key`.
  virtual absl::StatusOr<Literal> Recv(std::string_view key, int64_t source, int64_t target) = 0;

  // Called once per device when its program ends: `status` is its result.
  // Peers waiting on a device that can no longer take part are woken with
  // an error (aborted when `status` is an error).
  virtual void DeviceFinished(int64_t device, const absl::Status& status) = 0;
};

}  // namespace xlite

#endif  // XLITE_RUNTIME_COMMUNICATOR_H_
