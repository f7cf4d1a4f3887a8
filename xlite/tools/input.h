// Reading the modules a subcommand works on: a file or `-` (stdin), whole or
// split on `// -----` lines, each piece parsed with positions in the file.
#ifndef XLITE_TOOLS_INPUT_H_
#define XLITE_TOOLS_INPUT_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/ir/module.h"
#include "xlite/text/parser.h"

namespace xlite::tools {

// The input options every subcommand takes.
struct InputOptions {
  std::string path;
  bool split_input_file = false;
};
// Adds the positional `input` (a path or `-`) and `--split-input-file`.
void AddInputOptions(CLI::App& command, InputOptions* options);

// The text of one input and the name used in error messages.
struct Source {
  std::string name;
  std::string_view text;  // into `storage`
  // A read-only mapping of a regular file (no copy, no zeroed pages), or the
  // bytes read from a pipe or stdin.
  std::shared_ptr<const void> storage;
};
// Reads a file, or stdin for `-`.
absl::StatusOr<Source> ReadSource(const std::string& path);

// How every subcommand parses: errors name `filename` (lines shifted by
// `line_offset`), and omitted result shapes are inferred by xlite/analysis.
ParseOptions UserParseOptions(std::string_view filename, int64_t line_offset = 0);

struct LoadedModule {
  LoadedModule(std::unique_ptr<HloModule> module, std::string location)
      : module(std::move(module)), location(std::move(location)) {}
  LoadedModule(LoadedModule&&) = default;
  LoadedModule& operator=(LoadedModule&&) = default;
  // A command runs once per process: the module is released, not freed, and
  // the kernel reclaims it at exit (compilers' -disable-free); tearing down a
  // large module costs a good part of what parsing it does.
  ~LoadedModule() { (void)module.release(); }

  std::unique_ptr<HloModule> module;
  // `file:line` where the module's text starts, for errors found later.
  std::string location;
};
// Reads and parses the input. Every chunk is parsed even after a failing one,
// so that one run reports all errors (on stderr). Returns false when the
// input could not be read or any chunk failed to parse.
bool LoadModules(const InputOptions& options, std::vector<LoadedModule>* modules);
// LoadModules, then the verifier on every module, each violation printed as
// `file:line: error: ...`; false when any step failed. For commands whose
// analyses index shapes by the attributes (only verified modules are safe).
bool LoadVerifiedModules(const InputOptions& options, std::vector<LoadedModule>* modules);

// Writes one error line (or block) to stderr.
void PrintError(absl::string_view message);

// The device spec `--device NAME` names (a known name or a JSON file); on
// failure prints the error and sets `exit_code`: usage for a name we do not
// know, invalid input for a spec file that cannot be read or is wrong.
std::optional<DeviceSpec> LoadDeviceOrReport(const std::string& name, int* exit_code);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_INPUT_H_
