// Speed of the `default` pass pipeline (`xlite opt --passes=default`) on two
// real modules from ../shared/corpus/hlo; each iteration optimises a fresh
// parse (parsing is not timed). XLITE_CORPUS_DIR names another corpus folder.
// Targets: llama3_8b under 300 ms, mixtral_8x7b under 2 s.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/corpus_file.h"
#include "bench/untimed_parse.h"
#include "benchmark/benchmark.h"
#include "xlite/passes/pipeline.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

void BM_DefaultPipeline(benchmark::State& state, const char* name) {
  const std::string text = ReadCorpus(name);
  if (text.empty()) {
    state.SkipWithError("corpus module not found in ../shared/corpus/hlo");
    return;
  }
  absl::StatusOr<PassPipeline> pipeline = ParsePipelineSpec("default");
  if (!pipeline.ok()) {
    state.SkipWithError(std::string(pipeline.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    std::unique_ptr<HloModule> module = UntimedParse(state, text);
    if (module == nullptr) return;
    PipelineReport report;
    absl::StatusOr<bool> changed = pipeline->Run(*module, PipelineOptions(), &report);
    if (!changed.ok()) {
      state.SkipWithError(std::string(changed.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(*changed);
  }
}

BENCHMARK_CAPTURE(BM_DefaultPipeline, llama3_8b,
                  "xla__tools__benchmarks__hlo__hlo_llama3_8b_cp_bf16_1x4.hlo")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DefaultPipeline, mixtral_8x7b,
                  "xla__tools__benchmarks__hlo__hlo_mixtral_8x7b_bf16_2x8.hlo")
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xlite

BENCHMARK_MAIN();
