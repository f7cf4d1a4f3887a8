#include "xlite/tools/help_format.h"

#include <sstream>

namespace xlite::tools {

std::string WrapText(const std::string& text, size_t width) {
  std::string out;
  std::istringstream lines(text);
  std::string line;
  bool first_line = true;
  while (std::getline(lines, line)) {
    if (!first_line) out += '\n';
    first_line = false;
    size_t column = 0;
    std::istringstream words(line);
    std::string word;
    bool first_word = true;
    while (words >> word) {
      if (!first_word && column + 1 + word.size() > width) {
        out += '\n';
        column = 0;
      } else if (!first_word) {
        out += ' ';
        ++column;
      }
      out += word;
      column += word.size();
      first_word = false;
    }
  }
  return out;
}

std::string HelpFormatter::make_option_desc(const CLI::Option* option) const {
  return WrapText(CLI::Formatter::make_option_desc(option), kHelpColumns - get_column_width());
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
  // The first sentence: `xlite CMD --help` has the rest.
  std::string description = sub->get_description();
  if (size_t end = description.find(". "); end != std::string::npos) description.resize(end + 1);
  std::stringstream out;
  CLI::detail::format_help(out, sub->get_display_name(true),
                           WrapText(description, kHelpColumns - get_column_width()),
                           get_column_width());
  return out.str();
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  const std::string description = CLI::Formatter::make_description(app);
  return description.empty() ? description : WrapText(description, kHelpColumns) + "\n";
}

}  // namespace xlite::tools
