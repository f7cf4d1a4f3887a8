// The arena the cpu executable allocates is, byte for byte, the one
// `xlite mem --backend cpu` reports (one compile: the same preparation,
// schedule and buffer assignment), on every workload of ../shared/bench and a dozen
// corpus modules (skipped with a message when ../shared is absent).
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/conformance/corpus.h"
#include "xlite/analysis/verifier.h"
#include "xlite/backends/cpu/cpu_backend.h"
#include "xlite/backends/cpu/cpu_memory_plan.h"
#include "xlite/compiler/compile.h"
#include "xlite/sched/memory_report.h"
#include "xlite/text/parser.h"

namespace xlite::cpu {
namespace {

// Compiles `path` for the cpu backend through the compile pipeline, with
// its memory report; false when the file is not a verified single-device
// module the backend takes.
bool CompareArena(const std::string& path, int* compared) {
  auto module = ParseHloModule(conformance::ReadFileOrDie(path));
  if (!module.ok() || !VerifyModule(**module).ok()) return false;
  RegisterCpuBackend();
  compiler::CompileOptions compile;
  compile.backend = "cpu";
  compile.analyze_memory = true;
  compile.build_executable = true;
  compile.executable_options.threads = 1;
  auto compiled = compiler::Compile(**module, compile);
  if (!compiled.ok()) return false;
  const MemoryReport& report = *compiled->memory;
  const runtime::Executable& executable = *compiled->executable;
  EXPECT_GE(executable.arena_bytes(), 0) << path;
  EXPECT_EQ(executable.arena_bytes(), report.arena_bytes) << path;
  // The arena holds whatever is live in it at once.
  auto plan = PlanCpuMemory(**module);
  EXPECT_TRUE(plan.ok()) << path << ": " << plan.status();
  if (!plan.ok()) return false;
  EXPECT_GE(report.arena_bytes, plan->assignment.peak_live_bytes) << path;
  ++*compared;
  return true;
}

TEST(CpuArenaTest, ExecutableAllocatesTheReportedArena) {
  const std::filesystem::path corpus = conformance::CorpusDir();
  const std::filesystem::path bench = corpus / ".." / ".." / "bench";
  if (!std::filesystem::is_directory(bench) || conformance::CorpusFiles().empty()) {
    GTEST_SKIP() << "no ../shared (bench at " << bench << ", corpus at " << corpus << ")";
  }
  std::vector<std::string> workloads;
  for (const auto& entry : std::filesystem::directory_iterator(bench)) {
    if (entry.path().extension() == ".hlo") workloads.push_back(entry.path().string());
  }
  std::sort(workloads.begin(), workloads.end());
  int compared = 0;
  for (const std::string& path : workloads) {
    EXPECT_TRUE(CompareArena(path, &compared)) << path << " does not compile";
  }
  EXPECT_EQ(compared, static_cast<int>(workloads.size()));
  // A dozen corpus modules, every third small one in name order that the
  // backend takes (the large ones allocate gigabytes at compile time).
  std::vector<std::string> files = conformance::CorpusFiles();
  std::sort(files.begin(), files.end());
  int from_corpus = 0;
  for (size_t i = 0; i < files.size() && from_corpus < 12; i += 3) {
    if (std::filesystem::file_size(files[i]) > 64 * 1024) continue;
    const int before = compared;
    CompareArena(files[i], &compared);
    from_corpus += compared - before;
  }
  EXPECT_GE(from_corpus, 10);
  std::cout << "compared " << workloads.size() << " bench workloads and " << from_corpus
            << " corpus modules\n";
}

}  // namespace
}  // namespace xlite::cpu
