// `xlite shard`: runs sharding propagation with the module header's settings
// and prints every instruction's sharding, optionally with the chain of
// instructions it came from (--explain), the partitioning report
// (--partition, collectives timed on --device) or as JSON (--json).
#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/base/file_io.h"
#include "xlite/base/status.h"
#include "xlite/spmd/propagation.h"
#include "xlite/text/printer.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/input.h"
#include "xlite/tools/report_output.h"
#include "xlite/tools/reports/shard_report.h"

namespace xlite::tools {
namespace {

struct ShardOptions {
  InputOptions input;
  std::vector<std::string> explain_names;
  bool explain = false;
  bool json = false;
  bool print_module = false;
  bool partition = false;     // partition after propagation and print the report
  std::string device;         // times the report's collectives on it ("" = none)
  std::string save_compiled;  // with --partition: write the partitioned module
  std::string is_spmd = "true";
  std::string to_output, to_parameters;  // "" = header
};

// The first --explain name that no instruction of any module has, said as
// an error; nothing when every name is found.
std::optional<std::string> UnknownExplainName(const ShardOptions& options,
                                              const std::vector<LoadedModule>& modules) {
  for (const std::string& wanted : options.explain_names) {
    const bool found = std::any_of(modules.begin(), modules.end(), [&](const LoadedModule& loaded) {
      return HasInstructionNamed(*loaded.module, wanted);
    });
    if (!found) {
      return absl::StrCat("no instruction %", absl::StripPrefix(wanted, "%"), " in ",
                          options.input.path);
    }
  }
  return std::nullopt;
}

int RunShard(const ShardOptions& options) {
  spmd::PropagationOptions propagation;
  auto parse_flag = [](const std::string& name, const std::string& value,
                       std::optional<bool>* out) {
    if (value.empty()) return true;
    if (value != "true" && value != "false") {
      PrintError(absl::StrCat("xlite shard: ", name, " must be true or false, got '", value, "'"));
      return false;
    }
    *out = value == "true";
    return true;
  };
  std::optional<bool> is_spmd;
  if (!parse_flag("--is-spmd", options.is_spmd, &is_spmd) ||
      !parse_flag("--propagate-to-output", options.to_output, &propagation.propagate_to_output) ||
      !parse_flag("--propagate-to-parameters", options.to_parameters,
                  &propagation.propagate_to_parameters)) {
    return kExitUsage;
  }
  propagation.is_spmd = is_spmd.value_or(true);
  if (!options.save_compiled.empty() && !options.partition) {
    PrintError("xlite shard: --save-compiled needs --partition");
    return kExitUsage;
  }
  if (!options.device.empty() && !options.partition) {
    PrintError("xlite shard: --device needs --partition (it times the partitioner's collectives)");
    return kExitUsage;
  }
  std::optional<DeviceSpec> device;
  if (!options.device.empty()) {
    int exit_code = kExitOk;
    device = LoadDeviceOrReport(options.device, &exit_code);
    if (!device.has_value()) return exit_code;
  }
  std::vector<LoadedModule> modules;
  bool ok = LoadModules(options.input, &modules);
  if (std::optional<std::string> unknown = UnknownExplainName(options, modules)) {
    PrintError(absl::StrCat("xlite shard: --explain: ", *unknown));
    return kExitUsage;
  }
  ShardReportOptions report_options;
  report_options.propagation = propagation;
  report_options.partition = options.partition;
  report_options.device = device.has_value() ? &*device : nullptr;
  report_options.json = options.json;
  // --json always carries each leaf's origin; text only with --explain.
  report_options.explain = options.explain || options.json;
  report_options.print_module = options.print_module;
  report_options.names = options.explain_names;
  nlohmann::ordered_json json_modules = nlohmann::ordered_json::array();
  for (LoadedModule& loaded : modules) {
    HloModule& module = *loaded.module;
    absl::StatusOr<ShardReport> report = ReportShardings(module, report_options);
    if (!report.ok()) {
      PrintError(absl::StrCat(loaded.location, ": error: ", report.status().message()));
      ok = false;
      continue;
    }
    for (const std::string& warning : report->warnings) {
      PrintError(absl::StrCat(loaded.location, ": warning: ", warning));
    }
    if (!options.save_compiled.empty()) {
      absl::Status saved = WriteBinaryFile(options.save_compiled, PrintModule(module));
      if (!saved.ok()) {
        PrintError(absl::StrCat("error: ", saved.message()));
        return kExitInvalidInput;
      }
    }
    if (options.json) {
      json_modules.push_back(std::move(report->json));
    } else {
      std::cout << report->text;
    }
  }
  if (options.json && !json_modules.empty()) {
    PrintReports(options.input, /*json=*/true, json_modules, "");
  }
  return ok ? kExitOk : kExitInvalidInput;
}

}  // namespace

void AddShardCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<ShardOptions>();
  CLI::App* command = app.add_subcommand(
      "shard",
      "Run sharding propagation (XLA's sharding-propagation, with the module header's "
      "allow_spmd_sharding_propagation_to_* settings) and print every instruction's sharding; "
      "--explain [NAME...] (after the file) adds where each sharding came from.");
  AddInputOptions(*command, &options->input);
  CLI::Option* explain = command
                             ->add_option("--explain", options->explain_names,
                                          "Print origin chains (only for NAME... if given)")
                             ->expected(0, -1);
  command->add_flag("--json", options->json, "Print JSON (shardings, origins, chains)");
  command->add_flag("--print-module", options->print_module,
                    "Print the module with its shardings instead of the list");
  command->add_flag("--partition", options->partition,
                    "Also partition the module (spmd-partitioner) and print the report: "
                    "per-device bytes, collectives with their causes, fallbacks (in --json "
                    "under \"partition\")");
  command->add_option("--save-compiled", options->save_compiled,
                      "With --partition: write the partitioned module (the module `xlite opt "
                      "--pipeline=spmd` prints and `xlite run --spmd` runs)");
  command->add_option("--device", options->device,
                      "With --partition: estimate each collective's time on this device (h100, "
                      "h200, tpu-v5e, tpu-v5p, host, or a JSON spec), as `xlite sched` does");
  command->add_option("--is-spmd", options->is_spmd, "true (default) or false");
  command->add_option("--propagate-to-output", options->to_output,
                      "true/false for every output (default: the header's list)");
  command->add_option("--propagate-to-parameters", options->to_parameters,
                      "true/false for every parameter (default: the header's list)");
  command->callback([options, exit_code, explain] {
    options->explain = explain->count() > 0;
    // `--explain` without names arrives as one empty name.
    std::erase(options->explain_names, std::string());
    *exit_code = RunShard(*options);
  });
}

}  // namespace xlite::tools
