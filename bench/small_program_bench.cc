// Per-call cost of a small program: 20 elementwise ops on f32[16] arrays,
// compiled once through the compile pipeline for every backend this build has
// and executed many times, so that what is timed is the runtime's fixed cost
// per execution and per op (the target: under 10 us per call).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "benchmark/benchmark.h"
#include "xlite/compiler/compile.h"
#include "xlite/runtime/random_inputs.h"
#include "xlite/text/parser.h"
#include "xlite/tools/backends.h"

namespace xlite {
namespace {

// The chain's ops in order; a binary op takes the previous value and x or y
// in turn, a unary op the previous value.
struct ChainOp {
  const char* opcode;
  bool binary;
};
constexpr ChainOp kChain[] = {
    {"add", true},      {"multiply", true}, {"subtract", true},  {"maximum", true},
    {"tanh", false},    {"multiply", true}, {"add", true},       {"negate", false},
    {"minimum", true},  {"abs", false},     {"add", true},       {"exponential", false},
    {"multiply", true}, {"subtract", true}, {"logistic", false}, {"add", true},
    {"divide", true},   {"maximum", true},  {"sqrt", false},     {"add", true},
};
static_assert(sizeof(kChain) / sizeof(kChain[0]) == 20);

std::string SmallProgramText() {
  std::string text = "HloModule small_program\nENTRY main {\n";
  absl::StrAppend(&text, "  x = f32[16] parameter(0)\n  y = f32[16] parameter(1)\n");
  std::string previous = "x";
  int i = 0;
  for (const ChainOp& op : kChain) {
    const std::string name = absl::StrCat("v", ++i);
    absl::StrAppend(&text, i == 20 ? "  ROOT " : "  ", name, " = f32[16] ", op.opcode, "(",
                    previous, op.binary ? (i % 2 == 0 ? ", x" : ", y") : "", ")\n");
    previous = name;
  }
  return text + "}\n";
}

void BM_SmallProgram(benchmark::State& state, const std::string& backend) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(SmallProgramText());
  if (!module.ok()) {
    state.SkipWithError(std::string(module.status().message()).c_str());
    return;
  }
  std::vector<Literal> args = runtime::RandomArguments(**module, 1);
  compiler::CompileOptions compile;
  compile.backend = backend;
  compile.build_executable = true;
  absl::StatusOr<compiler::CompileResult> compiled = compiler::Compile(**module, compile);
  if (!compiled.ok()) {
    state.SkipWithError(std::string(compiled.status().message()).c_str());
    return;
  }
  runtime::Executable& executable = *compiled->executable;
  const runtime::ExecuteOptions options;
  for (auto _ : state) {
    absl::StatusOr<Literal> result = executable.Execute(args, options);
    if (!result.ok()) {
      state.SkipWithError(std::string(result.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  state.counters["ops/s"] = benchmark::Counter(20, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace
}  // namespace xlite

int main(int argc, char** argv) {
  xlite::tools::RegisterBackends();
  for (absl::string_view name : absl::StrSplit(xlite::tools::AvailableBackends(), ',')) {
    const std::string backend(absl::StripAsciiWhitespace(name));
    benchmark::RegisterBenchmark(("BM_SmallProgram/" + backend).c_str(), xlite::BM_SmallProgram,
                                 backend)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
