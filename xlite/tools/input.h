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
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/analysis/verifier.h"
#include "xlite/ir/module.h"
#include "xlite/text/parser.h"
#include "xlite/text/source_positions.h"

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
  LoadedModule(std::unique_ptr<HloModule> module, std::string file, int64_t first_line)
      : module(std::move(module)),
        file(std::move(file)),
        location(absl::StrCat(this->file, ":", first_line)) {}
  LoadedModule(LoadedModule&&) = default;
  LoadedModule& operator=(LoadedModule&&) = default;
  // A command runs once per process: the module is released, not freed, and
  // the kernel reclaims it at exit (compilers' -disable-free); tearing down a
  // large module costs a good part of what parsing it does.
  ~LoadedModule() { (void)module.release(); }

  std::unique_ptr<HloModule> module;
  // The input's name, and `file:line` where the module's text starts, for
  // errors found later.
  std::string file;
  std::string location;
  // Where each instruction was written; valid until the module changes.
  SourcePositions positions;
};
// Reads and parses the input. Every chunk is parsed even after a failing one,
// so that one run reports all errors (on stderr). Returns false when the
// input could not be read or any chunk failed to parse.
bool LoadModules(const InputOptions& options, std::vector<LoadedModule>* modules);
// `file:line:col: error: text` for a violation of a module parsed with
// `positions` from `file`; `module_location` (`file:line`) for one about a
// computation or the module.
std::string ViolationMessage(std::string_view file, std::string_view module_location,
                             const SourcePositions& positions, const Violation& violation);
// Prints each violation of the verifier on a module just loaded as
// `file:line:col: error: ...` (the instruction's position; the module's for
// a violation about a computation or the module); false when there was one.
bool ReportViolations(const LoadedModule& loaded, const VerifyOptions& options);
// LoadModules, then ReportViolations on every module; false when any step
// failed. For commands whose analyses index shapes by the attributes (only
// verified modules are safe).
bool LoadVerifiedModules(const InputOptions& options, std::vector<LoadedModule>* modules);

// Writes one error line (or block) to stderr.
void PrintError(absl::string_view message);
// Writes `message` of a subcommand's failure: as it is when it already says
// where and `error:` (`file:line:col: error: ...`), else after
// `xlite COMMAND: error: `; `context` (e.g. `rank 3: `) comes first either way.
void PrintCommandError(std::string_view command, std::string_view context,
                       absl::string_view message);

// The device spec `--device NAME` names (a known name or a JSON file); on
// failure prints the error and sets `exit_code`: usage for a name we do not
// know, invalid input for a spec file that cannot be read or is wrong.
std::optional<DeviceSpec> LoadDeviceOrReport(const std::string& name, int* exit_code);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_INPUT_H_
