// A conservative estimate of the bytes an evaluation of a module holds at
// once (parameters, outputs and the live peak of the evaluation order), so
// that `xlite run` can refuse a run that cannot fit before it allocates. It
// stands in for the memory planner of xlite/sched: EstimateRunMemory is the
// one function to swap for the planner's peak when that lands.
#ifndef XLITE_ANALYSIS_MEMORY_ESTIMATE_H_
#define XLITE_ANALYSIS_MEMORY_ESTIMATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "xlite/ir/module.h"

namespace xlite {

// One buffer of the estimate: an instruction's value.
struct EstimatedBuffer {
  std::string name;   // `%name` of the instruction
  std::string shape;  // its shape's text
  int64_t bytes = 0;  // INT64_MAX when it overflows
};

struct RunMemoryEstimate {
  int64_t devices = 1;          // replica_count × num_partitions (saturated)
  int64_t parameter_bytes = 0;  // the entry's parameters, one device
  int64_t output_bytes = 0;     // the entry's result, one device
  // One device's parameters plus the peak of its evaluation.
  int64_t per_device_bytes = 0;
  // Everything held at once on all devices: each device's parameters plus
  // the peak of its evaluation (which includes its output). Sums saturate at
  // INT64_MAX rather than overflow.
  int64_t total_bytes = 0;
  // The largest values of the module, largest first (at most five).
  std::vector<EstimatedBuffer> largest;
};

// The estimate follows the reference evaluator's order (post-order, a value
// dropped after its last read) and is conservative: each instruction is
// counted with its operands alive, its result, the same again as scratch,
// and the peaks of every computation it calls added together.
RunMemoryEstimate EstimateRunMemory(const HloModule& module);

}  // namespace xlite

#endif  // XLITE_ANALYSIS_MEMORY_ESTIMATE_H_
