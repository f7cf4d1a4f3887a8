// How `xlite --help` and `xlite CMD --help` read: descriptions wrapped at
// 100 columns under their option, the subcommand list one sentence each.
#ifndef XLITE_TOOLS_HELP_FORMAT_H_
#define XLITE_TOOLS_HELP_FORMAT_H_

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>

namespace xlite::tools {

inline constexpr size_t kHelpColumns = 100;

// `text` with each line broken at spaces to at most `width` columns.
std::string WrapText(const std::string& text, size_t width);

class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* option) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
};

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_HELP_FORMAT_H_
