// `xlite autoshard`: finds shardings for a module on a device mesh
// (xlite/spmd/autoshard/auto_sharding.h), writes the annotated module, and with
// --explain or --json says what each choice costs next to the best
// rejected one and the plan next to fully replicated, data-parallel and the
// module's own shardings.
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xlite/analysis/verifier.h"
#include "xlite/base/byte_text.h"
#include "xlite/base/file_io.h"
#include "xlite/spmd/autoshard/auto_sharding.h"
#include "xlite/text/printer.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/device_figures.h"
#include "xlite/tools/flag_checks.h"
#include "xlite/tools/input.h"
#include "xlite/tools/report_output.h"

namespace xlite::tools {
namespace {

struct AutoshardOptions {
  InputOptions input;
  std::string mesh;
  std::string device = "h100";
  int64_t memory_limit = 0;  // 0: the device's memory
  double time_limit = 10;
  bool keep_annotations = false;
  bool json = false;
  bool explain = false;
  std::string output;
};

std::string Bytes(double bytes) { return ApproxBytesText(bytes, /*with_exact=*/false); }

nlohmann::ordered_json TotalsJson(const spmd::PlanTotals& t) {
  return {{"seconds", t.seconds},
          {"compute_seconds", t.compute_seconds},
          {"communication_seconds", t.communication_seconds},
          {"peak_bytes_per_device", t.memory_bytes},
          {"peak_at", t.peak_at},
          {"fits", t.fits}};
}

nlohmann::ordered_json OptionJson(const spmd::ShardingChoice::Option& o) {
  return {{"sharding", o.sharding},
          {"spec", o.description},
          {"compute_seconds", o.compute_seconds},
          {"communication_seconds", o.communication_seconds},
          {"memory_bytes", o.memory_bytes},
          {"seconds", o.seconds},
          {"over_memory_limit", o.over_memory_limit}};
}

nlohmann::ordered_json ResultJson(const HloModule& module, const spmd::DeviceMesh& mesh,
                                  const DeviceSpec& device, const spmd::AutoShardResult& r) {
  nlohmann::ordered_json choices = nlohmann::ordered_json::array();
  for (const spmd::ShardingChoice& c : r.choices) {
    nlohmann::ordered_json j = {
        {"name", c.instruction}, {"opcode", c.opcode}, {"chosen", OptionJson(c.chosen)}};
    if (c.rejected.has_value()) j["best_rejected"] = OptionJson(*c.rejected);
    choices.push_back(std::move(j));
  }
  nlohmann::ordered_json baselines = {{"replicated", TotalsJson(r.replicated)}};
  nlohmann::ordered_json dp = {{"note", r.data_parallel_note}};
  if (r.data_parallel.has_value()) dp.update(TotalsJson(*r.data_parallel));
  baselines["data_parallel"] = dp;
  nlohmann::ordered_json user = {
      {"note", r.user_plan.has_value() ? r.user_plan_note : "the module has no shardings"}};
  if (r.user_plan.has_value()) user.update(TotalsJson(*r.user_plan));
  baselines["user"] = user;
  return {{"module", module.name()},    {"mesh", {{"shape", mesh.sizes}, {"axes", mesh.names}}},
          {"device", device.name},      {"memory_limit_bytes", r.memory_limit},
          {"solver", r.solver},         {"search_seconds", r.search_seconds},
          {"nodes", r.nodes},           {"strategies", r.strategies},
          {"edges", r.edges},           {"annotated", r.annotated},
          {"plan", TotalsJson(r.plan)}, {"baselines", baselines},
          {"shardings", choices}};
}

std::string TotalsText(const char* name, const spmd::PlanTotals& t, double limit) {
  return absl::StrFormat("  %-14s %12s %12s %12s %12s at %%%s%s\n", name, SecondsText(t.seconds),
                         SecondsText(t.compute_seconds), SecondsText(t.communication_seconds),
                         Bytes(t.memory_bytes), t.peak_at,
                         t.fits ? "" : absl::StrCat("  (over the limit of ", Bytes(limit), ")"));
}

std::string OptionText(const spmd::ShardingChoice::Option& o) {
  return absl::StrFormat(
      "%s  compute %s, communication %s%s", o.description, SecondsText(o.compute_seconds),
      SecondsText(o.communication_seconds),
      o.memory_bytes > 0 ? absl::StrCat(", memory ", Bytes(o.memory_bytes)) : "");
}

std::string ExplainText(const HloModule& module, const spmd::DeviceMesh& mesh,
                        const DeviceSpec& device, const spmd::AutoShardResult& r) {
  std::string out;
  absl::StrAppendFormat(&out, "module: %s\nmesh: %s (%d devices)\ndevice: %s\n", module.name(),
                        mesh.ToString(), mesh.num_devices(), device.name);
  absl::StrAppendFormat(&out, "search: %s, %d instructions, %d strategies, %d edges, %.3f s\n",
                        r.solver, r.nodes, r.strategies, r.edges, r.search_seconds);
  absl::StrAppendFormat(&out,
                        "chosen shardings of the %d instructions that matter (of %d annotated; "
                        "compute and communication per device; rejected: the best other "
                        "strategy):\n",
                        r.choices.size(), r.annotated);
  for (const spmd::ShardingChoice& c : r.choices) {
    absl::StrAppendFormat(&out, "  %%%s (%s) = %s\n", c.instruction, c.opcode, c.chosen.sharding);
    absl::StrAppendFormat(&out, "    chosen   %s\n", OptionText(c.chosen));
    if (c.rejected.has_value()) {
      absl::StrAppendFormat(&out, "    rejected %s  (+%s%s)\n", OptionText(*c.rejected),
                            SecondsText(c.rejected->seconds - c.chosen.seconds),
                            c.rejected->over_memory_limit ? ", over the memory limit" : "");
    }
  }
  absl::StrAppendFormat(&out, "predicted step (sum over instructions, no overlap):\n");
  absl::StrAppendFormat(&out, "  %-14s %12s %12s %12s %12s\n", "plan", "time", "compute",
                        "communication", "peak memory");
  out += TotalsText("autoshard", r.plan, r.memory_limit);
  out += TotalsText("replicated", r.replicated, r.memory_limit);
  if (r.data_parallel.has_value()) {
    out += TotalsText("data-parallel", *r.data_parallel, r.memory_limit);
  }
  if (r.user_plan.has_value()) out += TotalsText("user", *r.user_plan, r.memory_limit);
  absl::StrAppendFormat(&out, "  data-parallel: %s\n", r.data_parallel_note);
  if (r.user_plan.has_value()) absl::StrAppendFormat(&out, "  user: %s\n", r.user_plan_note);
  absl::StrAppendFormat(&out,
                        "memory limit: %s per device (every buffer live at the peak of the "
                        "module's order: parameters, optimizer state, activations)\n",
                        Bytes(r.memory_limit));
  return out;
}

int RunAutoshard(const AutoshardOptions& options) {
  absl::StatusOr<spmd::DeviceMesh> mesh = spmd::ParseMesh(options.mesh);
  if (!mesh.ok()) {
    PrintCommandError("autoshard", "", absl::StrCat("--mesh: ", mesh.status().message()));
    return kExitUsage;
  }
  int exit_code = kExitOk;
  std::optional<DeviceSpec> device = LoadDeviceOrReport(options.device, &exit_code);
  if (!device.has_value()) return exit_code;
  if (options.input.split_input_file) {
    PrintCommandError("autoshard", "", "--split-input-file: autoshard takes one module");
    return kExitUsage;
  }
  std::vector<LoadedModule> modules;
  if (!LoadVerifiedModules(options.input, &modules)) return kExitInvalidInput;
  LoadedModule& loaded = modules.front();
  HloModule& module = *loaded.module;
  spmd::AutoShardOptions shard;
  shard.mesh = *mesh;
  if (options.memory_limit > 0) shard.memory_limit = static_cast<double>(options.memory_limit);
  shard.keep_annotations = options.keep_annotations;
  shard.solver_seconds = options.time_limit;
  absl::StatusOr<spmd::AutoShardResult> result = spmd::AutoShard(module, *device, shard);
  if (!result.ok()) {
    PrintError(absl::StrCat(loaded.location, ": error: ", result.status().message()));
    return kExitInvalidInput;
  }
  absl::Status verified = VerifyModule(module);
  if (!verified.ok()) {
    PrintError(absl::StrCat(loaded.location,
                            ": error: the annotated module does not verify: ", verified.message()));
    return kExitInvalidInput;
  }
  const std::string text = PrintModule(module);
  if (!options.output.empty()) {
    absl::Status written = WriteBinaryFile(options.output, text);
    if (!written.ok()) {
      PrintCommandError("autoshard", "", written.message());
      return kExitInvalidInput;
    }
  }
  if (options.json) {
    nlohmann::ordered_json reports = nlohmann::ordered_json::array();
    reports.push_back(ResultJson(module, *mesh, *device, *result));
    PrintReports(options.input, /*json=*/true, reports, "");
  } else if (options.explain) {
    std::cout << ExplainText(module, *mesh, *device, *result);
  } else if (options.output.empty()) {
    std::cout << text;
  }
  return kExitOk;
}

}  // namespace

void AddAutoshardCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<AutoshardOptions>();
  CLI::App* command = app.add_subcommand(
      "autoshard",
      "Find a sharding for every array instruction of the entry on a device mesh (an ILP over "
      "the factor rules' strategies, priced by the cost and collective models and held to the "
      "memory limit at the peak; CBC where built in, seeded by a heuristic), write them as "
      "annotations, and set num_partitions. The module goes to -o "
      "(or stdout without --explain/--json).");
  AddInputOptions(*command, &options->input);
  command->add_option("--mesh", options->mesh, "The mesh: 8, 2x4, 2x4:data,model, 2x2x2")
      ->required();
  command
      ->add_option("--device", options->device,
                   "Device: h100, h200, tpu-v5e, tpu-v5p, host, or a path to a JSON spec")
      ->capture_default_str();
  command
      ->add_option("--memory-limit", options->memory_limit,
                   "Bytes per device live at the peak, at least 1 (default: the device's "
                   "memory)")
      ->check(IntegerIn(1, std::numeric_limits<int64_t>::max()));
  command->add_option("--time-limit", options->time_limit, "Seconds the ILP solver may take")
      ->capture_default_str()
      ->check(SecondsUpTo(kMaxTimeoutSeconds));
  command->add_flag("--keep-annotations", options->keep_annotations,
                    "Keep the module's shardings as constraints (default: drop them)");
  command->add_option("-o,--output", options->output, "Write the annotated module here");
  command->add_flag("--json", options->json, "Print the plan and its explanation as JSON");
  command->add_flag("--explain", options->explain,
                    "Print each chosen sharding's cost next to the best rejected one, and the "
                    "plan next to fully replicated, data-parallel and the module's own shardings");
  command->callback([options, exit_code] { *exit_code = RunAutoshard(*options); });
}

}  // namespace xlite::tools
