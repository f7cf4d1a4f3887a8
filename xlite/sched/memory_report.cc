#include "xlite/sched/memory_report.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xlite/base/byte_text.h"
#include "xlite/base/saturating.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/ir/computation.h"
#include "xlite/ir/op_source.h"
#include "xlite/sched/buffer_assignment.h"

namespace xlite {

absl::StatusOr<MemoryReport> AnalyzeMemory(const HloModule& module, MemoryScheduler scheduler,
                                           bool use_module_order, int64_t top) {
  return AnalyzeMemory(module, scheduler, use_module_order, top, nullptr);
}

absl::StatusOr<MemoryReport> AnalyzeMemory(
    const HloModule& module, MemoryScheduler scheduler, bool use_module_order, int64_t top,
    const std::function<BufferAssignmentOptions(const AliasAnalysis&)>& arena_options) {
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<AliasAnalysis> aliases, AliasAnalysis::Run(module));
  const BufferAssignmentOptions options =
      arena_options ? arena_options(*aliases) : BufferAssignmentOptions{};
  // A schedule's peak with operand sharing (the same allocations as below).
  auto shared_peak = [&](const HloSchedule& schedule) -> absl::StatusOr<int64_t> {
    XLITE_ASSIGN_OR_RETURN(std::unique_ptr<Liveness> liveness, Liveness::Run(*aliases, schedule));
    BufferAssignmentOptions profile_only = options;
    profile_only.place = false;
    return AssignBuffers(*liveness, profile_only).peak_bytes;
  };
  MemoryReport report;
  report.module = module.name();
  std::optional<MemorySchedule> chosen;
  int64_t best = INT64_MAX;
  bool first = true;
  for (MemoryScheduler base : kBaseMemorySchedulers) {
    XLITE_ASSIGN_OR_RETURN(MemorySchedule schedule, ScheduleForMemory(*aliases, base));
    XLITE_ASSIGN_OR_RETURN(schedule.peak_bytes, shared_peak(schedule.schedule));
    report.scheduler_peaks.push_back({std::string(MemorySchedulerName(base)), schedule.peak_bytes});
    // The first always counts: a saturated peak (INT64_MAX) is still a peak.
    if (first || schedule.peak_bytes < best) {
      first = false;
      best = schedule.peak_bytes;
      if (scheduler == MemoryScheduler::kBest) chosen = schedule;
    }
    if (scheduler == base) chosen = std::move(schedule);
  }
  report.scheduler_peaks.push_back({"best", best});
  // Print order: postorder, dfs, list, best.
  std::reverse(report.scheduler_peaks.begin(), report.scheduler_peaks.end() - 1);
  const HloSchedule module_order = CurrentSchedule(module);
  absl::StatusOr<std::unique_ptr<Liveness>> as_written = Liveness::Run(*aliases, module_order);
  if (as_written.ok()) {
    BufferAssignmentOptions profile_only = options;
    profile_only.place = false;
    report.scheduler_peaks.push_back(
        {"module_order", AssignBuffers(**as_written, profile_only).peak_bytes});
  }
  if (use_module_order) {
    if (!as_written.ok()) return as_written.status();
    report.scheduler = "module_order";
  } else {
    report.scheduler = std::string(MemorySchedulerName(scheduler));
    if (scheduler == MemoryScheduler::kBest) {
      absl::StrAppend(&report.scheduler, " (", AsAbsl(MemorySchedulerName(chosen->scheduler)), ")");
    }
  }
  const HloSchedule& schedule = use_module_order ? module_order : chosen->schedule;
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<Liveness> liveness, Liveness::Run(*aliases, schedule));
  BufferAssignment assignment = AssignBuffers(*liveness, options);

  report.peak_bytes = assignment.peak_bytes;
  report.temp_peak_bytes = assignment.temp_peak_bytes;
  report.peak_step = assignment.peak_step;
  report.shared_buffers = assignment.shared_buffers;
  report.steps = static_cast<int64_t>(liveness->timeline().size());
  if (!liveness->timeline().empty()) {
    const HloInstruction* at = liveness->timeline()[report.peak_step];
    report.peak_instruction = at->name();
    report.peak_computation = at->parent()->name();
  }
  report.arena_bytes = assignment.arena_bytes;
  report.fragmentation_bytes = assignment.fragmentation_bytes();
  report.buffer_count = static_cast<int64_t>(aliases->buffers().size());
  for (const HloBuffer& buffer : aliases->buffers()) {
    if (buffer.kind == BufferKind::kEntryParameter)
      report.parameter_bytes = SaturatingAdd(report.parameter_bytes, buffer.bytes);
    if (buffer.kind == BufferKind::kConstant)
      report.constant_bytes = SaturatingAdd(report.constant_bytes, buffer.bytes);
    if (buffer.kind == BufferKind::kOutput)
      report.output_bytes = SaturatingAdd(report.output_bytes, buffer.bytes);
  }
  // Buffers that share an allocation are listed once.
  std::vector<int32_t> live = liveness->BuffersLiveAt(report.peak_step);
  {
    std::vector<bool> seen(aliases->buffers().size(), false);
    std::vector<int32_t> once;
    for (int32_t id : live) {
      const int32_t alloc = assignment.allocation[id];
      if (seen[alloc]) continue;
      seen[alloc] = true;
      once.push_back(id);
    }
    live = std::move(once);
  }
  report.live_buffers_at_peak = static_cast<int64_t>(live.size());
  if (top > 0 && static_cast<int64_t>(live.size()) > top) live.resize(static_cast<size_t>(top));
  const SourceLines sources(module);
  for (int32_t id : live) {
    const HloBuffer& buffer = aliases->buffer(id);
    const HloValue& value = aliases->RepresentativeValue(id);
    ReportedBuffer row;
    row.id = id;
    row.bytes = buffer.bytes;
    row.shape = value.shape->ToString(/*print_layout=*/false);
    row.instruction = value.instruction->name();
    row.computation = value.instruction->parent()->name();
    row.op_name = value.instruction->metadata().op_name;
    row.source = sources.Of(*value.instruction);
    row.kind = buffer.kind;
    row.range = liveness->BufferRange(id);
    row.offset = assignment.offsets[id];
    report.top_buffers.push_back(std::move(row));
  }
  report.bytes_at_step = std::move(assignment.bytes_at_step);
  report.temp_bytes_at_step = std::move(assignment.temp_bytes_at_step);
  return report;
}

}  // namespace xlite
