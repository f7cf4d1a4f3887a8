// The memory report of `xlite mem`: the peak of a schedule and where it is
// reached, the buffers live there (largest first, with shape, producer and
// op_name), the peak of every memory scheduler side by side, the arena a
// buffer assignment needs, and the bytes live over the schedule (as an SVG).
#ifndef XLITE_SCHED_MEMORY_REPORT_H_
#define XLITE_SCHED_MEMORY_REPORT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/sched/buffer_assignment.h"
#include "xlite/sched/memory_scheduler.h"

namespace xlite {

struct ReportedBuffer {
  int32_t id = 0;
  int64_t bytes = 0;
  std::string shape;
  std::string instruction;  // the producer of its largest value
  std::string computation;
  std::string op_name;
  std::string source;  // "file:line" of its stack frame (ir/op_source.h), or ""
  BufferKind kind = BufferKind::kTemporary;
  LiveRange range;
  int64_t offset = -1;  // in the arena (-1: parameters and constants)
};

struct MemoryReport {
  std::string module;
  std::string scheduler;  // the one that produced the reported order
  int64_t peak_bytes = 0;
  int64_t temp_peak_bytes = 0;
  int64_t peak_step = 0;
  int64_t steps = 0;
  std::string peak_instruction, peak_computation;
  int64_t parameter_bytes = 0, constant_bytes = 0, output_bytes = 0;
  int64_t arena_bytes = 0;     // temporaries and outputs (buffer assignment)
  int64_t shared_buffers = 0;  // buffers written over an operand's buffer
  int64_t fragmentation_bytes = 0;
  int64_t buffer_count = 0;
  // {postorder, dfs, list, best, module_order} -> peak bytes.
  std::vector<std::pair<std::string, int64_t>> scheduler_peaks;
  int64_t live_buffers_at_peak = 0;
  std::vector<ReportedBuffer> top_buffers;  // live at the peak, largest first
  std::vector<int64_t> bytes_at_step;
  std::vector<int64_t> temp_bytes_at_step;
};

// Analyses `module` (its call graph flat: run flatten-call-graph first) on
// the order `scheduler` gives, or on the module's own order when
// `use_module_order`; lists the `top` largest buffers live at the peak (all
// when top <= 0).
absl::StatusOr<MemoryReport> AnalyzeMemory(const HloModule& module, MemoryScheduler scheduler,
                                           bool use_module_order, int64_t top);
// The same with a backend's arena: which buffers it holds, their sizes and
// alignment (e.g. the CPU backend's, cpu_memory_plan.h), from the analysis.
absl::StatusOr<MemoryReport> AnalyzeMemory(
    const HloModule& module, MemoryScheduler scheduler, bool use_module_order, int64_t top,
    const std::function<BufferAssignmentOptions(const AliasAnalysis&)>& arena_options);

}  // namespace xlite

#endif  // XLITE_SCHED_MEMORY_REPORT_H_
