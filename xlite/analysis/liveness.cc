#include "xlite/analysis/liveness.h"

#include <algorithm>

#include "xlite/analysis/call_graph.h"
#include "xlite/analysis/verifier.h"
#include "xlite/base/saturating.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/ir/computation.h"

namespace xlite {

HloSchedule CurrentSchedule(const HloModule& module) {
  return module.is_scheduled() ? module.schedule() : HloSchedule::FromDefinitionOrder(module);
}

absl::StatusOr<std::unique_ptr<Liveness>> Liveness::Run(const AliasAnalysis& aliases,
                                                        const HloSchedule& schedule) {
  std::unique_ptr<Liveness> liveness(new Liveness(aliases));
  const HloComputation* entry = aliases.dataflow().module().entry_computation();
  XLITE_RETURN_IF_ERROR(liveness->Flatten(*entry, schedule));
  liveness->ComputeRanges();
  liveness->ComputeProfile();
  return liveness;
}

absl::Status Liveness::Flatten(const HloComputation& c, const HloSchedule& schedule) {
  if (!schedule.has_sequence(c)) {
    return InvalidArgument("no schedule for computation ", AsAbsl(c.name()));
  }
  absl::Span<HloInstruction* const> order = schedule.sequence(c);
  XLITE_RETURN_IF_ERROR(VerifySequence(c, order));
  for (const HloInstruction* inst : order) {
    // A while's condition and body, a conditional's branches and a call's
    // target run at the call site, before it.
    if (CallKindOf(inst->opcode()) == CallKind::kControlFlow) {
      for (const HloComputation* callee : inst->called_computations()) {
        XLITE_RETURN_IF_ERROR(Flatten(*callee, schedule));
      }
    }
    step_[inst] = static_cast<int64_t>(timeline_.size());
    timeline_.push_back(inst);
  }
  return absl::OkStatus();
}

int64_t Liveness::StepOf(const HloInstruction& inst) const {
  auto it = step_.find(&inst);
  return it == step_.end() ? -1 : it->second;
}

void Liveness::ComputeRanges() {
  const DataflowAnalysis& df = aliases_.dataflow();
  const int64_t last = static_cast<int64_t>(timeline_.size()) - 1;
  const HloComputation* entry = df.module().entry_computation();
  buffer_ranges_.assign(aliases_.buffers().size(), {INT64_MAX, -1});
  for (const HloValue& value : df.values()) {
    int64_t start = StepOf(*value.instruction);
    int64_t end = start;
    for (const HloPosition& position : df.PositionsOf(value.id)) {
      const HloInstruction* at = position.instruction;
      end = std::max(end, StepOf(*at));
      for (const HloInstruction* user : at->users()) end = std::max(end, StepOf(*user));
      // A callee's result is read at its call site, which holds it too (the
      // call, conditional and while forward their callees' roots), except a
      // loop condition's, which the loop reads at once.
      if (at->IsRoot() && at->parent() == entry) end = last;  // live out
    }
    const HloBuffer& buffer = aliases_.buffer(aliases_.BufferOfValue(value.id));
    // Parameters arrive before the first step; constants are placed before
    // the program runs; both stay unless a parameter is donated.
    if (buffer.kind == BufferKind::kEntryParameter || buffer.kind == BufferKind::kConstant) {
      start = 0;
      if (!buffer.donated) end = last;
    }
    LiveRange& range = buffer_ranges_[buffer.id];
    range.start = std::min(range.start, start);
    range.end = std::max(range.end, end);
  }
}

void Liveness::ComputeProfile() {
  const size_t steps = timeline_.size();
  std::vector<WideSum> delta(steps + 1, 0), temp_delta(steps + 1, 0);
  for (const HloBuffer& buffer : aliases_.buffers()) {
    const LiveRange& range = buffer_ranges_[buffer.id];
    if (range.end < range.start || buffer.bytes == 0) continue;
    delta[range.start] += buffer.bytes;
    delta[range.end + 1] -= buffer.bytes;
    if (buffer.kind == BufferKind::kTemporary) {
      temp_delta[range.start] += buffer.bytes;
      temp_delta[range.end + 1] -= buffer.bytes;
    }
  }
  bytes_.assign(steps, 0);
  temp_bytes_.assign(steps, 0);
  WideSum wide_live = 0, wide_temp = 0;
  for (size_t s = 0; s < steps; ++s) {
    wide_live += delta[s];
    wide_temp += temp_delta[s];
    const int64_t live = ClampToInt64(wide_live), temp = ClampToInt64(wide_temp);
    bytes_[s] = live;
    temp_bytes_[s] = temp;
    if (live > peak_bytes_) {
      peak_bytes_ = live;
      peak_step_ = static_cast<int64_t>(s);
    }
    temp_peak_bytes_ = std::max(temp_peak_bytes_, temp);
  }
}

std::vector<int32_t> Liveness::BuffersLiveAt(int64_t step) const {
  std::vector<int32_t> live;
  for (const HloBuffer& buffer : aliases_.buffers()) {
    const LiveRange& range = buffer_ranges_[buffer.id];
    if (range.start <= step && step <= range.end && buffer.bytes > 0) live.push_back(buffer.id);
  }
  std::sort(live.begin(), live.end(), [&](int32_t a, int32_t b) {
    const int64_t sa = aliases_.buffer(a).bytes, sb = aliases_.buffer(b).bytes;
    return sa != sb ? sa > sb : a < b;
  });
  return live;
}

}  // namespace xlite
