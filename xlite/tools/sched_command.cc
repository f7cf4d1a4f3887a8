// `xlite sched`: the latency hiding schedule of a module on a device — step
// time, compute and communication, the communication left exposed in total
// and per collective, the same for the synchronous order beside it, the
// lower bound, the peak memory — with a Perfetto trace and the scheduled
// module on request.
#include <algorithm>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "xlite/base/byte_text.h"
#include "xlite/base/file_io.h"
#include "xlite/base/status.h"
#include "xlite/compiler/compile.h"
#include "xlite/sched/schedule_module.h"
#include "xlite/sched/trace.h"
#include "xlite/text/printer.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/device_figures.h"
#include "xlite/tools/flag_checks.h"
#include "xlite/tools/input.h"
#include "xlite/tools/report_output.h"
#include "xlite/tools/reports/schedule_report_json.h"

namespace xlite::tools {
namespace {

struct SchedOptionsCli {
  InputOptions input;
  std::string device = "h100";
  int64_t memory_limit = 0;
  int max_in_flight = 1;
  std::string trace;
  std::string output;
  bool spmd = false;
  bool json = false;
  int64_t top = 20;
  GroupBy group_by = GroupBy::kNone;
};

using SchedReport = ScheduleModuleResult;

std::string Seconds(double s) { return SecondsText(s); }

std::string ReportText(const SchedReport& r, const DeviceSpec& device, bool per_device, int64_t top,
                       GroupBy group_by) {
  const StepEstimate& s = r.scheduled;
  std::string out;
  absl::StrAppendFormat(&out, "module: %s\ndevice: %s\n", r.module, device.name);
  if (!per_device) absl::StrAppend(&out, "note: ", kGlobalFiguresNote, "\n");
  absl::StrAppendFormat(&out, "%-34s %14s %14s\n", "", "scheduled", "synchronous");
  auto row = [&](const char* label, double a, double b) {
    absl::StrAppendFormat(&out, "%-34s %14s %14s\n", label, Seconds(a), Seconds(b));
  };
  row("step time", s.step_seconds, r.sync.step_seconds);
  row("compute", s.compute_seconds, r.sync.compute_seconds);
  row("communication", s.communication_seconds, r.sync.communication_seconds);
  row("exposed communication", s.exposed_communication_seconds,
      r.sync.exposed_communication_seconds);
  absl::StrAppendFormat(&out, "%-34s %13.1f%% %13.1f%%\n", "overlap", OverlapPercent(s),
                        OverlapPercent(r.sync));
  absl::StrAppendFormat(
      &out, "lower bound: %s (critical path %s); scheduled is %.2f%% above it\n",
      Seconds(s.lower_bound_seconds), Seconds(s.critical_path_seconds),
      s.lower_bound_seconds > 0 ? 100 * (s.step_seconds / s.lower_bound_seconds - 1) : 0.0);
  absl::StrAppendFormat(&out, "peak memory: %s (base memory schedule %s, limit %s)\n",
                        BytesText(r.peak_bytes), BytesText(r.base_peak_bytes, false),
                        BytesText(r.memory_limit_bytes, false));
  out += DoesNotFitWarning(r.peak_bytes, device);
  if (r.rematerialized > 0) {
    absl::StrAppendFormat(&out, "rematerialized %d instruction%s (memory schedule peak %s)\n",
                          r.rematerialized, r.rematerialized == 1 ? "" : "s",
                          BytesText(r.memory_schedule_peak_bytes, false));
  }
  if (r.memory_barriers > 0) {
    absl::StrAppendFormat(&out, "held %d instruction%s in place at the memory limit\n",
                          r.memory_barriers, r.memory_barriers == 1 ? "" : "s");
  }
  if (!r.kept_base_order.empty()) {
    absl::StrAppendFormat(&out, "kept the memory order (limit): %s\n",
                          absl::StrJoin(r.kept_base_order, ", "));
  }
  std::vector<const CollectiveTiming*> rows;
  for (const CollectiveTiming& c : s.collectives) rows.push_back(&c);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const CollectiveTiming* a, const CollectiveTiming* b) {
                     return a->exposed_seconds > b->exposed_seconds;
                   });
  const size_t shown = top <= 0 ? rows.size() : std::min(rows.size(), static_cast<size_t>(top));
  absl::StrAppendFormat(&out, "collectives by exposed time (%d of %d):\n", shown, rows.size());
  absl::StrAppendFormat(&out, "  %12s %12s %6s %-20s %s\n", "exposed", "time", "runs", "opcode",
                        "name [op_name] at source");
  for (size_t i = 0; i < shown; ++i) {
    const CollectiveTiming& c = *rows[i];
    std::string label = c.name;
    if (!c.op_name.empty()) absl::StrAppend(&label, " [", c.op_name, "]");
    if (!c.source.empty()) absl::StrAppend(&label, " at ", c.source);
    absl::StrAppendFormat(&out, "  %12s %12s %6g %-20s %s\n", Seconds(c.exposed_seconds),
                          Seconds(c.seconds), c.executions, c.opcode, label);
  }
  if (group_by != GroupBy::kNone) {
    out += GroupTableText(GroupCollectives(s, group_by),
                          [](size_t, double seconds) { return Seconds(seconds); });
  }
  return out;
}

absl::StatusOr<SchedReport> Schedule(HloModule& module, const DeviceSpec& device,
                                     const SchedOptionsCli& options) {
  compiler::CompileOptions compile;
  compile.partition = options.spmd;
  compile.schedule_on = device;
  compile.schedule.max_in_flight_per_kind = options.max_in_flight;
  if (options.memory_limit > 0) compile.schedule.memory_limit_bytes = options.memory_limit;
  XLITE_ASSIGN_OR_RETURN(compiler::CompileResult compiled, compiler::Compile(module, compile));
  for (const std::string& warning : compiled.warnings) {
    PrintError(absl::StrCat("xlite sched: warning: ", warning));
  }
  return *std::move(compiled.schedule);
}

int RunSched(const SchedOptionsCli& options) {
  int exit_code = kExitOk;
  std::optional<DeviceSpec> device = LoadDeviceOrReport(options.device, &exit_code);
  if (!device.has_value()) return exit_code;
  std::vector<LoadedModule> modules;
  if (!LoadVerifiedModules(options.input, &modules)) return kExitInvalidInput;
  std::string text, scheduled_text;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (size_t i = 0; i < modules.size(); ++i) {
    HloModule& module = *modules[i].module;
    absl::StatusOr<SchedReport> report = Schedule(module, *device, options);
    if (!report.ok()) {
      PrintError(absl::StrCat(modules[i].location, ": error: ", report.status().message()));
      return kExitInvalidInput;
    }
    const bool per_device = FiguresArePerDevice(module);
    if (!options.trace.empty() && i == 0) {
      absl::Status written =
          WriteBinaryFile(options.trace, TraceJson(report->scheduled, module.name()) + "\n");
      if (!written.ok()) {
        PrintError(absl::StrCat("error: ", written.message()));
        return kExitInvalidInput;
      }
    }
    if (i > 0) scheduled_text += "// -----\n";
    scheduled_text += PrintModule(module);
    if (options.json) {
      all.push_back(ScheduleReportJson(*report, *device, per_device, options.group_by));
    } else {
      if (i > 0) text += "// -----\n";
      text += ReportText(*report, *device, per_device, options.top, options.group_by);
    }
  }
  if (!options.output.empty()) {
    absl::Status written = WriteBinaryFile(options.output, scheduled_text);
    if (!written.ok()) {
      PrintError(absl::StrCat("error: ", written.message()));
      return kExitInvalidInput;
    }
  }
  PrintReports(options.input, options.json, all, text);
  return kExitOk;
}

}  // namespace

void AddSchedCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<SchedOptionsCli>();
  CLI::App* command = app.add_subcommand(
      "sched",
      "Latency hiding schedule on a device: makes collectives asynchronous "
      "(async-collective-creator), orders for memory (best of list/DFS/post-order), then "
      "overlaps each collective with compute (latency-hiding-scheduler: one collective of each "
      "kind in flight, memory never above the limit). Compute time is the roofline of `xlite "
      "cost`; a collective's time is alpha-beta over its replica group (ring/tree all-reduce, "
      "ring all-gather/reduce-scatter/all-to-all, direct permute) with the device's "
      "interconnect latency and bandwidth. Prints the step time, compute, communication and "
      "its exposed part, per collective, beside the synchronous text order, and the lower "
      "bound max(compute, communication per kind, critical path), and whether the peak fits "
      "the device's memory.");
  AddInputOptions(*command, &options->input);
  command
      ->add_option("--device", options->device,
                   "Device: h100, h200, tpu-v5e, tpu-v5p, host, or a path to a JSON spec")
      ->capture_default_str();
  command
      ->add_option("--memory-limit", options->memory_limit,
                   "Bytes the schedule may hold at its peak, at least 1 (default: the "
                   "memory schedule's peak); like run's --memory-budget, 0 is not \"no limit\"")
      ->check(IntegerIn(1, std::numeric_limits<int64_t>::max()));
  command
      ->add_option("--max-in-flight", options->max_in_flight,
                   "Collectives of one kind in flight at once")
      ->capture_default_str()
      ->check(IntegerIn(1, std::numeric_limits<int64_t>::max()));
  command->add_option("--trace", options->trace, "Write a Chrome/Perfetto trace JSON");
  command->add_option("-o,--output,--save-compiled", options->output,
                      "Write the compiled (scheduled) module");
  command->add_flag("--spmd", options->spmd,
                    "Partition first (sharding propagation and the SPMD partitioner, as `xlite "
                    "run --spmd` does) and schedule the per-partition program");
  command->add_option("--top", options->top, "Collectives to list (0 = all)")
      ->capture_default_str()
      ->check(IntegerIn(0, std::numeric_limits<int64_t>::max()));
  command->add_flag("--json", options->json, "Print JSON instead of text");
  AddGroupByOption(*command, "the collectives' exposed and total time", &options->group_by);
  command->callback([options, exit_code] { *exit_code = RunSched(*options); });
}

}  // namespace xlite::tools
