// Step time of a schedule: a simulation of the compute stream and one stream
// per collective kind. Compute instructions run one after another; an async
// collective runs on its stream from its start (once the stream is free) and
// its done waits for it; a synchronous collective stalls compute for its whole
// time. While bodies run trip-count times (collectives count once per
// execution), a call its callee, a conditional the branch its constant
// selector picks, else its longest. Also the lower bound max(total compute,
// total per stream, critical path) and the timeline as slices for a trace.
#ifndef XLITE_SCHED_STEP_ESTIMATE_H_
#define XLITE_SCHED_STEP_ESTIMATE_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/analysis/liveness.h"
#include "xlite/sched/latency_model.h"

namespace xlite {

// The stream of compute slices (the others are named by collective kind).
inline constexpr std::string_view kComputeStreamName = "compute";

// One span on a stream ("compute" or a collective kind).
struct TimelineSlice {
  std::string name;
  std::string op_name;
  std::string stream;
  double begin = 0, end = 0;
  std::string shape;                     // of the instruction's result
  std::string source;                    // "file:line" of its stack frame, or ""
  double flops = 0, bytes_accessed = 0;  // compute slices: one execution's
};

struct CollectiveTiming {
  std::string name, opcode, op_name, computation;
  std::string source;  // "file:line" of its stack frame (ir/op_source.h), or ""
  std::string_view algorithm;
  double executions = 1;
  double seconds = 0;          // all executions together
  double exposed_seconds = 0;  // of which compute waited
};

struct StepEstimate {
  double step_seconds = 0;
  double compute_seconds = 0;
  double communication_seconds = 0;
  double exposed_communication_seconds = 0;
  double critical_path_seconds = 0;
  double lower_bound_seconds = 0;
  std::array<double, kNumCollectiveKinds> stream_seconds{};
  std::vector<CollectiveTiming> collectives;  // in schedule order
  // The entry's timeline; a while loop shows its first iteration's
  // instructions, then one slice for the remaining iterations.
  std::vector<TimelineSlice> slices;
};

// Simulates `schedule` (every sequential computation ordered). With
// `synchronous`, async pairs wait at their start as synchronous collectives
// do (the order without latency hiding).
absl::StatusOr<StepEstimate> EstimateStep(const HloModule& module, const HloSchedule& schedule,
                                          LatencyModel& model, bool synchronous = false);

}  // namespace xlite

#endif  // XLITE_SCHED_STEP_ESTIMATE_H_
