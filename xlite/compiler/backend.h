// A backend as the compile pipeline sees it: its own passes and the order it
// runs the module in (Prepare), the memory plan of that program, and the
// executable built from it. Backends register by name; Compile() finds them
// here, so the compiler layer knows no backend below it (the cpu backend
// registers itself, cpu_backend.h). The interpreter is always registered.
#ifndef XLITE_COMPILER_BACKEND_H_
#define XLITE_COMPILER_BACKEND_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/ir/module.h"
#include "xlite/runtime/executable.h"
#include "xlite/sched/memory_report.h"

namespace xlite::compiler {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // Rewrites the verified single-device `module` into the program this
  // backend runs (cpu: loop fusion, a flat call graph, the copies a host run
  // needs) and gives it the schedule the executable follows, when the
  // backend follows one.
  virtual absl::Status Prepare(HloModule& module) const = 0;
  // Whether the backend places the program's buffers in an arena, so that
  // AnalyzeMemory applies.
  virtual bool PlansArena() const { return false; }
  // The memory report of a prepared module, in its schedule, with the arena
  // the executable allocates (the `top` largest live buffers listed).
  virtual absl::StatusOr<MemoryReport> AnalyzeMemory(const HloModule& prepared, int64_t top) const;
  // The executable of a prepared module; `prepared` must outlive it.
  virtual absl::StatusOr<std::unique_ptr<runtime::Executable>> Build(
      const HloModule& prepared, const runtime::CompileOptions& options) const = 0;
};

// Adds `backend`, replacing one of the same name.
void RegisterBackend(std::unique_ptr<Backend> backend);
// nullptr when no backend of that name is registered.
const Backend* FindBackend(std::string_view name);
// The registered names, the interpreter first, the others sorted.
std::vector<std::string> BackendNames();

}  // namespace xlite::compiler

#endif  // XLITE_COMPILER_BACKEND_H_
