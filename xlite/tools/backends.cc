#include "xlite/tools/backends.h"

#include "absl/strings/str_cat.h"
#include "xlite/eval/interpreter_executable.h"

namespace xlite::tools {

std::string AvailableBackends() { return "interpreter"; }

bool IsBackend(const std::string& name) { return name == "interpreter"; }

absl::StatusOr<std::unique_ptr<runtime::Executable>> CompileForBackend(
    const std::string& backend, const HloModule& module, const runtime::CompileOptions& options) {
  (void)options;  // the interpreter has no compile-time settings
  if (backend == "interpreter") return eval::MakeInterpreterExecutable(module);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown backend '", backend, "' (available: ", AvailableBackends(), ")"));
}

}  // namespace xlite::tools
