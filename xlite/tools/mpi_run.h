// The MPI side of `xlite run --communicator mpi` and `xlite calibrate
// --collectives`: this process is one rank of an mpirun job and runs the
// device with its rank's number; rank 0 collects every device's result. In
// a build without MPI, Start says so (this header never includes mpi.h).
#ifndef XLITE_TOOLS_MPI_RUN_H_
#define XLITE_TOOLS_MPI_RUN_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/eval/evaluator.h"
#include "xlite/ir/module.h"

namespace xlite {
class MpiCommunicator;
}

namespace xlite::tools {

class MpiRank {
 public:
  // Starts MPI; `timeout_seconds` bounds every collective wait.
  static absl::StatusOr<std::unique_ptr<MpiRank>> Start(double timeout_seconds);
  ~MpiRank();

  int64_t rank() const;
  int64_t size() const;
  bool is_root() const { return rank() == 0; }
  // The communicator every device of this job shares (for EvalOptions).
  Communicator* communicator();

  // An error unless the job has one rank per device of `module`.
  absl::Status CheckDeviceCount(const HloModule& module) const;

  // Every rank hashes its module, its global inputs and `options` (what
  // else changes the result) and the ranks compare the hashes: an error
  // naming each rank that differs from rank 0 and in what, the same on
  // every rank. Ranks started with different files or seeds would
  // otherwise compute a result that matches no single run.
  absl::Status CheckAgreement(const HloModule& module, absl::Span<const Literal> args,
                              std::string_view options);

  // Runs this rank's device of `module` (replica rank / num_partitions,
  // partition rank % num_partitions) on `args`. Rank 0 returns every
  // device's result in device order, or the error that caused the failure;
  // the other ranks return an empty vector, or kAborted when the run failed
  // (rank 0 reports why). A rank that times out waiting on a peer ends the
  // whole job here (MPI_Abort) with its message.
  absl::StatusOr<std::vector<Literal>> RunDevice(const HloModule& module,
                                                 absl::Span<const Literal> args,
                                                 EvalOptions options);

  // Ends MPI (see MpiCommunicator::Finish) and returns `exit_code`.
  int Finish(int exit_code);
  [[noreturn]] void Abort(std::string_view message);

 private:
  // Deletes the communicator where it is a complete type (mpi_run.cc), so
  // that this header needs no MPI and builds without it.
  struct CommunicatorDeleter {
    void operator()(MpiCommunicator* communicator) const;
  };
  explicit MpiRank(std::unique_ptr<MpiCommunicator, CommunicatorDeleter> communicator);
  std::unique_ptr<MpiCommunicator, CommunicatorDeleter> communicator_;
};

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_MPI_RUN_H_
