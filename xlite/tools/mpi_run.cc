#include "xlite/tools/mpi_run.h"

#include <chrono>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xlite/base/status.h"
#include "xlite/eval/multi_device.h"
#include "xlite/runtime/communicator.h"
#ifdef XLITE_HAVE_MPI
#include "xlite/runtime/mpi/mpi_communicator.h"
#endif

namespace xlite::tools {

MpiRank::MpiRank(std::unique_ptr<MpiCommunicator, CommunicatorDeleter> communicator)
    : communicator_(std::move(communicator)) {}

MpiRank::~MpiRank() = default;

absl::Status MpiRank::CheckDeviceCount(const HloModule& module) const {
  int64_t replicas = module.config().replica_count;
  int64_t partitions = module.config().num_partitions;
  if (replicas * partitions != size()) {
    return InvalidArgument("module ", module.name(), " runs on ", replicas * partitions,
                           " devices (replica_count ", replicas, " x num_partitions ", partitions,
                           ") but this mpirun job has ", size(), size() == 1 ? " rank" : " ranks",
                           "; start it with mpirun -np ", replicas * partitions);
  }
  return absl::OkStatus();
}

#ifdef XLITE_HAVE_MPI

void MpiRank::CommunicatorDeleter::operator()(MpiCommunicator* communicator) const {
  delete communicator;
}

absl::StatusOr<std::unique_ptr<MpiRank>> MpiRank::Start(double timeout_seconds) {
  if (!(timeout_seconds > 0)) {
    return InvalidArgument("--collective-timeout must be positive, got ", timeout_seconds);
  }
  auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000));
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<MpiCommunicator> communicator,
                         MpiCommunicator::Create(timeout));
  return std::unique_ptr<MpiRank>(
      new MpiRank(std::unique_ptr<MpiCommunicator, CommunicatorDeleter>(communicator.release())));
}

int64_t MpiRank::rank() const { return communicator_->rank(); }
int64_t MpiRank::size() const { return communicator_->num_devices(); }
Communicator* MpiRank::communicator() { return communicator_.get(); }
int MpiRank::Finish(int exit_code) { return communicator_->Finish(exit_code); }
void MpiRank::Abort(std::string_view message) { communicator_->Abort(message); }

absl::StatusOr<std::vector<Literal>> MpiRank::RunDevice(const HloModule& module,
                                                        absl::Span<const Literal> args,
                                                        EvalOptions options) {
  XLITE_RETURN_IF_ERROR(CheckDeviceCount(module));
  int64_t partitions = module.config().num_partitions;
  options.replica_id = rank() / partitions;
  options.partition_id = rank() % partitions;
  options.communicator = communicator();
  Evaluator evaluator(options);
  absl::StatusOr<Literal> result = evaluator.Run(module, args);
  // A peer that never answered cannot take part in gathering the results
  // either: end the job now, within the timeout.
  if (result.status().code() == absl::StatusCode::kDeadlineExceeded) {
    Abort(absl::StrCat("error: device ", rank(), ": ", result.status().message()));
  }
  communicator_->DeviceFinished(rank(), result.status());
  absl::StatusOr<std::vector<absl::StatusOr<Literal>>> all =
      communicator_->GatherResults(std::move(result));
  if (!all.ok()) {
    if (all.status().code() == absl::StatusCode::kAborted) return all.status();
    Abort(absl::StrCat("error: ", all.status().message()));
  }
  if (!is_root()) return std::vector<Literal>();
  return DeviceResultsOrRootCause(*std::move(all));
}

#else  // !XLITE_HAVE_MPI: Start refuses, so no MpiRank exists in this build.

void MpiRank::CommunicatorDeleter::operator()(MpiCommunicator*) const {}

absl::StatusOr<std::unique_ptr<MpiRank>> MpiRank::Start(double) {
  return Unimplemented(
      "this xlite was built without MPI (install libopenmpi-dev, reconfigure with CMake and "
      "rebuild for --communicator mpi)");
}

int64_t MpiRank::rank() const { return 0; }
int64_t MpiRank::size() const { return 1; }
Communicator* MpiRank::communicator() { return nullptr; }
int MpiRank::Finish(int exit_code) { return exit_code; }
void MpiRank::Abort(std::string_view) { std::_Exit(1); }

absl::StatusOr<std::vector<Literal>> MpiRank::RunDevice(const HloModule&, absl::Span<const Literal>,
                                                        EvalOptions) {
  return Unimplemented("this xlite was built without MPI");
}

#endif  // XLITE_HAVE_MPI

}  // namespace xlite::tools
