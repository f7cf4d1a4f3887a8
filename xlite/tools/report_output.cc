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

}  // namespace xlite::tools
