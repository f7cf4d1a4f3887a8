// `xlite stats`: summary numbers of each module, as text or JSON.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/input.h"
#include "xlite/tools/module_stats.h"

namespace xlite::tools {
namespace {

struct StatsOptions {
  InputOptions input;
  bool json = false;
};

void AppendShapeList(std::string_view title, const std::vector<ShapeBytes>& shapes, int64_t total,
                     std::string* out) {
  absl::StrAppendFormat(out, "%s: %d (%d bytes)\n", title, shapes.size(), total);
  for (size_t i = 0; i < shapes.size(); ++i) {
    absl::StrAppendFormat(out, "  %d: %s %d bytes\n", i, shapes[i].shape, shapes[i].bytes);
  }
}

void AppendCounts(std::string_view title,
                  const std::vector<std::pair<std::string_view, int64_t>>& counts,
                  std::string* out) {
  int64_t total = 0;
  size_t width = 0;
  for (const auto& [name, count] : counts) {
    total += count;
    width = std::max(width, name.size());
  }
  absl::StrAppendFormat(out, "%s: %d\n", title, total);
  for (const auto& [name, count] : counts) {
    absl::StrAppendFormat(out, "  %-*s %d\n", width, name, count);
  }
}

std::string StatsText(const ModuleStats& stats) {
  std::string out;
  absl::StrAppendFormat(&out, "module: %s\n", stats.name);
  absl::StrAppendFormat(&out, "computations: %d\n", stats.computations);
  absl::StrAppendFormat(&out, "instructions: %d\n", stats.instructions);
  AppendShapeList("entry parameters", stats.parameters, stats.parameter_bytes, &out);
  AppendShapeList("outputs", stats.outputs, stats.output_bytes, &out);
  absl::StrAppendFormat(&out, "constants: %d (%d bytes)\n", stats.constants, stats.constant_bytes);
  AppendCounts("collectives", stats.collectives, &out);
  AppendCounts("opcodes", stats.opcodes, &out);
  return out;
}

nlohmann::ordered_json ShapesJson(const std::vector<ShapeBytes>& shapes) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ShapeBytes& s : shapes) {
    list.push_back({{"shape", s.shape}, {"bytes", s.bytes}});
  }
  return list;
}

nlohmann::ordered_json StatsJson(const ModuleStats& stats) {
  nlohmann::ordered_json json;
  json["module"] = stats.name;
  json["computations"] = stats.computations;
  json["instructions"] = stats.instructions;
  json["entry_parameters"] = ShapesJson(stats.parameters);
  json["entry_parameter_bytes"] = stats.parameter_bytes;
  json["outputs"] = ShapesJson(stats.outputs);
  json["output_bytes"] = stats.output_bytes;
  json["constants"] = stats.constants;
  json["constant_bytes"] = stats.constant_bytes;
  json["collectives"] = nlohmann::ordered_json::object();
  for (const auto& [name, count] : stats.collectives) {
    json["collectives"][std::string(name)] = count;
  }
  json["opcodes"] = nlohmann::ordered_json::array();
  for (const auto& [name, count] : stats.opcodes) {
    json["opcodes"].push_back({{"opcode", name}, {"count", count}});
  }
  return json;
}

int RunStats(const StatsOptions& options) {
  std::vector<LoadedModule> modules;
  if (!LoadModules(options.input, &modules)) return kExitInvalidInput;
  if (options.json) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const LoadedModule& loaded : modules) {
      all.push_back(StatsJson(ComputeModuleStats(*loaded.module)));
    }
    // A split file gives an array; a single module gives its object.
    const nlohmann::ordered_json& out = options.input.split_input_file ? all : all.at(0);
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::string out;
  for (size_t i = 0; i < modules.size(); ++i) {
    if (i > 0) out += "// -----\n";
    out += StatsText(ComputeModuleStats(*modules[i].module));
  }
  std::cout << out;
  return kExitOk;
}

}  // namespace

void AddStatsCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<StatsOptions>();
  CLI::App* command =
      app.add_subcommand("stats",
                         "Print summary numbers of each module: computations, instructions, "
                         "entry parameter and output shapes with their bytes, constant bytes, "
                         "collectives by opcode and the opcode histogram (by count, then name).");
  AddInputOptions(*command, &options->input);
  command->add_flag("--json", options->json, "Print JSON instead of text");
  command->callback([options, exit_code] { *exit_code = RunStats(*options); });
}

}  // namespace xlite::tools
