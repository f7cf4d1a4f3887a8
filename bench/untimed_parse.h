// A benchmark loop's fresh module, parsed with the timer paused; nullptr
// (and the benchmark skipped with the parser's message) when it does not
// parse.
#ifndef XLITE_BENCH_UNTIMED_PARSE_H_
#define XLITE_BENCH_UNTIMED_PARSE_H_

#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "xlite/text/parser.h"

namespace xlite {

inline std::unique_ptr<HloModule> UntimedParse(benchmark::State& state, const std::string& text) {
  state.PauseTiming();
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  state.ResumeTiming();
  if (!module.ok()) {
    state.SkipWithError(std::string(module.status().message()).c_str());
    return nullptr;
  }
  return std::move(*module);
}

}  // namespace xlite

#endif  // XLITE_BENCH_UNTIMED_PARSE_H_
