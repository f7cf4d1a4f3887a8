#include "xlite/tools/backends.h"

#include "absl/strings/str_join.h"
#include "xlite/compiler/backend.h"
#if XLITE_HAVE_CPU_BACKEND
#include "xlite/backends/cpu/cpu_backend.h"
#endif

namespace xlite::tools {

void RegisterBackends() {
#if XLITE_HAVE_CPU_BACKEND
  cpu::RegisterCpuBackend();
#endif
}

std::string AvailableBackends() { return absl::StrJoin(compiler::BackendNames(), ", "); }

std::string DefaultBackend() {
#if XLITE_HAVE_CPU_BACKEND
  return "cpu";
#else
  return "interpreter";
#endif
}

bool IsBackend(const std::string& name) { return compiler::FindBackend(name) != nullptr; }

}  // namespace xlite::tools
