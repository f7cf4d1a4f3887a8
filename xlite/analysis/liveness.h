// Liveness on a given order: the instruction sequence of every sequential
// computation flattened into one timeline (a while's condition and body, a
// conditional's branches and a call's target run at their call site, before
// the instruction itself, as XLA's HloLiveRange does), the live range of each
// buffer on it, and the bytes live at every step.
#ifndef XLITE_ANALYSIS_LIVENESS_H_
#define XLITE_ANALYSIS_LIVENESS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "xlite/analysis/alias_analysis.h"
#include "xlite/ir/schedule.h"

namespace xlite {

// The order the module runs in as it stands: its schedule when it is
// scheduled, else the definition order of every computation.
HloSchedule CurrentSchedule(const HloModule& module);

struct LiveRange {
  int64_t start = 0;  // step the buffer is written
  int64_t end = 0;    // last step it is read (inclusive)
};

class Liveness {
 public:
  // Every sequential computation of `aliases` must have a valid sequence in
  // `schedule` (checked as the verifier does).
  static absl::StatusOr<std::unique_ptr<Liveness>> Run(const AliasAnalysis& aliases,
                                                       const HloSchedule& schedule);

  const AliasAnalysis& aliases() const { return aliases_; }
  // The flattened timeline: step -> instruction.
  const std::vector<const HloInstruction*>& timeline() const { return timeline_; }
  int64_t StepOf(const HloInstruction& inst) const;
  const LiveRange& BufferRange(int32_t buffer_id) const { return buffer_ranges_[buffer_id]; }

  // Bytes live at each step: every buffer, and temporaries only (no entry
  // parameters, constants or outputs, as XLA's temp_size_in_bytes).
  const std::vector<int64_t>& bytes_at_step() const { return bytes_; }
  const std::vector<int64_t>& temp_bytes_at_step() const { return temp_bytes_; }
  int64_t peak_bytes() const { return peak_bytes_; }
  int64_t peak_step() const { return peak_step_; }
  int64_t temp_peak_bytes() const { return temp_peak_bytes_; }
  // The buffers live at `step`, largest first (ties by id).
  std::vector<int32_t> BuffersLiveAt(int64_t step) const;

 private:
  explicit Liveness(const AliasAnalysis& aliases) : aliases_(aliases) {}
  absl::Status Flatten(const HloComputation& c, const HloSchedule& schedule);
  void ComputeRanges();
  void ComputeProfile();

  const AliasAnalysis& aliases_;
  std::vector<const HloInstruction*> timeline_;
  absl::flat_hash_map<const HloInstruction*, int64_t> step_;  // looked up only
  std::vector<LiveRange> buffer_ranges_;
  std::vector<int64_t> bytes_, temp_bytes_;
  int64_t peak_bytes_ = 0, peak_step_ = 0, temp_peak_bytes_ = 0;
};

}  // namespace xlite

#endif  // XLITE_ANALYSIS_LIVENESS_H_
