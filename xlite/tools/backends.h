// Backends by name, for `xlite run --backend`, `xlite bench` and the tests:
// the interpreter always, the cpu backend when it was built (LLVM found).
#ifndef XLITE_TOOLS_BACKENDS_H_
#define XLITE_TOOLS_BACKENDS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "xlite/ir/module.h"
#include "xlite/runtime/executable.h"
#include "xlite/sched/memory_report.h"

namespace xlite::tools {

// The backends this binary has, comma-separated, for help and errors.
std::string AvailableBackends();

// Registers the passes of the backends built in (cpu-loop-fusion).
void RegisterBackendPasses();

// The backend single-device runs take when none is named: cpu when it was
// built, else the interpreter.
std::string DefaultBackend();

// Whether `name` is one of them.
bool IsBackend(const std::string& name);

// Compiles a verified single-device `module` for `backend`; the module must
// outlive the executable. InvalidArgument names the available backends when
// `backend` is unknown.
absl::StatusOr<std::unique_ptr<runtime::Executable>> CompileForBackend(
    const std::string& backend, const HloModule& module, const runtime::CompileOptions& options);

// Whether `backend` plans an arena (cpu), so AnalyzeMemoryForBackend applies.
bool BackendPlansArena(const std::string& backend);

// The memory report of the program `backend` runs (`xlite mem --backend`):
// the backend's own preparation of `module` (rewritten in place: the cpu
// backend's fusion and copies), its schedule and its arena, the same
// computation its executable allocates from. Only backends that plan an
// arena (cpu) have one.
absl::StatusOr<MemoryReport> AnalyzeMemoryForBackend(const std::string& backend, HloModule& module,
                                                     int64_t top);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_BACKENDS_H_
