// `xlite cost`: flops, transcendentals and bytes of each module, the roofline
// time on a device, and the instructions that cost most, as text or JSON.
#include <algorithm>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/base/byte_text.h"
#include "xlite/base/file_io.h"
#include "xlite/base/strings.h"
#include "xlite/compiler/compile.h"
#include "xlite/ir/computation.h"
#include "xlite/text/printer.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/device_figures.h"
#include "xlite/tools/flag_checks.h"
#include "xlite/tools/input.h"
#include "xlite/tools/report_output.h"
#include "xlite/tools/reports/cost_report.h"

namespace xlite::tools {
namespace {

struct CostOptionsCli {
  InputOptions input;
  std::string device = "h100";
  int64_t top = 20;
  bool json = false;
  bool xla_compat = false;
  GroupBy group_by = GroupBy::kNone;
  bool spmd = false;  // partition first: the per-device program's cost
  std::string save_compiled;
};

std::string FormatSeconds(double s) {
  if (s == 0) return "0 s";
  if (s < 1e-6) return absl::StrFormat("%.3g ns", s * 1e9);
  if (s < 1e-3) return absl::StrFormat("%.3g us", s * 1e6);
  if (s < 1) return absl::StrFormat("%.3g ms", s * 1e3);
  return absl::StrFormat("%.3g s", s);
}

std::string ReportText(const CostReport& report, const DeviceSpec& device, bool per_device,
                       bool xla_compat, int64_t top, GroupBy group_by) {
  const Cost& total = report.cost.total;
  std::string out;
  absl::StrAppendFormat(&out, "module: %s\n", report.module);
  absl::StrAppendFormat(&out, "device: %s%s\n", device.name,
                        device.description.empty() ? "" : " (" + device.description + ")");
  if (!per_device) absl::StrAppend(&out, "note: ", kGlobalFiguresNote, "\n");
  absl::StrAppendFormat(&out, "flops: %.6g\n", total.flops);
  absl::StrAppendFormat(&out, "transcendentals: %.6g\n", total.transcendentals);
  absl::StrAppendFormat(&out, "bytes accessed: %s\n", ApproxBytesText(total.bytes_accessed));
  absl::StrAppendFormat(&out, "arithmetic intensity: %.3g flops/byte\n", Intensity(total));
  absl::StrAppendFormat(&out, "estimated time: %s (%s-bound)\n", FormatSeconds(report.seconds),
                        BoundName(report.bound));
  absl::StrAppendFormat(
      &out, "  in compute-bound instructions: %s, memory-bound: %s, interconnect-bound: %s\n",
      FormatSeconds(report.seconds_by_bound[static_cast<int>(Bound::kCompute)]),
      FormatSeconds(report.seconds_by_bound[static_cast<int>(Bound::kMemory)]),
      FormatSeconds(report.seconds_by_bound[static_cast<int>(Bound::kInterconnect)]));
  if (report.cost.loops_with_unknown_trip_count > 0) {
    absl::StrAppendFormat(&out, "note: %d while loops with unknown trip count counted once\n",
                          report.cost.loops_with_unknown_trip_count);
  }
  if (report.cost.custom_calls > 0) {
    absl::StrAppendFormat(&out, "note: %d custom-calls: %s\n", report.cost.custom_calls,
                          xla_compat ? "unknown, counted as XLA does (-1 flops, -1 bytes each)"
                                     : "bytes counted, flops unknown (0)");
  }
  const size_t rows = RowCount(report, top);
  absl::StrAppendFormat(&out, "top %d of %d instructions by estimated time:\n", rows,
                        report.rows.size());
  absl::StrAppendFormat(&out, "  %10s %6s %-12s %12s %12s %8s  %s\n", "time", "share", "bound",
                        "flops", "bytes", "runs", "instruction [op_name] at source");
  for (size_t i = 0; i < rows; ++i) {
    const Row& row = report.rows[i];
    const HloInstruction& inst = *row.entry->instruction;
    const double share = report.seconds > 0 ? 100 * row.time.seconds / report.seconds : 0;
    std::string label = absl::StrCat(AsAbsl(inst.name()), " = ", AsAbsl(OpcodeName(inst.opcode())));
    if (!inst.metadata().op_name.empty()) {
      absl::StrAppend(&label, " [", inst.metadata().op_name, "]");
    }
    if (!row.source.empty()) absl::StrAppend(&label, " at ", row.source);
    absl::StrAppendFormat(&out, "  %10s %5.1f%% %-12s %12.6g %12s %8.6g  %s\n",
                          FormatSeconds(row.time.seconds), share, BoundName(row.time.bound),
                          row.entry->cost.flops,
                          ApproxBytesText(row.entry->cost.bytes_accessed, /*with_exact=*/false),
                          row.entry->executions, label);
  }
  if (group_by != GroupBy::kNone) {
    out += GroupTableText(GroupCostRows(report, group_by), [](size_t figure, double value) {
      if (figure == 0) return FormatSeconds(value);
      if (figure == 1) return absl::StrFormat("%.6g", value);
      return ApproxBytesText(value, /*with_exact=*/false);
    });
  }
  return out;
}

int RunCost(const CostOptionsCli& options) {
  int exit_code = kExitOk;
  std::optional<DeviceSpec> device = LoadDeviceOrReport(options.device, &exit_code);
  if (!device.has_value()) return exit_code;
  std::vector<LoadedModule> modules;
  if (!LoadVerifiedModules(options.input, &modules)) return kExitInvalidInput;
  const CostOptions cost_options = options.xla_compat ? CostOptions::XlaCompat() : CostOptions();
  std::string text;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (size_t i = 0; i < modules.size(); ++i) {
    if (options.spmd) {
      compiler::CompileOptions compile;
      compile.partition = true;
      absl::StatusOr<compiler::CompileResult> compiled =
          compiler::Compile(*modules[i].module, compile);
      if (!compiled.ok()) {
        PrintError(absl::StrCat(modules[i].location,
                                ": error: partitioning failed: ", compiled.status().message()));
        return kExitInvalidInput;
      }
      for (const std::string& warning : compiled->warnings) {
        PrintError(absl::StrCat(modules[i].location, ": warning: ", warning));
      }
    }
    if (!options.save_compiled.empty() && i == 0) {
      absl::Status saved = WriteBinaryFile(options.save_compiled, PrintModule(*modules[i].module));
      if (!saved.ok()) {
        PrintError(absl::StrCat("error: ", saved.message()));
        return kExitInvalidInput;
      }
    }
    absl::StatusOr<ModuleCost> cost = AnalyzeModuleCost(*modules[i].module, cost_options);
    if (!cost.ok()) {
      PrintError(absl::StrCat(modules[i].location, ": error: ", cost.status().message()));
      return kExitInvalidInput;
    }
    const bool per_device = FiguresArePerDevice(*modules[i].module);
    CostReport report = MakeCostReport(*modules[i].module, std::move(*cost), *device);
    if (options.json) {
      all.push_back(CostReportJson(report, *device, per_device, options.top, options.group_by));
    } else {
      if (i > 0) text += "// -----\n";
      text += ReportText(report, *device, per_device, options.xla_compat, options.top,
                         options.group_by);
    }
  }
  PrintReports(options.input, options.json, all, text);
  return kExitOk;
}

}  // namespace

void AddCostCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<CostOptionsCli>();
  CLI::App* command = app.add_subcommand(
      "cost",
      "Count flops, transcendentals and bytes accessed (XLA's HloCostAnalysis "
      "conventions) and estimate the time on a device with a roofline: per "
      "instruction max(flops / peak FLOP/s of its element type + "
      "transcendentals / transcendental rate, bytes / memory bandwidth, "
      "a collective's alpha-beta time over its replica group as `xlite "
      "sched` prices it), summed. Prints "
      "the totals and the instructions that take longest. Unlike XLA, a shape "
      "without a layout is sized with the default layout, and while loops "
      "with a known trip count (backend_config known_trip_count, or the "
      "canonical counter pattern) are counted trip-count times, and custom-calls "
      "count their bytes (--xla-compat counts one iteration and each "
      "custom-call as -1 flops and -1 bytes, as XLA does). While and call instructions are "
      "listed as their callees' instructions, with how often they run.");
  AddInputOptions(*command, &options->input);
  command
      ->add_option("--device", options->device,
                   "Device: h100, h200, tpu-v5e, tpu-v5p, host (measured by `xlite "
                   "calibrate`), or a path to a JSON spec")
      ->capture_default_str();
  command->add_option("--top", options->top, "Instructions to list (0 = all)")
      ->capture_default_str()
      ->check(IntegerIn(0, std::numeric_limits<int64_t>::max()));
  command->add_flag("--json", options->json, "Print JSON instead of text");
  AddGroupByOption(*command, "every instruction's time, flops and bytes", &options->group_by);
  command->add_flag("--spmd", options->spmd,
                    "Partition first (the compile pipeline's partition stage, as `xlite run "
                    "--spmd`) and cost the per-device program");
  command->add_option("--save-compiled", options->save_compiled,
                      "Write the module costed to this file (with --spmd: the per-device "
                      "program)");
  command->add_flag("--xla-compat", options->xla_compat,
                    "Reproduce XLA's HloCostAnalysis numbers: count each while loop once "
                    "and every custom-call as unknown (-1 flops, -1 bytes)");
  command->callback([options, exit_code] { *exit_code = RunCost(*options); });
}

}  // namespace xlite::tools
