#include "xlite/tools/backends.h"

#include "absl/strings/str_cat.h"
#include "xlite/base/status.h"
#include "xlite/eval/interpreter_executable.h"
#if XLITE_HAVE_CPU_BACKEND
#include "xlite/backends/cpu/cpu_executable.h"
#include "xlite/backends/cpu/cpu_memory_plan.h"
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

bool BackendPlansArena(const std::string& backend) {
#if XLITE_HAVE_CPU_BACKEND
  return backend == "cpu";
#else
  (void)backend;
  return false;
#endif
}

absl::StatusOr<MemoryReport> AnalyzeMemoryForBackend(const std::string& backend, HloModule& module,
                                                     int64_t top) {
#if XLITE_HAVE_CPU_BACKEND
  if (backend == "cpu") {
    XLITE_RETURN_IF_ERROR(cpu::PrepareCpuModule(module));
    XLITE_ASSIGN_OR_RETURN(cpu::CpuMemoryPlan plan, cpu::PlanCpuMemory(module));
    XLITE_ASSIGN_OR_RETURN(MemoryReport report,
                           AnalyzeMemory(module, MemoryScheduler::kPostOrder, plan.module_order,
                                         top, cpu::CpuArenaOptions));
    if (report.arena_bytes != plan.assignment.arena_bytes) {
      return absl::InternalError(absl::StrCat("the cpu backend plans a ",
                                              plan.assignment.arena_bytes,
                                              "-byte arena, the report ", report.arena_bytes));
    }
    report.scheduler = absl::StrCat(report.scheduler, " (the cpu backend's order)");
    return report;
  }
#endif
  (void)module;
  (void)top;
  return absl::InvalidArgumentError(absl::StrCat("no arena to report for backend '", backend,
                                                 "' (backends with one: ",
#if XLITE_HAVE_CPU_BACKEND
                                                 "cpu",
#else
                                                  "none in this build",
#endif
                                                 ")"));
}

}  // namespace xlite::tools
