// Throughput of the evaluator's f32 dot and convolution (the blocked matmul
// kernel behind both), run through Evaluator::Run on small HLO modules with
// random inputs; the GFLOP/s counter counts 2 flops per multiply-add.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "xlite/eval/evaluator.h"
#include "xlite/runtime/random_inputs.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

// Evaluates the module's entry on random arguments once per iteration.
void RunModule(benchmark::State& state, const std::string& text, double flops) {
  auto module = ParseHloModule(text);
  if (!module.ok()) {
    state.SkipWithError(std::string(module.status().message()).c_str());
    return;
  }
  std::vector<Literal> args = runtime::RandomArguments(**module, 1);
  Evaluator evaluator;
  for (auto _ : state) {
    auto result = evaluator.Run(**module, args);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_DotF32(benchmark::State& state) {
  const int64_t n = state.range(0);
  const std::string m = absl::StrCat("f32[", n, ",", n, "]");
  RunModule(state,
            absl::StrCat("HloModule m\nENTRY e {\n  x = ", m, " parameter(0)\n  y = ", m,
                         " parameter(1)\n  ROOT d = ", m,
                         " dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}"),
            2.0 * n * n * n);
}
BENCHMARK(BM_DotF32)->Arg(128)->Arg(512)->Unit(benchmark::kMillisecond);

// Attention-like batched dot: [16,128,64] x [16,256,64] contracting the last
// dims of both (the rhs is read transposed).
void BM_BatchedDotF32(benchmark::State& state) {
  RunModule(state, R"(HloModule m
ENTRY e {
  q = f32[16,128,64] parameter(0)
  k = f32[16,256,64] parameter(1)
  ROOT s = f32[16,128,256] dot(q, k), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
})",
            2.0 * 16 * 128 * 256 * 64);
}
BENCHMARK(BM_BatchedDotF32)->Unit(benchmark::kMillisecond);

// ResNet-like 3x3 convolution, NHWC/HWIO, N=8, 56x56, 64 -> 64 features.
void BM_ConvF32(benchmark::State& state) {
  RunModule(state, R"(HloModule m
ENTRY e {
  x = f32[8,56,56,64] parameter(0)
  k = f32[3,3,64,64] parameter(1)
  ROOT c = f32[8,56,56,64] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})",
            2.0 * 8 * 56 * 56 * 64 * 64 * 9);
}
BENCHMARK(BM_ConvF32)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xlite

BENCHMARK_MAIN();
