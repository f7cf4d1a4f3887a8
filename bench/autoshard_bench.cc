// Search time of `xlite autoshard` (spmd::AutoShard on the h100 spec: graph,
// ILP or heuristic, baselines, explanation) on the corpus' deepseek train step
// (mesh 4, under 400 GB: it fits no h100) and on a Llama-3-8B-sized training step (32 layers of
// d_model 4096, written by scripts/write_llama_step.py: XLITE_LLAMA_HLO names the file, the lowered
// scan by default build/llama3_8b_step.hlo) on meshes 8 and 2x4. Target: under 10 s each on 2 cores
// (issue 31; autoparallel's 5.5 s with shared layers, 118.7 s without).
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "bench/corpus_file.h"
#include "bench/untimed_parse.h"
#include "benchmark/benchmark.h"
#include "xlite/spmd/autoshard/auto_sharding.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

std::string ReadLlama() {
  const char* path = std::getenv("XLITE_LLAMA_HLO");
  std::ifstream file(path != nullptr ? path : XLITE_BINARY_DIR "/llama3_8b_step.hlo",
                     std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  return std::move(contents).str();
}

// memory_limit 0: the device's memory.
void BM_AutoShard(benchmark::State& state, const std::string& text, const char* missing,
                  const char* mesh, double memory_limit) {
  if (text.empty()) {
    state.SkipWithError(missing);
    return;
  }
  spmd::AutoShardOptions options;
  options.mesh = *spmd::ParseMesh(mesh);
  if (memory_limit > 0) options.memory_limit = memory_limit;
  const DeviceSpec device = *LoadDeviceSpec("h100");
  int64_t nodes = 0;
  for (auto _ : state) {
    std::unique_ptr<HloModule> module = UntimedParse(state, text);
    if (module == nullptr) return;
    absl::StatusOr<spmd::AutoShardResult> result = spmd::AutoShard(*module, device, options);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    nodes = result->nodes;
    benchmark::DoNotOptimize(result->plan.seconds);
  }
  state.counters["nodes"] = static_cast<double>(nodes);
}

const std::string& Deepseek() {
  static const std::string text = ReadCorpus(
      "xla__tools__benchmarks__hlo__nv_maxtext_deepseek_1n4g_jit_train_step_before_optimization."
      "hlo");
  return text;
}

const std::string& Llama() {
  static const std::string text = ReadLlama();
  return text;
}

constexpr char kNoCorpus[] = "corpus module not found in ../shared/corpus/hlo";
constexpr char kNoLlama[] =
    "no Llama step: run scripts/write_llama_step.py build/llama3_8b_step.hlo (needs jax)";

// The deepseek step fits no h100 on 4 devices (docs/autoshard.md): 400 GB.
BENCHMARK_CAPTURE(BM_AutoShard, deepseek_1n4g_mesh4, Deepseek(), kNoCorpus, "4", 4e11)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AutoShard, llama3_8b_mesh8, Llama(), kNoLlama, "8", 0.0)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AutoShard, llama3_8b_mesh2x4, Llama(), kNoLlama, "2x4:data,model", 0.0)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

}  // namespace
}  // namespace xlite

BENCHMARK_MAIN();
