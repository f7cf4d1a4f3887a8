// The cpu backend as the compile pipeline's backend stage sees it
// (compiler/backend.h): PrepareCpuModule as its passes and order, the
// arena of its memory plan as the memory report, its executable.
#ifndef XLITE_BACKENDS_CPU_CPU_BACKEND_H_
#define XLITE_BACKENDS_CPU_CPU_BACKEND_H_

namespace xlite::cpu {

// Registers the backend "cpu" with the compiler and its passes
// (cpu-loop-fusion) with the pass registry.
void RegisterCpuBackend();

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_CPU_BACKEND_H_
