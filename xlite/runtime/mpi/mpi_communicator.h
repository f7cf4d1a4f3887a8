// The Communicator over OpenMPI: one device per rank (device d is rank d of
// MPI_COMM_WORLD). Exchanges travel as MPI_Iallgatherv, exact integer
// reductions as MPI_Iallreduce / MPI_Ireduce_scatter_block, all-to-all as
// MPI_Ialltoall and transfers as point-to-point messages; every wait polls
// against a deadline, so a dead or diverged peer ends the run with an error.
// This header does not include mpi.h: only mpi_*.cc files see MPI.
#ifndef XLITE_RUNTIME_MPI_MPI_COMMUNICATOR_H_
#define XLITE_RUNTIME_MPI_MPI_COMMUNICATOR_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "xlite/runtime/communicator.h"

namespace xlite {

class MpiCommunicator : public Communicator {
 public:
  // Starts MPI (once per process). `timeout` bounds every wait: a
  // collective, a receive, and the final gathering of results.
  static absl::StatusOr<std::unique_ptr<MpiCommunicator>> Create(std::chrono::milliseconds timeout);
  ~MpiCommunicator() override;

  // This process's rank, which is the device it runs.
  int64_t rank() const;
  int64_t num_devices() const override;

  absl::StatusOr<std::shared_ptr<const std::vector<Literal>>> Exchange(
      std::string_view key, int64_t self, absl::Span<const int64_t> group, Literal value) override;
  absl::StatusOr<std::optional<Literal>> AllReduce(std::string_view key, int64_t self,
                                                   absl::Span<const int64_t> group,
                                                   ReductionKind kind,
                                                   const Literal& value) override;
  absl::StatusOr<std::optional<std::vector<Literal>>> AllToAll(
      std::string_view key, int64_t self, absl::Span<const int64_t> group,
      const std::vector<Literal>& blocks) override;
  absl::StatusOr<std::optional<Literal>> ReduceScatter(std::string_view key, int64_t self,
                                                       absl::Span<const int64_t> group,
                                                       ReductionKind kind,
                                                       const std::vector<Literal>& blocks) override;
  absl::Status Send(std::string_view key, int64_t source, int64_t target, Literal value) override;
  absl::StatusOr<Literal> Recv(std::string_view key, int64_t source, int64_t target) override;
  // Tells every peer that this rank's device ended (and how), so that a peer
  // waiting on it fails at once instead of at its deadline.
  void DeviceFinished(int64_t device, const absl::Status& status) override;

  // After DeviceFinished: every rank's result reaches rank 0, which gets
  // them in rank order. Other ranks get an empty vector when rank 0 found
  // every device ok, else an Aborted error (rank 0 reports the cause).
  // DeadlineExceeded when a peer does not report in time.
  absl::StatusOr<std::vector<absl::StatusOr<Literal>>> GatherResults(absl::StatusOr<Literal> mine);

  // Ends MPI and returns `exit_code`: waits for this rank's messages to be
  // delivered, then MPI_Finalize. When an MPI operation was left incomplete
  // (a timeout) or the peers do not wind down in time, MPI_Abort is the only
  // way out, and it ends every rank with `exit_code` (non-zero).
  int Finish(int exit_code);

  // Prints "xlite: rank R: MESSAGE" and ends every rank (MPI_Abort).
  [[noreturn]] void Abort(std::string_view message);

  struct State;  // MPI handles and message queues (mpi_communicator.cc)

 private:
  explicit MpiCommunicator(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace xlite

#endif  // XLITE_RUNTIME_MPI_MPI_COMMUNICATOR_H_
