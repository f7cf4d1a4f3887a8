#include "xlite/backends/cpu/cpu_backend.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "xlite/backends/cpu/cpu_executable.h"
#include "xlite/backends/cpu/cpu_memory_plan.h"
#include "xlite/backends/cpu/fusion.h"
#include "xlite/base/status.h"
#include "xlite/compiler/backend.h"

namespace xlite::cpu {
namespace {

class CpuBackend : public compiler::Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  absl::Status Prepare(HloModule& module) const override { return PrepareCpuModule(module); }
  bool PlansArena() const override { return true; }

  absl::StatusOr<MemoryReport> AnalyzeMemory(const HloModule& prepared,
                                             int64_t top) const override {
    XLITE_ASSIGN_OR_RETURN(CpuMemoryPlan plan, PlanCpuMemory(prepared));
    XLITE_ASSIGN_OR_RETURN(MemoryReport report,
                           xlite::AnalyzeMemory(prepared, MemoryScheduler::kPostOrder,
                                                /*use_module_order=*/true, top, CpuArenaOptions));
    if (report.arena_bytes != plan.assignment.arena_bytes) {
      return absl::InternalError(absl::StrCat("the cpu backend plans a ",
                                              plan.assignment.arena_bytes,
                                              "-byte arena, the report ", report.arena_bytes));
    }
    report.scheduler = "the cpu backend's order";
    return report;
  }

  absl::StatusOr<std::unique_ptr<runtime::Executable>> Build(
      const HloModule& prepared, const runtime::CompileOptions& options) const override {
    return CompilePreparedCpuExecutable(prepared, options);
  }
};

}  // namespace

void RegisterCpuBackend() {
  compiler::RegisterBackend(std::make_unique<CpuBackend>());
  RegisterCpuPasses();
}

}  // namespace xlite::cpu
