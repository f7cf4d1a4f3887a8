// The backends this binary has, for `xlite run --backend`, `xlite bench` and
// the benchmarks: the interpreter always, the cpu backend when it was built
// (LLVM found). They register with the compiler (compiler/backend.h), which
// compiles for them.
#ifndef XLITE_TOOLS_BACKENDS_H_
#define XLITE_TOOLS_BACKENDS_H_

#include <string>

namespace xlite::tools {

// Registers the backends built in, and their passes (cpu-loop-fusion).
void RegisterBackends();

// The backends this binary has, comma-separated, for help and errors.
std::string AvailableBackends();

// The backend single-device runs take when none is named: cpu when it was
// built, else the interpreter.
std::string DefaultBackend();

// Whether `name` is one of them.
bool IsBackend(const std::string& name);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_BACKENDS_H_
