#include "xlite/tools/input.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "xlite/analysis/shape_inference.h"
#include "xlite/tools/out_of_memory.h"

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
  SetActivity(absl::StrCat("reading ", path));
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: cannot open file: ", std::strerror(errno)));
  }
  // A regular file is read in one piece into a string of its size; anything
  // else (a pipe, a device) is streamed.
  std::streamoff size = file.seekg(0, std::ios::end) ? std::streamoff(file.tellg()) : -1;
  if (size >= 0 && file.seekg(0)) {
    source.text.resize(static_cast<size_t>(size));
    file.read(source.text.data(), size);
    source.text.resize(static_cast<size_t>(file.gcount()));
  }
  if (size < 0 || !file) {
    file.clear();
    std::ostringstream text;
    text << file.rdbuf();
    source.text += std::move(text).str();
  }
  if (file.bad()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: cannot read file: ", std::strerror(errno)));
  }
  return source;
}

ParseOptions UserParseOptions(std::string_view filename, int64_t line_offset) {
  ParseOptions options;
  options.filename = filename;
  options.line_offset = line_offset;
  options.infer_shape = &InferOmittedShape;
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
  SetActivity(absl::StrCat("parsing ", source->name));
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
  SetActivity(absl::StrCat("processing the modules of ", source->name));
  return all_parsed;
}

void PrintError(absl::string_view message) {
  std::cerr << message;
  if (message.empty() || message.back() != '\n') std::cerr << '\n';
}

}  // namespace xlite::tools
