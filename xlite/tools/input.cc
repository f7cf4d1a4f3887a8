#include "xlite/tools/input.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace xlite::tools {

void AddInputOptions(CLI::App& command, InputOptions* options) {
  command.add_option("input", options->path, "HLO text file, or - for stdin")
      ->required();
  command.add_flag("--split-input-file", options->split_input_file,
                   "Treat lines `// -----` as separators between modules");
}

absl::StatusOr<Source> ReadSource(const std::string& path) {
  Source source;
  if (path == "-") {
    source.name = "<stdin>";
    source.text.assign(std::istreambuf_iterator<char>(std::cin), {});
    if (std::cin.bad()) {
      return absl::InvalidArgumentError("error: cannot read <stdin>");
    }
    return source;
  }
  source.name = path;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: cannot open file: ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: cannot read file: ", std::strerror(errno)));
  }
  source.text = std::move(text).str();
  return source;
}

ParseOptions UserParseOptions(std::string_view filename, int64_t line_offset) {
  ParseOptions options;
  options.filename = filename;
  options.line_offset = line_offset;
  return options;
}

bool LoadModules(const InputOptions& options, std::vector<LoadedModule>* modules) {
  absl::StatusOr<Source> source = ReadSource(options.path);
  if (!source.ok()) {
    PrintError(source.status().message());
    return false;
  }
  std::vector<InputChunk> chunks;
  if (options.split_input_file) {
    chunks = SplitInputFile(source->text);
  } else {
    chunks.push_back({source->text, 0});
  }
  bool all_parsed = true;
  for (const InputChunk& chunk : chunks) {
    absl::StatusOr<std::unique_ptr<HloModule>> module =
        ParseHloModule(chunk.text, UserParseOptions(source->name, chunk.first_line));
    if (!module.ok()) {
      PrintError(module.status().message());
      all_parsed = false;
      continue;
    }
    modules->push_back({*std::move(module),
                        absl::StrCat(source->name, ":", chunk.first_line + 1)});
  }
  return all_parsed;
}

void PrintError(absl::string_view message) {
  std::cerr << message;
  if (message.empty() || message.back() != '\n') std::cerr << '\n';
}

}  // namespace xlite::tools
