// How each stage's time grows with the module: synthetic HLO text made in
// memory — a chain of N elementwise ops, N independent ops into one tuple,
// conditionals and while loops nested D deep, and a data-parallel module on
// P partitions — through parse + verify, the default pipeline, `mem`,
// `sched`, cost analysis, the cpu backend and the spmd pipeline, each called
// as the command line calls it. Every benchmark fits its growth class
// (Complexity), so a super-linear stage shows as N^2 or worse. Parsing is
// not timed except in the parse stage. Figures: docs/limits.md, which names
// the stages that are still quadratic (wide mem and sched run for hours at
// 1M: leave them out with --benchmark_filter=-Wide_(Mem|Sched)/1000000).
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/analysis/verifier.h"
#include "xlite/compiler/compile.h"
#include "xlite/spmd/propagation.h"
#include "xlite/text/parser.h"
#include "xlite/tools/backends.h"
#include "xlite/tools/reports/memory_report_json.h"

namespace xlite {
namespace {

// N instructions: a parameter and N-1 ops, each on the one before.
std::string Chain(int64_t n) {
  constexpr const char* kOps[] = {"add", "multiply", "subtract", "maximum"};
  std::string text = "HloModule chain\n\nENTRY main {\n  p = f32[16] parameter(0)\n";
  std::string previous = "p";
  for (int64_t i = 1; i < n; ++i) {
    const std::string name = absl::StrCat("v", i);
    absl::StrAppend(&text, i + 1 == n ? "  ROOT " : "  ", name, " = f32[16] ", kOps[i % 4], "(",
                    previous, ", p)\n");
    previous = name;
  }
  return text + "}\n";
}

// About N instructions: N/2 slices of one parameter, a tanh of each, and
// one tuple of all of them (distinct ops, so cse keeps them).
std::string Wide(int64_t n) {
  const int64_t width = n / 2;
  std::string text =
      absl::StrCat("HloModule wide\n\nENTRY main {\n  p = f32[", width, "] parameter(0)\n");
  std::string tuple_shape, operands;
  for (int64_t i = 0; i < width; ++i) {
    absl::StrAppend(&text, "  sl", i, " = f32[1] slice(p), slice={[", i, ":", i + 1, "]}\n");
    absl::StrAppend(&text, "  t", i, " = f32[1] tanh(sl", i, ")\n");
    absl::StrAppend(&tuple_shape, i == 0 ? "" : ", ", "f32[1]");
    absl::StrAppend(&operands, i == 0 ? "" : ", ", "t", i);
  }
  return absl::StrCat(text, "  ROOT r = (", tuple_shape, ") tuple(", operands, ")\n}\n");
}

// Conditionals nested `depth` deep: level k's true branch holds level k+1's
// conditional; its false branch is a leaf of its own, or with `shared` the
// same computation as the true branch (2^depth paths through depth+1
// computations).
std::string NestedConditionalText(int64_t depth, bool shared) {
  std::string text = "HloModule nested_conditional\n\n";
  for (int64_t k = depth; k >= 1; --k) {
    absl::StrAppend(&text, "leaf", k, " {\n  x = f32[16] parameter(0)\n",
                    "  ROOT n = f32[16] negate(x)\n}\n\n");
    absl::StrAppend(&text, "branch", k,
                    " {\n  x = f32[16] parameter(0)\n  y = f32[16] add(x, x)\n");
    if (k == depth) {
      absl::StrAppend(&text, "  ROOT r = f32[16] negate(y)\n}\n\n");
    } else {
      absl::StrAppend(&text, "  t = pred[] constant(true)\n",
                      "  ROOT r = f32[16] conditional(t, y, y), true_computation=branch", k + 1,
                      ", false_computation=", shared ? "branch" : "leaf", k + 1, "\n}\n\n");
    }
  }
  return absl::StrCat(text, "ENTRY main {\n  p = f32[16] parameter(0)\n",
                      "  t = pred[] constant(true)\n",
                      "  ROOT r = f32[16] conditional(t, p, p), true_computation=branch1, ",
                      "false_computation=", shared ? "branch" : "leaf", "1\n}\n");
}

// While loops nested `depth` deep: level k's body runs level k+1's loop.
std::string NestedWhile(int64_t depth) {
  constexpr const char* kState = "(s32[], f32[16])";
  std::string text = "HloModule nested_while\n\n";
  for (int64_t k = depth; k >= 1; --k) {
    absl::StrAppend(&text, "cond", k, " {\n  s = ", kState, " parameter(0)\n",
                    "  i = s32[] get-tuple-element(s), index=0\n  n = s32[] constant(2)\n",
                    "  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\n");
    absl::StrAppend(&text, "body", k, " {\n  s = ", kState, " parameter(0)\n",
                    "  i = s32[] get-tuple-element(s), index=0\n",
                    "  x = f32[16] get-tuple-element(s), index=1\n  one = s32[] constant(1)\n",
                    "  i1 = s32[] add(i, one)\n");
    if (k == depth) {
      absl::StrAppend(&text, "  y = f32[16] add(x, x)\n");
    } else {
      absl::StrAppend(&text, "  zero = s32[] constant(0)\n  inner = ", kState,
                      " tuple(zero, x)\n  w = ", kState, " while(inner), condition=cond", k + 1,
                      ", body=body", k + 1, "\n  y = f32[16] get-tuple-element(w), index=1\n");
    }
    absl::StrAppend(&text, "  ROOT out = ", kState, " tuple(i1, y)\n}\n\n");
  }
  return absl::StrCat(text,
                      "ENTRY main {\n  p = f32[16] parameter(0)\n  zero = s32[] constant(0)\n",
                      "  s = ", kState, " tuple(zero, p)\n  w = ", kState,
                      " while(s), condition=cond1, body=body1\n",
                      "  ROOT y = f32[16] get-tuple-element(w), index=1\n}\n");
}

// x * x summed over f32[8P] split in P pieces, on P partitions.
std::string DataParallel(int64_t partitions) {
  const int64_t n = 8 * partitions;
  return absl::StrCat("HloModule data_parallel, num_partitions=", partitions, "\n\n",
                      "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n",
                      "  ROOT s = f32[] add(a, b)\n}\n\n", "ENTRY main {\n  p = f32[", n,
                      "] parameter(0), sharding={devices=[", partitions, "]<=[", partitions,
                      "]}\n  e = f32[", n, "] multiply(p, p)\n  z = f32[] constant(0)\n",
                      "  ROOT r = f32[] reduce(e, z), dimensions={0}, to_apply=add\n}\n");
}

std::string NestedConditional(int64_t depth) { return NestedConditionalText(depth, false); }
std::string NestedSharedConditional(int64_t depth) { return NestedConditionalText(depth, true); }

// The stages, each on a freshly parsed module.
absl::Status CompileStatus(HloModule& module, const compiler::CompileOptions& options) {
  return compiler::Compile(module, options).status();
}
absl::Status OptDefault(HloModule& module) {
  compiler::CompileOptions options;
  options.passes = "default";
  return CompileStatus(module, options);
}
absl::Status Mem(HloModule& module) {
  return tools::AnalyzeMemoryAsWritten(module, MemoryScheduler::kBest, false, 10).status();
}
absl::Status Sched(HloModule& module) {
  static const absl::StatusOr<DeviceSpec> device = LoadDeviceSpec("h100");
  if (!device.ok()) return device.status();
  compiler::CompileOptions options;
  options.schedule_on = *device;
  return CompileStatus(module, options);
}
absl::Status Cost(HloModule& module) { return AnalyzeModuleCost(module).status(); }
absl::Status CpuCompile(HloModule& module) {
  compiler::CompileOptions options;
  options.backend = "cpu";
  options.build_executable = true;
  return CompileStatus(module, options);
}
absl::Status Spmd(HloModule& module) {
  compiler::CompileOptions options;
  options.passes = "spmd";
  return CompileStatus(module, options);
}

using MakeText = std::string (*)(int64_t);
using Stage = absl::Status (*)(HloModule&);

// Times `stage` (parse + verify when null) on the module make(range(0)).
void BM_Stage(benchmark::State& state, MakeText make, Stage stage) {
  const std::string text = make(state.range(0));
  int64_t instructions = 0;
  for (auto _ : state) {
    if (stage != nullptr) state.PauseTiming();
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    absl::Status status = module.ok() ? VerifyModule(**module) : module.status();
    if (status.ok() && stage != nullptr) {
      state.ResumeTiming();
      status = stage(**module);
      state.PauseTiming();
    } else if (stage == nullptr) {
      state.PauseTiming();
    }
    if (!status.ok()) return state.SkipWithError(std::string(status.message()).c_str());
    instructions = 0;
    for (const auto& computation : (*module)->computations()) {
      instructions += computation->instruction_count();
    }
    module->reset();  // freeing a million instructions is not the stage's time
    state.ResumeTiming();
  }
  state.SetComplexityN(state.range(0));
  state.counters["instructions"] = static_cast<double>(instructions);
}

// Sizes 10k, 100k and 1M (10k and 100k for the cpu backend, whose compile
// of a 10k-instruction chain takes 2.4 s).
void Sizes(benchmark::internal::Benchmark* b) {
  b->RangeMultiplier(10)->Range(10'000, 1'000'000)->Complexity()->Unit(benchmark::kMillisecond);
}
void CpuSizes(benchmark::internal::Benchmark* b) {
  b->RangeMultiplier(10)->Range(10'000, 100'000)->Complexity()->Unit(benchmark::kMillisecond);
}
void Depths(benchmark::internal::Benchmark* b) {
  b->Arg(10)->Arg(100)->Arg(999)->Complexity()->Unit(benchmark::kMillisecond);
}

#define XLITE_GROWTH(shape, stage, sizes) \
  BENCHMARK_CAPTURE(BM_Stage, shape##_##stage, shape, stage)->Apply(sizes)
#define XLITE_GROWTH_SHAPE(shape)                                                 \
  BENCHMARK_CAPTURE(BM_Stage, shape##_ParseVerify, shape, nullptr)->Apply(Sizes); \
  XLITE_GROWTH(shape, OptDefault, Sizes);                                         \
  XLITE_GROWTH(shape, Mem, Sizes);                                                \
  XLITE_GROWTH(shape, Sched, Sizes);                                              \
  XLITE_GROWTH(shape, Cost, Sizes);                                               \
  XLITE_GROWTH(shape, CpuCompile, CpuSizes)

XLITE_GROWTH_SHAPE(Chain);
XLITE_GROWTH_SHAPE(Wide);

BENCHMARK_CAPTURE(BM_Stage, NestedConditional_ParseVerify, NestedConditional, nullptr)
    ->Apply(Depths);
XLITE_GROWTH(NestedConditional, Mem, Depths);
XLITE_GROWTH(NestedConditional, Sched, Depths);
XLITE_GROWTH(NestedConditional, Cost, Depths);
BENCHMARK_CAPTURE(BM_Stage, NestedWhile_ParseVerify, NestedWhile, nullptr)->Apply(Depths);
XLITE_GROWTH(NestedWhile, Mem, Depths);
XLITE_GROWTH(NestedWhile, Sched, Depths);
XLITE_GROWTH(NestedWhile, Cost, Depths);
// Shared branches: 2^depth paths; flatten-call-graph refuses past 2^20 copies.
BENCHMARK_CAPTURE(BM_Stage, NestedSharedConditional_Mem, NestedSharedConditional, Mem)
    ->DenseRange(4, 16, 4)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Stage, NestedSharedConditional_Sched, NestedSharedConditional, Sched)
    ->DenseRange(4, 16, 4)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Stage, NestedSharedConditional_Cost, NestedSharedConditional, Cost)
    ->DenseRange(4, 16, 4)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(BM_Stage, DataParallel_Spmd, DataParallel, Spmd)
    ->Arg(1)
    ->Arg(16)
    ->Arg(1024)
    ->Arg(65536)
    ->Arg(1 << 20)
    ->Complexity()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xlite

int main(int argc, char** argv) {
  xlite::tools::RegisterBackends();
  xlite::spmd::RegisterSpmdPasses();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
