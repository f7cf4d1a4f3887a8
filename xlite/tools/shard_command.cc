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
#include "xlite/analysis/verifier.h"
#include "xlite/base/file_io.h"
#include "xlite/base/status.h"
#include "xlite/compiler/compile.h"
#include "xlite/sched/async_pairs.h"
#include "xlite/sched/latency_model.h"
#include "xlite/spmd/partition_report.h"
#include "xlite/spmd/partitioner.h"
#include "xlite/spmd/propagation.h"
#include "xlite/text/printer.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/input.h"
#include "xlite/tools/report_output.h"

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

std::string LeafSharding(const HloInstruction& inst, int64_t leaf) {
  if (!inst.has_sharding()) return "none";
  if (inst.sharding().IsTuple()) {
    const auto& e = inst.sharding().tuple_elements();
    return leaf < static_cast<int64_t>(e.size()) ? PrintSharding(e[leaf]) : "none";
  }
  return PrintSharding(inst.sharding());
}

// The first --explain name that no instruction of any module has, said as
// an error; nothing when every name is found.
std::optional<std::string> UnknownExplainName(const ShardOptions& options,
                                              const std::vector<LoadedModule>& modules) {
  for (const std::string& wanted : options.explain_names) {
    const std::string name(absl::StripPrefix(wanted, "%"));
    bool found = false;
    for (const LoadedModule& loaded : modules) {
      for (const auto& computation : loaded.module->computations()) {
        for (const auto& inst : computation->instructions()) found = found || inst->name() == name;
      }
    }
    if (!found) return absl::StrCat("no instruction %", name, " in ", options.input.path);
  }
  return std::nullopt;
}

bool Wanted(const ShardOptions& options, const HloInstruction& inst) {
  if (options.explain_names.empty()) return true;
  for (const std::string& name : options.explain_names) {
    if (name == inst.name() || name == absl::StrCat("%", inst.name())) return true;
  }
  return false;
}

nlohmann::ordered_json OriginJson(const spmd::PropagationResult& result,
                                  const spmd::InstructionOrigins& origins, int64_t leaf) {
  const spmd::ShardingOrigin& o = origins.leaves[leaf];
  static constexpr const char* kKinds[] = {"none",     "annotation", "forward",
                                           "backward", "linked",     "rule"};
  nlohmann::ordered_json j = {{"kind", kKinds[static_cast<int>(o.kind)]},
                              {"sharding", LeafSharding(*origins.instruction, leaf)}};
  if (o.from != nullptr) j["from"] = o.from->name();
  if (!o.rule.empty()) j["rule"] = std::string(o.rule);
  if (o.kind != spmd::ShardingOrigin::Kind::kAnnotation &&
      o.kind != spmd::ShardingOrigin::Kind::kNone) {
    j["aggressiveness"] = o.aggressiveness;
    j["merged"] = o.merged;
  }
  j["chain"] = result.Chain(origins, leaf);
  if (!o.conflicts.empty()) j["conflicts"] = o.conflicts;
  return j;
}

nlohmann::ordered_json SummaryJson(const spmd::PartitionSummary& s) {
  nlohmann::ordered_json values = nlohmann::ordered_json::array();
  for (const spmd::PartitionSummary::Value& v : s.largest_values) {
    values.push_back(
        {{"bytes", v.bytes}, {"computation", v.computation}, {"name", v.name}, {"shape", v.shape}});
  }
  nlohmann::ordered_json kinds = nlohmann::ordered_json::array();
  for (const spmd::PartitionSummary::Kind& k : s.kinds) {
    nlohmann::ordered_json kind = {
        {"kind", k.kind}, {"count", k.count}, {"bytes_per_device", k.bytes}};
    if (k.seconds.has_value()) kind["seconds"] = *k.seconds;
    kinds.push_back(std::move(kind));
  }
  nlohmann::ordered_json collectives = nlohmann::ordered_json::array();
  for (size_t i = 0; i < s.collectives.size(); ++i) {
    const spmd::InsertedCollective& c = s.collectives[i];
    nlohmann::ordered_json j = {{"kind", c.kind},
                                {"name", c.name},
                                {"computation", c.computation},
                                {"bytes_per_device", c.bytes},
                                {"reason", c.reason},
                                {"producer", c.producer},
                                {"producer_sharding", c.producer_sharding},
                                {"consumer", c.consumer},
                                {"needed_sharding", c.needed_sharding}};
    if (s.collective_seconds[i].has_value()) j["seconds"] = *s.collective_seconds[i];
    collectives.push_back(std::move(j));
  }
  nlohmann::ordered_json fallbacks = nlohmann::ordered_json::array();
  for (const spmd::PartitionFallback& f : s.fallbacks) {
    fallbacks.push_back({{"instruction", f.instruction},
                         {"opcode", f.opcode},
                         {"computation", f.computation},
                         {"reason", f.reason}});
  }
  return {{"partitions", s.num_partitions},
          {"parameter_bytes_per_device", s.parameter_bytes},
          {"output_bytes_per_device", s.output_bytes},
          {"largest_values", values},
          {"collectives_by_kind", kinds},
          {"collectives", collectives},
          {"fallbacks", fallbacks}};
}

// What `shard` prints of the propagated module: per instruction its
// sharding (with the chain and conflicts), or the same as JSON, and totals.
struct PropagationView {
  std::string text;  // the instruction listing, or the module with --print-module
  nlohmann::ordered_json instructions = nlohmann::ordered_json::array();
  int64_t total = 0, annotated = 0, conflicts = 0, unsharded = 0, rounds = 0;
};

PropagationView DescribePropagation(const ShardOptions& options, const HloModule& module,
                                    const spmd::PropagationResult& result) {
  PropagationView view;
  const HloComputation* computation = nullptr;
  for (const spmd::InstructionOrigins& origins : result.instructions) {
    const HloInstruction& inst = *origins.instruction;
    for (const spmd::ShardingOrigin& o : origins.leaves) {
      view.annotated += o.kind == spmd::ShardingOrigin::Kind::kAnnotation;
      view.conflicts += static_cast<int64_t>(o.conflicts.size());
    }
    if (!Wanted(options, inst)) continue;
    if (options.json) {
      nlohmann::ordered_json leaves = nlohmann::ordered_json::array();
      for (size_t l = 0; l < origins.leaves.size(); ++l) {
        leaves.push_back(OriginJson(result, origins, static_cast<int64_t>(l)));
      }
      view.instructions.push_back(
          {{"computation", inst.parent()->name()},
           {"name", inst.name()},
           {"sharding", inst.has_sharding() ? PrintSharding(inst.sharding()) : "none"},
           {"leaves", leaves}});
      continue;
    }
    if (options.print_module) continue;
    if (inst.parent() != computation) {
      computation = inst.parent();
      absl::StrAppend(&view.text, computation->name(), ":\n");
    }
    absl::StrAppend(&view.text, "  %", inst.name(), " = ",
                    inst.has_sharding() ? PrintSharding(inst.sharding()) : "none", "\n");
    for (size_t l = 0; l < origins.leaves.size(); ++l) {
      const spmd::ShardingOrigin& o = origins.leaves[l];
      const std::string prefix =
          origins.leaves.size() > 1 ? absl::StrCat("    {", l, "} ") : std::string("    ");
      if (options.explain) {
        absl::StrAppend(&view.text, prefix, result.Chain(origins, static_cast<int64_t>(l)), "\n");
      }
      for (const std::string& c : o.conflicts)
        absl::StrAppend(&view.text, prefix, "conflict: ", c, "\n");
    }
  }
  view.total = static_cast<int64_t>(result.instructions.size());
  view.unsharded = result.unsharded;
  view.rounds = result.fixed_point_rounds;
  if (options.print_module && !options.json) view.text = PrintModule(module);
  return view;
}

// The partition report of a compiled module, timing collectives on `device`
// when there is one.
spmd::PartitionSummary Summarize(const compiler::CompileResult& compiled, const HloModule& module,
                                 const DeviceSpec* device) {
  std::unique_ptr<LatencyModel> model;
  spmd::CollectiveSeconds seconds;
  if (device != nullptr) {
    model = std::make_unique<LatencyModel>(*device);
    seconds = [&model](const HloInstruction& inst) -> std::optional<double> {
      if (!CollectiveKindOf(inst).has_value()) return std::nullopt;
      return model->Collective(inst).seconds;
    };
  }
  return spmd::SummarizePartition(*compiled.partition, *compiled.entry, module, seconds);
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
  nlohmann::ordered_json json_modules = nlohmann::ordered_json::array();
  for (LoadedModule& loaded : modules) {
    HloModule& module = *loaded.module;
    // Propagation alone, or the compile pipeline's partition stage (which
    // propagates the same way and reports through the hook).
    std::optional<PropagationView> view;
    auto describe = [&](const HloModule& propagated, const spmd::PropagationResult& result) {
      view = DescribePropagation(options, propagated, result);
      return absl::OkStatus();
    };
    std::optional<spmd::PartitionSummary> summary;
    if (options.partition) {
      compiler::CompileOptions compile;
      compile.partition = true;
      compile.propagation = propagation;
      compile.after_propagation = describe;
      absl::StatusOr<compiler::CompileResult> compiled = compiler::Compile(module, compile);
      if (!compiled.ok()) {
        PrintError(absl::StrCat(loaded.location,
                                ": error: ", view.has_value() ? "partitioning failed: " : "",
                                compiled.status().message()));
        ok = false;
      } else {
        for (const std::string& warning : compiled->warnings) {
          PrintError(absl::StrCat(loaded.location, ": warning: ", warning));
        }
        summary = Summarize(*compiled, module, device.has_value() ? &*device : nullptr);
        if (!options.save_compiled.empty()) {
          absl::Status saved = WriteBinaryFile(options.save_compiled, PrintModule(module));
          if (!saved.ok()) {
            PrintError(absl::StrCat("error: ", saved.message()));
            return kExitInvalidInput;
          }
        }
      }
    } else {
      absl::StatusOr<spmd::PropagationResult> result =
          spmd::PropagateShardings(module, propagation);
      if (!result.ok()) {
        PrintError(absl::StrCat(loaded.location, ": error: ", result.status().message()));
        ok = false;
        continue;
      }
      absl::Status verified = VerifyModule(module);
      if (!verified.ok()) {
        PrintError(absl::StrCat(loaded.location,
                                ": error: the module after sharding-propagation does not verify: ",
                                verified.message()));
        ok = false;
      }
      (void)describe(module, *result);
    }
    if (!view.has_value()) continue;
    if (options.json) {
      nlohmann::ordered_json json_module = {
          {"module", module.name()},      {"instructions", view->instructions},
          {"total", view->total},         {"annotated_values", view->annotated},
          {"unsharded", view->unsharded}, {"conflicts", view->conflicts},
          {"rounds", view->rounds}};
      if (summary.has_value()) json_module["partition"] = SummaryJson(*summary);
      json_modules.push_back(std::move(json_module));
      continue;
    }
    std::cout << view->text;
    if (summary.has_value()) std::cout << spmd::FormatPartitionReport(*summary);
    std::cout << module.name() << ": " << view->total << " instructions, " << view->annotated
              << " annotated values, " << view->unsharded << " without a sharding, "
              << view->conflicts << " conflicts, " << view->rounds << " rounds\n";
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
