// The cpu backend: compiles a module (its own copy, loop-fused) into a flat
// list of thunks over one arena planned once and reused by every call, with
// JIT kernels for elemental work, OpenBLAS for dots and the evaluator for
// the instructions nothing else covers (listed by --profile).
#ifndef XLITE_BACKENDS_CPU_CPU_EXECUTABLE_H_
#define XLITE_BACKENDS_CPU_CPU_EXECUTABLE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "xlite/ir/module.h"
#include "xlite/runtime/executable.h"

namespace xlite::cpu {

// `module` must be verified and single-device; the executable keeps no
// reference to it. Prepares a copy (PrepareCpuModule) and compiles that.
absl::StatusOr<std::unique_ptr<runtime::Executable>> CompileCpuExecutable(
    const HloModule& module, const runtime::CompileOptions& options);

// The same for a module PrepareCpuModule has prepared already (the compile
// pipeline's backend stage, cpu_backend.h): its thunks run in its schedule.
absl::StatusOr<std::unique_ptr<runtime::Executable>> CompilePreparedCpuExecutable(
    const HloModule& prepared, const runtime::CompileOptions& options);

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_CPU_EXECUTABLE_H_
