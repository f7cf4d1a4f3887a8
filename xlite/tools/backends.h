// Backends by name, for `xlite run --backend`, `xlite bench` and the tests:
// the interpreter always, the cpu backend when it was built (LLVM found).
#ifndef XLITE_TOOLS_BACKENDS_H_
#define XLITE_TOOLS_BACKENDS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "xlite/ir/module.h"
#include "xlite/runtime/executable.h"

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

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_BACKENDS_H_
