#include "xlite/tools/input.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xlite/analysis/verifier.h"
#include "xlite/base/file_io.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/out_of_memory.h"

namespace xlite::tools {

void AddInputOptions(CLI::App& command, InputOptions* options) {
  command.add_option("input", options->path, "HLO text file, or - for stdin")->required();
  command.add_flag("--split-input-file", options->split_input_file,
                   "Treat lines `// -----` as separators between modules");
}

namespace {

// Keeps streamed bytes alive for a Source.
Source FromString(std::string name, std::string bytes) {
  auto owned = std::make_shared<const std::string>(std::move(bytes));
  Source source;
  source.name = std::move(name);
  source.text = *owned;
  source.storage = std::move(owned);
  return source;
}

}  // namespace

absl::StatusOr<Source> ReadSource(const std::string& path) {
  if (path == "-") {
    absl::StatusOr<std::string> text = ReadStream(STDIN_FILENO);
    if (!text.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("<stdin>: error: ", text.status().message()));
    }
    return FromString("<stdin>", *std::move(text));
  }
  SetActivity(absl::StrCat("reading ", path));
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: cannot open file: ", std::strerror(errno)));
  }
  struct stat info;
  if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
    const size_t size = static_cast<size_t>(info.st_size);
    void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (mapped == MAP_FAILED) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": error: cannot read file: ", std::strerror(errno)));
    }
    Source source;
    source.name = path;
    source.text = std::string_view(static_cast<const char*>(mapped), size);
    source.storage = std::shared_ptr<const void>(
        mapped, [size](const void* p) { munmap(const_cast<void*>(p), size); });
    return source;
  }
  // Not a regular file (a pipe, a device) or empty: streamed.
  absl::StatusOr<std::string> text = ReadStream(fd);
  close(fd);
  if (!text.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": error: ", text.status().message()));
  }
  return FromString(path, *std::move(text));
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
  SetActivity(absl::StrCat("parsing ", source->name));
  for (const InputChunk& chunk : chunks) {
    SourcePositions positions;
    ParseOptions parse_options = UserParseOptions(source->name, chunk.first_line);
    parse_options.positions = &positions;
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(chunk.text, parse_options);
    if (!module.ok()) {
      PrintError(module.status().message());
      all_parsed = false;
      continue;
    }
    modules->emplace_back(*std::move(module), source->name, chunk.first_line + 1);
    modules->back().positions = std::move(positions);
  }
  SetActivity(absl::StrCat("processing the modules of ", source->name));
  return all_parsed;
}

void PrintError(absl::string_view message) {
  std::cerr << message;
  if (message.empty() || message.back() != '\n') std::cerr << '\n';
}

void PrintCommandError(std::string_view command, std::string_view context,
                       absl::string_view message) {
  absl::string_view first_line = message.substr(0, message.find('\n'));
  if (absl::StrContains(first_line, ": error: ")) {
    PrintError(absl::StrCat(std::string(context), message));
  } else {
    PrintError(
        absl::StrCat("xlite ", std::string(command), ": error: ", std::string(context), message));
  }
}

std::optional<DeviceSpec> LoadDeviceOrReport(const std::string& name, int* exit_code) {
  absl::StatusOr<DeviceSpec> device = LoadDeviceSpec(name);
  if (device.ok()) return std::move(*device);
  PrintError(absl::StrCat("error: ", device.status().message()));
  *exit_code = absl::StartsWith(device.status().message(), "unknown device") ? kExitUsage
                                                                             : kExitInvalidInput;
  return std::nullopt;
}

std::string ViolationMessage(std::string_view file, std::string_view module_location,
                             const SourcePositions& positions, const Violation& violation) {
  std::optional<SourcePosition> position = positions.Find(violation.instruction);
  std::string where = position.has_value() ? absl::StrCat(std::string(file), ":", position->line,
                                                          ":", position->column)
                                           : std::string(module_location);
  return absl::StrCat(where, ": error: ", violation.text);
}

bool ReportViolations(const LoadedModule& loaded, const VerifyOptions& options) {
  std::vector<Violation> violations = FindViolations(*loaded.module, options);
  for (const Violation& violation : violations) {
    PrintError(ViolationMessage(loaded.file, loaded.location, loaded.positions, violation));
  }
  return violations.empty();
}

bool LoadVerifiedModules(const InputOptions& options, std::vector<LoadedModule>* modules) {
  if (!LoadModules(options, modules)) return false;
  bool ok = true;
  for (const LoadedModule& loaded : *modules) ok = ReportViolations(loaded, {}) && ok;
  return ok;
}

}  // namespace xlite::tools
