// `xlite stats`: summary numbers of each module, as text or JSON.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "xlite/base/byte_text.h"
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
  absl::StrAppendFormat(out, "%s: %d (%s)\n", title, shapes.size(), BytesText(total));
  for (size_t i = 0; i < shapes.size(); ++i) {
    const ShapeBytes& s = shapes[i];
    absl::StrAppendFormat(out, "  %d%s: %s %s%s\n", i, s.name.empty() ? "" : " " + s.name, s.shape,
                          BytesText(s.bytes, /*with_exact=*/false),
                          s.sharding.empty() ? "" : ", sharding=" + s.sharding);
  }
}

void AppendAliases(const ModuleStats& stats, std::string* out) {
  absl::StrAppendFormat(out, "aliasing: %d\n", stats.aliases.size());
  for (const AliasStats& a : stats.aliases) {
    absl::StrAppendFormat(out, "  output %s <- parameter %d %s (%s)\n", a.output_index, a.parameter,
                          a.parameter_index, a.must_alias ? "must-alias" : "may-alias");
  }
  if (stats.buffer_donors.empty()) return;
  absl::StrAppendFormat(out, "buffer donors: %d\n", stats.buffer_donors.size());
  for (const AliasStats& d : stats.buffer_donors) {
    absl::StrAppendFormat(out, "  parameter %d %s\n", d.parameter, d.parameter_index);
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
  absl::StrAppendFormat(&out, "topology: %d replica%s x %d partition%s\n", stats.replica_count,
                        stats.replica_count == 1 ? "" : "s", stats.num_partitions,
                        stats.num_partitions == 1 ? "" : "s");
  absl::StrAppendFormat(&out, "computations: %d\n", stats.computations);
  absl::StrAppendFormat(&out, "instructions: %d\n", stats.instructions);
  AppendShapeList("entry parameters", stats.parameters, stats.parameter_bytes, &out);
  AppendShapeList("outputs", stats.outputs, stats.output_bytes, &out);
  AppendAliases(stats, &out);
  absl::StrAppendFormat(&out, "constants: %d (%s)\n", stats.constants,
                        BytesText(stats.constant_bytes));
  AppendCounts("collectives", stats.collectives, &out);
  AppendCounts("opcodes", stats.opcodes, &out);
  return out;
}

nlohmann::ordered_json ShapesJson(const std::vector<ShapeBytes>& shapes) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ShapeBytes& s : shapes) {
    nlohmann::ordered_json item = {{"shape", s.shape}, {"bytes", s.bytes}};
    if (!s.name.empty()) item["name"] = s.name;
    item["sharding"] =
        s.sharding.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s.sharding);
    list.push_back(std::move(item));
  }
  return list;
}

nlohmann::ordered_json AliasesJson(const std::vector<AliasStats>& aliases, bool donors) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const AliasStats& a : aliases) {
    nlohmann::ordered_json item;
    if (!donors) item["output_index"] = a.output_index;
    item["parameter"] = a.parameter;
    item["parameter_index"] = a.parameter_index;
    if (!donors) item["must_alias"] = a.must_alias;
    list.push_back(std::move(item));
  }
  return list;
}

nlohmann::ordered_json StatsJson(const ModuleStats& stats) {
  nlohmann::ordered_json json;
  json["module"] = stats.name;
  json["replica_count"] = stats.replica_count;
  json["num_partitions"] = stats.num_partitions;
  json["computations"] = stats.computations;
  json["instructions"] = stats.instructions;
  json["entry_parameters"] = ShapesJson(stats.parameters);
  json["entry_parameter_bytes"] = stats.parameter_bytes;
  json["outputs"] = ShapesJson(stats.outputs);
  json["output_bytes"] = stats.output_bytes;
  json["input_output_alias"] = AliasesJson(stats.aliases, /*donors=*/false);
  json["buffer_donors"] = AliasesJson(stats.buffer_donors, /*donors=*/true);
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
                         "Print summary numbers of each module: topology (replicas, partitions), "
                         "computations, instructions, entry parameters (names, shapes, bytes, "
                         "shardings) and outputs, aliasing (input_output_alias, buffer donors), "
                         "constant bytes, collectives by opcode and the opcode histogram (by "
                         "count, then name).");
  AddInputOptions(*command, &options->input);
  command->add_flag("--json", options->json, "Print JSON instead of text");
  command->callback([options, exit_code] { *exit_code = RunStats(*options); });
}

}  // namespace xlite::tools
