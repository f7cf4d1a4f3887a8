// Test helpers of the cpu backend's tests: a module run on the cpu backend
// and on the interpreter for a few random seeds and compared, and a look
// into the profile report for which thunk took an instruction.
#ifndef XLITE_BACKENDS_CPU_CPU_TEST_UTIL_H_
#define XLITE_BACKENDS_CPU_CPU_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/differential/literal_compare.h"
#include "xlite/analysis/verifier.h"
#include "xlite/backends/cpu/cpu_executable.h"
#include "xlite/eval/interpreter_executable.h"
#include "xlite/runtime/random_inputs.h"
#include "xlite/text/parser.h"

namespace xlite::cpu {

// Runs `text` on both backends for a few seeds and compares; returns the
// cpu backend's profile report.
inline std::string ExpectSameAsInterpreter(const std::string& text, double relative = 0,
                                           int threads = 2) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return "";
  absl::Status verified = VerifyModule(**module);
  EXPECT_TRUE(verified.ok()) << verified.message();
  runtime::CompileOptions options;
  options.threads = threads;
  options.profile = true;
  auto cpu = CompileCpuExecutable(**module, options);
  EXPECT_TRUE(cpu.ok()) << cpu.status();
  if (!cpu.ok()) return "";
  auto interpreter = eval::MakeInterpreterExecutable(**module);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    std::vector<Literal> args = runtime::RandomArguments(**module, seed);
    auto want = interpreter->Execute(args, {});
    auto got = (*cpu)->Execute(args, {});
    EXPECT_TRUE(want.ok()) << want.status();
    EXPECT_TRUE(got.ok()) << got.status();
    if (!want.ok() || !got.ok()) return "";
    EXPECT_EQ(testing::CompareLiterals(*want, *got, {0, relative}), "") << "seed " << seed;
  }
  return (*cpu)->ProfileReport();
}

inline bool HasLine(const std::string& report, const std::string& kind, const std::string& name) {
  for (size_t at = 0; (at = report.find(name, at)) != std::string::npos; ++at) {
    size_t line = report.rfind('\n', at);
    line = line == std::string::npos ? 0 : line + 1;
    if (report.compare(line, kind.size(), kind) == 0) return true;
  }
  return false;
}

// The thunk convolutions take: oneDNN's where the build has it.
#if XLITE_HAVE_DNNL
inline constexpr char kConvKind[] = "conv";
#else
inline constexpr char kConvKind[] = "fallback";
#endif

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_CPU_TEST_UTIL_H_
