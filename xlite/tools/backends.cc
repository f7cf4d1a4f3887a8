#include "xlite/tools/backends.h"

#include "absl/strings/str_cat.h"
#include "xlite/eval/interpreter_executable.h"
#if XLITE_HAVE_CPU_BACKEND
#include "xlite/backends/cpu/cpu_executable.h"
#include "xlite/backends/cpu/fusion.h"
#endif

namespace xlite::tools {

std::string AvailableBackends() {
#if XLITE_HAVE_CPU_BACKEND
  return "interpreter, cpu";
#else
  return "interpreter";
#endif
}

std::string DefaultBackend() {
#if XLITE_HAVE_CPU_BACKEND
  return "cpu";
#else
  return "interpreter";
#endif
}

void RegisterBackendPasses() {
#if XLITE_HAVE_CPU_BACKEND
  cpu::RegisterCpuPasses();
#endif
}

bool IsBackend(const std::string& name) {
#if XLITE_HAVE_CPU_BACKEND
  if (name == "cpu") return true;
#endif
  return name == "interpreter";
}

absl::StatusOr<std::unique_ptr<runtime::Executable>> CompileForBackend(
    const std::string& backend, const HloModule& module, const runtime::CompileOptions& options) {
  if (backend == "interpreter") return eval::MakeInterpreterExecutable(module);
#if XLITE_HAVE_CPU_BACKEND
  if (backend == "cpu") return cpu::CompileCpuExecutable(module, options);
#endif
  (void)options;  // the interpreter has no compile-time settings
  return absl::InvalidArgumentError(
      absl::StrCat("unknown backend '", backend, "' (available: ", AvailableBackends(), ")"));
}

}  // namespace xlite::tools
