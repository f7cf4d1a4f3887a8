#include "xlite/backends/cpu/jit.h"

#include <chrono>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

namespace xlite::cpu {
namespace {

std::string ErrorText(llvm::Error error) { return llvm::toString(std::move(error)); }

absl::StatusOr<llvm::orc::JITTargetMachineBuilder> HostBuilder() {
  static const bool initialised = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialised;
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return absl::InternalError(ErrorText(builder.takeError()));
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return std::move(*builder);
}

struct CacheEntry {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::vector<KernelFn> kernels;
};

std::mutex& CacheMutex() {
  static auto* mutex = new std::mutex;
  return *mutex;
}
std::map<std::string, std::shared_ptr<CacheEntry>>& Cache() {
  static auto* cache = new std::map<std::string, std::shared_ptr<CacheEntry>>;
  return *cache;
}

void Optimize(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
}

}  // namespace

std::string HostTargetDescription() {
  auto builder = HostBuilder();
  if (!builder.ok()) return builder.status().ToString();
  return absl::StrCat(builder->getTargetTriple().str(), " ", builder->getCPU(), " ",
                      builder->getFeatures().getString());
}

absl::StatusOr<CompiledKernels> JitCompile(std::unique_ptr<llvm::LLVMContext> context,
                                           std::unique_ptr<llvm::Module> module,
                                           const std::vector<std::string>& names) {
  const auto start = std::chrono::steady_clock::now();
  auto builder = HostBuilder();
  if (!builder.ok()) return builder.status();
  auto machine = builder->createTargetMachine();
  if (!machine) return absl::InternalError(ErrorText(machine.takeError()));
  module->setDataLayout((*machine)->createDataLayout());
  module->setTargetTriple((*machine)->getTargetTriple().str());
  const std::string features = builder->getFeatures().getString();
  for (llvm::Function& fn : *module) {
    if (fn.isDeclaration()) continue;
    fn.addFnAttr("target-cpu", builder->getCPU());
    fn.addFnAttr("target-features", features);
    fn.addFnAttr(llvm::Attribute::NoUnwind);
  }
  std::string key;
  llvm::raw_string_ostream key_stream(key);
  module->print(key_stream, nullptr);
  key_stream.flush();

  std::lock_guard<std::mutex> lock(CacheMutex());
  CompiledKernels compiled;
  auto found = Cache().find(key);
  if (found != Cache().end()) {
    module.reset();  // before the context that owns its types
    compiled.kernels = found->second->kernels;
    compiled.cached = true;
    compiled.owner = found->second;
    return compiled;
  }
  Optimize(*module, **machine);
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*builder).create();
  if (!jit) return absl::InternalError(ErrorText(jit.takeError()));
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator) return absl::InternalError(ErrorText(generator.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  if (llvm::Error error =
          (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context)))) {
    return absl::InternalError(ErrorText(std::move(error)));
  }
  auto entry = std::make_shared<CacheEntry>();
  for (const std::string& name : names) {
    auto address = (*jit)->lookup(name);
    if (!address) return absl::InternalError(ErrorText(address.takeError()));
    entry->kernels.push_back(address->toPtr<KernelFn>());
  }
  entry->jit = std::move(*jit);
  Cache().emplace(key, entry);
  compiled.kernels = entry->kernels;
  compiled.owner = entry;
  compiled.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return compiled;
}

}  // namespace xlite::cpu
