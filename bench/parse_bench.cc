// Throughput of the text layer and verifier on a large real module (parse,
// verify, parse+verify, print, in MB/s of HLO text), the time to free a
// parsed module, and the memory a parsed module holds, as a ratio to its text
// size. XLITE_BENCH_HLO overrides the module.
#include <malloc.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "benchmark/benchmark.h"
#include "xlite/analysis/verifier.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite {
namespace {

// Bytes malloc has handed out and not taken back (arena plus mmapped chunks).
int64_t LiveHeapBytes() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<int64_t>(info.uordblks + info.hblkhd);
}

const std::string& BenchText() {
  static const std::string* text = [] {
    const char* override_path = std::getenv("XLITE_BENCH_HLO");
    const std::string path =
        override_path != nullptr ? override_path
                                 : XLITE_SOURCE_DIR
            "/../shared/corpus/hlo/xla__tools__benchmarks__hlo__hlo_mixtral_8x7b_bf16_2x8.hlo";
    std::ifstream file(path, std::ios::binary);
    std::ostringstream contents;
    contents << file.rdbuf();
    return new std::string(std::move(contents).str());
  }();
  return *text;
}

// Parses the bench module, or marks the benchmark skipped when that fails.
std::unique_ptr<HloModule> ParseOrSkip(benchmark::State& state) {
  if (BenchText().empty()) {
    state.SkipWithError("benchmark module not found (../shared/corpus or XLITE_BENCH_HLO)");
    return nullptr;
  }
  auto module = ParseHloModule(BenchText());
  if (!module.ok()) {
    state.SkipWithError(std::string(module.status().message()).c_str());
    return nullptr;
  }
  return *std::move(module);
}

// Freeing a module is not part of parsing or verifying it, so the benchmarks
// that parse free each module outside the timed region.
void DestroyUntimed(benchmark::State& state, std::unique_ptr<HloModule> module) {
  state.PauseTiming();
  module.reset();
  state.ResumeTiming();
}

void BM_Parse(benchmark::State& state) {
  if (ParseOrSkip(state) == nullptr) return;
  for (auto _ : state) {
    auto module = ParseHloModule(BenchText());
    benchmark::DoNotOptimize(module);
    DestroyUntimed(state, *std::move(module));
  }
  state.SetBytesProcessed(state.iterations() * BenchText().size());
}
BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond);

void BM_Verify(benchmark::State& state) {
  std::unique_ptr<HloModule> module = ParseOrSkip(state);
  if (module == nullptr) return;
  for (auto _ : state) benchmark::DoNotOptimize(VerifyModule(*module));
  state.SetBytesProcessed(state.iterations() * BenchText().size());
}
BENCHMARK(BM_Verify)->Unit(benchmark::kMillisecond);

void BM_ParseAndVerify(benchmark::State& state) {
  if (ParseOrSkip(state) == nullptr) return;
  for (auto _ : state) {
    auto module = ParseHloModule(BenchText());
    benchmark::DoNotOptimize(VerifyModule(**module));
    DestroyUntimed(state, *std::move(module));
  }
  state.SetBytesProcessed(state.iterations() * BenchText().size());
}
BENCHMARK(BM_ParseAndVerify)->Unit(benchmark::kMillisecond);

// What the benchmarks above leave out: freeing a parsed module.
void BM_FreeModule(benchmark::State& state) {
  if (ParseOrSkip(state) == nullptr) return;
  for (auto _ : state) {
    state.PauseTiming();
    auto module = ParseHloModule(BenchText());
    state.ResumeTiming();
    module = absl::InternalError("freed");
  }
}
BENCHMARK(BM_FreeModule)->Unit(benchmark::kMillisecond);

void BM_Print(benchmark::State& state) {
  std::unique_ptr<HloModule> module = ParseOrSkip(state);
  if (module == nullptr) return;
  size_t printed_bytes = 0;
  for (auto _ : state) {
    std::string text = PrintModule(*module);
    printed_bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.SetBytesProcessed(state.iterations() * printed_bytes);
}
BENCHMARK(BM_Print)->Unit(benchmark::kMillisecond);

// Heap bytes held by a parsed module per byte of its text.
void BM_ParsedModuleMemory(benchmark::State& state) {
  if (ParseOrSkip(state) == nullptr) return;
  int64_t held = 0;
  for (auto _ : state) {
    const int64_t before = LiveHeapBytes();
    auto module = ParseHloModule(BenchText());
    held = LiveHeapBytes() - before;
    benchmark::DoNotOptimize(module);
  }
  state.counters["module_MiB"] = static_cast<double>(held) / (1 << 20);
  state.counters["text_MiB"] = static_cast<double>(BenchText().size()) / (1 << 20);
  state.counters["bytes_per_text_byte"] =
      static_cast<double>(held) / static_cast<double>(BenchText().size());
}
BENCHMARK(BM_ParsedModuleMemory)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace xlite

BENCHMARK_MAIN();
