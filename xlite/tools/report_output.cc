#include "xlite/tools/report_output.h"

#include <iostream>

namespace xlite::tools {

void PrintReports(const InputOptions& input, bool json, const nlohmann::ordered_json& reports,
                  const std::string& text) {
  if (!json) {
    std::cout << text;
    return;
  }
  // One module prints its object alone, as scripts reading one file expect.
  const nlohmann::ordered_json& out = input.split_input_file ? reports : reports.at(0);
  std::cout << out.dump(2) << "\n";
}

void AddGroupByOption(CLI::App& command, const std::string& what, GroupBy* group_by) {
  command
      .add_option_function<std::string>(
          "--group-by",
          [group_by](const std::string& name) { *group_by = GroupByFromName(name).value(); },
          "Also sum " + what +
              " by JAX op (op_name: metadata op_name) or by source line (source: file:line "
              "of the innermost stack frame of the dump's StackFrames, or source_file/"
              "source_line)")
      ->check(CLI::IsMember({"op_name", "source"}));
}

}  // namespace xlite::tools
