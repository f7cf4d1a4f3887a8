// Output shared by the report commands (cost, mem, sched): one JSON object
// per module (an array of them with --split-input-file) or the text reports,
// and their --group-by option.
#ifndef XLITE_TOOLS_REPORT_OUTPUT_H_
#define XLITE_TOOLS_REPORT_OUTPUT_H_

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "xlite/tools/input.h"
#include "xlite/tools/reports/row_groups.h"

namespace xlite::tools {

// Prints `reports` (an array, one per module) when `json`, else `text`.
void PrintReports(const InputOptions& input, bool json, const nlohmann::ordered_json& reports,
                  const std::string& text);

// `--group-by op_name|source`, summing the rows that `what` names.
void AddGroupByOption(CLI::App& command, const std::string& what, GroupBy* group_by);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_REPORT_OUTPUT_H_
