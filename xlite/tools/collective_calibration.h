// `xlite calibrate --collectives`: under mpirun, times each collective kind
// as xlite runs it on the MPI communicator (a one-collective module through
// the evaluator) over a range of message sizes, and fits the alpha-beta
// model t = alpha + bytes / beta that a latency estimator takes.
#ifndef XLITE_TOOLS_COLLECTIVE_CALIBRATION_H_
#define XLITE_TOOLS_COLLECTIVE_CALIBRATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/tools/mpi_run.h"

namespace xlite::tools {

struct CollectiveTiming {
  int64_t bytes = 0;   // per device: the operand each device contributes
  double seconds = 0;  // median over the repetitions, on rank 0
};

struct CollectiveFit {
  std::string kind;  // all-reduce, all-gather, reduce-scatter, all-to-all, permute
  std::string path;  // how xlite carries it over MPI
  double alpha_seconds = 0;
  double beta_bytes_per_second = 0;  // 0 when the sizes showed no slope
  std::vector<CollectiveTiming> timings;
};

struct CollectiveCalibrationOptions {
  int64_t min_bytes = 1 << 10;
  int64_t max_bytes = 4 << 20;
  int repetitions = 7;
};

// Every rank must call this (it runs collectives); rank 0's result holds
// the figures, the others' are empty.
absl::StatusOr<std::vector<CollectiveFit>> CalibrateCollectives(
    MpiRank& mpi, const CollectiveCalibrationOptions& options);

// The figures as JSON: {"device": "host", "ranks": N, "collectives": {kind:
// {"alpha_seconds", "beta_bytes_per_second", "path", "timings": [...]}}}.
std::string CollectiveFitsToJson(const std::vector<CollectiveFit>& fits, int64_t ranks);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_COLLECTIVE_CALIBRATION_H_
