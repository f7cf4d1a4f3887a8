#include "xlite/tools/mpi_run.h"

#include <chrono>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/eval/multi_device.h"
#include "xlite/runtime/array_summary.h"
#include "xlite/runtime/communicator.h"
#include "xlite/text/printer.h"
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

absl::Status MpiRank::CheckAgreement(const HloModule& module, absl::Span<const Literal> args,
                                     std::string_view options) {
  std::string inputs;
  for (const Literal& arg : args) {
    for (const Literal* leaf : runtime::Leaves(arg)) {
      absl::StrAppend(&inputs, leaf->shape().ToString(), ":");
      inputs.append(reinterpret_cast<const char*>(leaf->raw_data().data()),
                    leaf->raw_data().size());
    }
  }
  static constexpr const char* kWhat[] = {"module", "inputs", "options"};
  Literal mine(Shape(PrimitiveType::U64, {3}));
  mine.Set<uint64_t>(0, runtime::Fnv1a64(PrintModule(module)));
  mine.Set<uint64_t>(1, runtime::Fnv1a64(inputs));
  mine.Set<uint64_t>(2, runtime::Fnv1a64(options));
  std::vector<int64_t> everyone(static_cast<size_t>(size()));
  for (int64_t r = 0; r < size(); ++r) everyone[static_cast<size_t>(r)] = r;
  XLITE_ASSIGN_OR_RETURN(
      std::shared_ptr<const std::vector<Literal>> all,
      communicator()->Exchange("xlite-run-agreement", rank(), everyone, std::move(mine)));
  std::vector<std::string> differences;
  for (int64_t r = 1; r < size(); ++r) {
    std::vector<std::string> what;
    for (int64_t i = 0; i < 3; ++i) {
      if ((*all)[static_cast<size_t>(r)].Get<uint64_t>(i) != (*all)[0].Get<uint64_t>(i)) {
        what.push_back(kWhat[i]);
      }
    }
    if (!what.empty()) {
      differences.push_back(absl::StrCat("rank ", r, ": ", absl::StrJoin(what, ", ")));
    }
  }
  if (differences.empty()) return absl::OkStatus();
  return InvalidArgument("the ranks of this job do not run the same program (",
                         absl::StrJoin(differences, "; "),
                         " differ from rank 0's): give every rank the same module, --inputs or "
                         "--random seed, and options");
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
