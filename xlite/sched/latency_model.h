// Latency model of the schedulers: compute time of an instruction from the
// cost analysis and the device's roofline (as `xlite cost`), and collective
// time from an alpha-beta model per algorithm over the replica group size
// (alpha: the device's interconnect latency, beta: 1 / its bandwidth); an
// async copy (copy-start) takes its bytes read and written at the memory
// bandwidth.
#ifndef XLITE_SCHED_LATENCY_MODEL_H_
#define XLITE_SCHED_LATENCY_MODEL_H_

#include <cstdint>
#include <string_view>

#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/sched/async_pairs.h"

namespace xlite {

struct CollectiveEstimate {
  double seconds = 0;
  double bytes = 0;                     // the data the algorithm's cost is stated over
  int64_t group_size = 1;               // participants per replica group
  std::string_view algorithm = "none";  // ring, tree, direct
};

// Alpha-beta cost of one collective of `kind` on `bytes` (the full,
// un-sharded array) among `n` participants:
//   all-reduce      ring 2(n-1)α + 2(n-1)/n·B·β, tree 2⌈log2 n⌉α + 2B·β (the cheaper)
//   all-gather, reduce-scatter, all-to-all   ring (n-1)α + (n-1)/n·B·β
//   collective-permute   α + B·β
// n <= 1 communicates nothing (0 s).
CollectiveEstimate AlphaBeta(CollectiveKind kind, double bytes, int64_t n, double alpha_seconds,
                             double bytes_per_second);

class LatencyModel {
 public:
  explicit LatencyModel(DeviceSpec device) : device_(std::move(device)) {}
  const DeviceSpec& device() const { return device_; }

  // Roofline seconds of one execution of `inst` (0 for async starts and
  // dones, whose work is the communication; while loops and calls include
  // their callees). Fails on instructions the cost analysis refuses.
  absl::StatusOr<double> ComputeSeconds(const HloInstruction& inst);
  // The communication of a collective or of an async collective start.
  CollectiveEstimate Collective(const HloInstruction& inst);

 private:
  DeviceSpec device_;
  CostAnalysis costs_;
};

}  // namespace xlite

#endif  // XLITE_SCHED_LATENCY_MODEL_H_
