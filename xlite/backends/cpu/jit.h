// ORC LLJIT behind the kernel emitter: optimises an LLVM module for the host
// CPU (name and features detected at run time, so AVX-512 or AVX2 is used
// where present) and compiles it, with an in-process cache keyed by the IR
// text and the target. The only file that includes the ExecutionEngine.
#ifndef XLITE_BACKENDS_CPU_JIT_H_
#define XLITE_BACKENDS_CPU_JIT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/backends/cpu/kernel_emitter.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace xlite::cpu {

// The host target as the JIT sees it: "triple cpu +feature,...".
std::string HostTargetDescription();

// Optimises (O3) and compiles `module`, then looks up `names` (functions of
// the KernelFn signature), or returns the cached code of an identical module.
absl::StatusOr<CompiledKernels> JitCompile(std::unique_ptr<llvm::LLVMContext> context,
                                           std::unique_ptr<llvm::Module> module,
                                           const std::vector<std::string>& names);

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_JIT_H_
