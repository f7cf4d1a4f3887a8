// `xlite mem`: the peak memory of a schedule and the buffers that make it —
// the report XLA prints only on OOM — with the working set of while bodies,
// conditionals and calls counted at their call site, every memory
// scheduler's peak side by side, and the bytes over the schedule as an SVG.
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xlite/base/byte_text.h"
#include "xlite/base/file_io.h"
#include "xlite/base/status.h"
#include "xlite/compiler/compile.h"
#include "xlite/sched/memory_report.h"
#include "xlite/sched/memory_svg.h"
#include "xlite/text/printer.h"
#include "xlite/tools/backends.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/device_figures.h"
#include "xlite/tools/flag_checks.h"
#include "xlite/tools/input.h"
#include "xlite/tools/report_output.h"
#include "xlite/tools/reports/memory_report_json.h"

namespace xlite::tools {
namespace {

struct MemOptionsCli {
  InputOptions input;
  std::string scheduler = "best";
  int64_t top = 10;
  bool json = false;
  std::string svg;
  std::string device;   // optional: check the peak against its memory
  std::string backend;  // empty: XLA's buffer assignment on the module as given
  std::string save_compiled;
  GroupBy group_by = GroupBy::kNone;
};

std::string ReportText(const MemoryReport& r, const DeviceSpec* device, bool per_device) {
  std::string out;
  absl::StrAppendFormat(&out, "module: %s\n", r.module);
  if (!per_device) absl::StrAppend(&out, "note: ", kGlobalFiguresNote, "\n");
  absl::StrAppendFormat(&out, "scheduler: %s\n", r.scheduler);
  absl::StrAppendFormat(&out, "peak: %s at step %d of %d (%s in %s)\n", BytesText(r.peak_bytes),
                        r.peak_step, r.steps, r.peak_instruction, r.peak_computation);
  if (device != nullptr) out += DoesNotFitWarning(r.peak_bytes, *device);
  absl::StrAppendFormat(&out, "temporaries peak: %s\n", BytesText(r.temp_peak_bytes));
  absl::StrAppendFormat(&out, "parameters: %s, constants: %s, outputs: %s\n",
                        BytesText(r.parameter_bytes), BytesText(r.constant_bytes),
                        BytesText(r.output_bytes));
  absl::StrAppendFormat(&out, "arena of temporaries and outputs: %s, fragmentation %s\n",
                        BytesText(r.arena_bytes), BytesText(r.fragmentation_bytes));
  absl::StrAppendFormat(&out, "buffers written over a dying operand's buffer: %d\n",
                        r.shared_buffers);
  out += "peak by scheduler (bytes):";
  for (const auto& [name, bytes] : r.scheduler_peaks) {
    absl::StrAppendFormat(&out, " %s %d", name, bytes);
  }
  out += "\n";
  absl::StrAppendFormat(&out, "top %d of the %d buffers live at the peak (%d buffers in all):\n",
                        r.top_buffers.size(), r.live_buffers_at_peak, r.buffer_count);
  absl::StrAppendFormat(&out, "  %14s %-10s %-24s %s\n", "bytes", "kind", "shape",
                        "instruction (computation) [op_name] at source");
  for (const ReportedBuffer& b : r.top_buffers) {
    std::string label = absl::StrFormat("%s (%s)", b.instruction, b.computation);
    if (!b.op_name.empty()) absl::StrAppend(&label, " [", b.op_name, "]");
    if (!b.source.empty()) absl::StrAppend(&label, " at ", b.source);
    absl::StrAppendFormat(&out, "  %14s %-10s %-24s %s\n", BytesText(b.bytes, /*with_exact=*/false),
                          BufferKindName(b.kind), b.shape, label);
  }
  return out;
}

// The memory plan of the program the backend runs, from the compile
// pipeline that builds its executable.
absl::StatusOr<MemoryReport> AnalyzeForBackend(HloModule& module, const std::string& backend,
                                               int64_t top) {
  compiler::CompileOptions compile;
  compile.backend = backend;
  compile.analyze_memory = true;
  compile.memory_top = top;
  absl::StatusOr<compiler::CompileResult> compiled = compiler::Compile(module, compile);
  if (!compiled.ok()) return compiled.status();
  return std::move(compiled->memory).value();
}

int RunMem(const MemOptionsCli& options) {
  const bool module_order = options.scheduler == "module";
  std::optional<MemoryScheduler> scheduler = MemorySchedulerFromName(options.scheduler);
  if (!scheduler.has_value() && !module_order) {
    PrintError("error: --scheduler must be best, list, dfs, postorder or module");
    return kExitUsage;
  }
  if (!scheduler.has_value()) scheduler = MemoryScheduler::kBest;  // unused: the module's order
  if (!options.backend.empty() && !IsBackend(options.backend)) {
    PrintError(absl::StrCat("error: unknown backend '", options.backend,
                            "' (available: ", AvailableBackends(), ")"));
    return kExitUsage;
  }
  std::optional<DeviceSpec> device;
  if (!options.device.empty()) {
    int exit_code = kExitOk;
    device = LoadDeviceOrReport(options.device, &exit_code);
    if (!device.has_value()) return exit_code;
  }
  std::vector<LoadedModule> modules;
  if (!LoadVerifiedModules(options.input, &modules)) return kExitInvalidInput;
  std::string text;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (size_t i = 0; i < modules.size(); ++i) {
    HloModule& module = *modules[i].module;
    const bool per_device = FiguresArePerDevice(module);
    // Grouping sums every buffer live at the peak; the list shows the top.
    const int64_t analyzed_top = options.group_by != GroupBy::kNone ? 0 : options.top;
    absl::StatusOr<MemoryReport> report =
        options.backend.empty()
            ? AnalyzeMemoryAsWritten(module, *scheduler, module_order, analyzed_top)
            : AnalyzeForBackend(module, options.backend, analyzed_top);
    if (report.ok() && !options.save_compiled.empty() && i == 0) {
      absl::Status saved = WriteBinaryFile(options.save_compiled, PrintModule(module));
      if (!saved.ok()) report = saved;
    }
    if (!report.ok()) {
      PrintError(absl::StrCat(modules[i].location, ": error: ", report.status().message()));
      return kExitInvalidInput;
    }
    std::optional<GroupedRows> groups;
    if (options.group_by != GroupBy::kNone) {
      groups = GroupBuffersThenKeepTop(&*report, options.group_by, options.top);
    }
    if (!options.svg.empty() && i == 0) {
      absl::Status written = WriteBinaryFile(options.svg, MemoryProfileSvg(*report));
      if (!written.ok()) {
        PrintError(absl::StrCat("error: ", written.message()));
        return kExitInvalidInput;
      }
    }
    if (options.json) {
      all.push_back(MemoryReportJson(*report, device ? &*device : nullptr, per_device,
                                     options.backend, groups ? &*groups : nullptr));
    } else {
      if (i > 0) text += "// -----\n";
      text += ReportText(*report, device ? &*device : nullptr, per_device);
      if (groups.has_value()) {
        text += GroupTableText(*groups, [](size_t, double bytes) {
          return BytesText(static_cast<int64_t>(bytes), /*with_exact=*/false);
        });
      }
    }
  }
  PrintReports(options.input, options.json, all, text);
  return kExitOk;
}

}  // namespace

void AddMemCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<MemOptionsCli>();
  CLI::App* command = app.add_subcommand(
      "mem",
      "Peak memory of a schedule: bytes live at the peak (entry parameters, constants, outputs "
      "and temporaries; temporaries alone as temp_peak_bytes) and where in the schedule it is "
      "reached, the buffers live there largest first, the peak of each memory scheduler, and "
      "the arena a buffer assignment (global decreasing-size best fit) needs. While bodies, "
      "conditional branches and called computations run at their call site, so their working "
      "set counts there. Buffers come from the dataflow and alias analysis (tuples, while "
      "state, in-place updates, input_output_alias); the call graph is flattened first.");
  AddInputOptions(*command, &options->input);
  command
      ->add_option("--scheduler", options->scheduler,
                   "best, list, dfs, postorder, or module (the module's own order)")
      ->capture_default_str();
  command->add_option("--top", options->top, "Buffers to list (0 = all live at the peak)")
      ->capture_default_str()
      ->check(IntegerIn(0, std::numeric_limits<int64_t>::max()));
  command->add_option("--device", options->device,
                      "Check the peak against this device's memory (h100, h200, tpu-v5e, "
                      "tpu-v5p, host, or a path to a JSON spec)");
  command->add_flag("--json", options->json, "Print JSON instead of text");
  AddGroupByOption(*command, "the bytes of the buffers live at the peak", &options->group_by);
  command->add_option("--backend", options->backend,
                      "Report the program a backend runs (cpu: after its loop fusion, in its "
                      "thunk order, with its 64-byte aligned arena: arena_bytes is what its "
                      "executable allocates); --scheduler is then the backend's");
  command->add_option("--svg", options->svg, "Write memory over the schedule as an SVG plot");
  command->add_option("--save-compiled", options->save_compiled,
                      "Write the module as analysed to this file (with --backend: as the backend "
                      "runs it, fused and scheduled)");
  command->callback([options, exit_code] { *exit_code = RunMem(*options); });
}

}  // namespace xlite::tools
