// The cpu backend against the reference evaluator: every module of
// tests/lit (files split on `// -----`), examples/ and the corpus
// (XLITE_CORPUS_DIR) that the interpreter runs on random inputs (seed 0)
// within kInterpreterSeconds is run on the cpu backend, with a deadline of
// its own, and the results must agree.
//
// Agreement: integers, pred and tokens exactly. Floats within kMaxUlps units
// in the last place of their own type, or |got - want| <= kRelative *
// max(1, |want|): f32 exp, log, tanh and logistic are inline approximations
// within 2 ulp (fast_math.h; other transcendentals call the evaluator's libm
// functions), and the vectorised reduce kernels, OpenBLAS and oneDNN
// reassociate sums, which moves a sum of n terms by about n * eps *
// max|partial sum|; for the corpus' sums of up to
// ~10^4 values of random inputs in [-1, 1) that stays below 1e-4 of
// max(1, |result|) in f32 (1e-10 in f64). NaN equals NaN, -0 equals +0.
//
// Modules the interpreter refuses (multi-device, unknown custom calls, rng
// whose stream the fallback draws in another order, errors) or that take it
// longer than kInterpreterSeconds are skipped and counted. Each module id is
// printed to stderr before it runs (a hang is then findable), and the test
// stops starting modules after kBudgetSeconds.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tests/conformance/corpus.h"
#include "tests/differential/literal_compare.h"
#include "xlite/analysis/verifier.h"
#include "xlite/backends/cpu/cpu_executable.h"
#include "xlite/eval/custom_call_registry.h"
#include "xlite/eval/interpreter_executable.h"
#include "xlite/ir/computation.h"
#include "xlite/runtime/array_summary.h"
#include "xlite/runtime/random_inputs.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kInterpreterSeconds = 2;
constexpr double kCpuSeconds = 10;
constexpr double kBudgetSeconds = 150;
constexpr double kCostCap = 1e9;
constexpr int64_t kMaxUlps = 4;
double RelativeBound(const Literal& want) {
  for (const Literal* leaf : runtime::Leaves(want)) {
    if (leaf->shape().IsArray() && (leaf->shape().element_type() == PrimitiveType::F64 ||
                                    leaf->shape().element_type() == PrimitiveType::C128)) {
      return 1e-10;
    }
  }
  return 1e-4;
}

struct Input {
  std::string id;  // path#chunk
  std::string text;
};

void AddHloFiles(const std::string& dir, bool recursive, std::vector<std::string>& paths) {
  if (!std::filesystem::exists(dir)) return;
  // lit's Output/ folders hold what earlier lit runs generated (deep and
  // refused modules among them), not test sources.
  auto add = [&](const std::filesystem::directory_entry& entry) {
    if (entry.path().extension() == ".hlo" && entry.path().parent_path().filename() != "Output") {
      paths.push_back(entry.path().string());
    }
  };
  if (recursive) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) add(entry);
  } else {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) add(entry);
  }
}

std::vector<Input> Inputs() {
  std::vector<std::string> paths;
  AddHloFiles(XLITE_SOURCE_DIR "/tests/lit", true, paths);
  AddHloFiles(XLITE_SOURCE_DIR "/examples", true, paths);
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> corpus = conformance::CorpusFiles();
  paths.insert(paths.end(), corpus.begin(), corpus.end());
  std::vector<Input> inputs;
  for (const std::string& path : paths) {
    std::string text = conformance::ReadFileOrDie(path);
    std::vector<InputChunk> chunks = SplitInputFile(text);
    std::string name = std::filesystem::relative(path, XLITE_SOURCE_DIR).string();
    if (name.rfind("..", 0) == 0) name = std::filesystem::path(path).filename().string();
    for (size_t i = 0; i < chunks.size(); ++i) {
      inputs.push_back({absl::StrCat(name, "#", i), std::string(chunks[i].text)});
    }
  }
  return inputs;
}

bool HasRng(const HloModule& module) {
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) {
      if (inst->opcode() == HloOpcode::kRng) return true;
    }
  }
  return false;
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Clock::time_point After(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

struct Tally {
  int64_t checked = 0;
  std::map<std::string, int64_t> skipped;
  std::vector<std::string> failures;
};

// The reason `input` was skipped, or "" when it was compared.
std::string Check(const Input& input, Tally& tally) {
  auto module = ParseHloModule(input.text);
  if (!module.ok() || !VerifyModule(**module).ok()) return "does not parse or verify";
  runtime::FillElidedConstants(**module, 0);
  if ((*module)->config().DeviceCount() != 1) return "multi-device";
  if (HasRng(**module)) return "rng (the draw order is the evaluator's)";
  if (!eval::CustomCallRegistry::BuiltIn().UnknownTargets(**module).empty()) {
    return "unknown custom-call target";
  }
  if (conformance::EstimateCost(**module) > kCostCap) return "cost estimate over the cap";
  std::vector<Literal> args = runtime::RandomArguments(**module, 0);
  runtime::ExecuteOptions options;
  options.deadline = After(kInterpreterSeconds);
  auto want = eval::MakeInterpreterExecutable(**module)->Execute(args, options);
  if (!want.ok()) {
    return want.status().code() == absl::StatusCode::kDeadlineExceeded
               ? "the interpreter takes over 2 s"
               : "the interpreter cannot run it";
  }
  runtime::CompileOptions compile_options;
  compile_options.threads = 2;
  auto executable = cpu::CompileCpuExecutable(**module, compile_options);
  if (!executable.ok()) {
    tally.failures.push_back(
        absl::StrCat(input.id, ": compile failed: ", executable.status().ToString()));
    return "";
  }
  options.deadline = After(kCpuSeconds);
  auto got = (*executable)->Execute(args, options);
  if (!got.ok()) {
    tally.failures.push_back(
        absl::StrCat(input.id, ": cpu backend failed: ", got.status().ToString()));
    return "";
  }
  std::string diff = testing::CompareLiterals(*want, *got, {kMaxUlps, RelativeBound(*want)});
  if (!diff.empty()) tally.failures.push_back(absl::StrCat(input.id, ": ", diff));
  return "";
}

TEST(CpuDifferentialTest, CpuBackendMatchesTheInterpreter) {
  std::vector<Input> inputs = Inputs();
  if (conformance::CorpusFiles().empty()) {
    std::cout << "note: no corpus at " << conformance::CorpusDir() << "; lit inputs only\n";
  }
  Tally tally;
  const auto start = Clock::now();
  for (const Input& input : inputs) {
    if (SecondsSince(start) > kBudgetSeconds) {
      ++tally.skipped["time budget spent"];
      continue;
    }
    std::cerr << "cpu differential: " << input.id << std::endl;
    std::string reason = Check(input, tally);
    if (reason.empty()) {
      ++tally.checked;
    } else {
      ++tally.skipped[reason];
    }
  }
  std::cout << inputs.size() << " modules: " << tally.checked << " compared";
  for (const auto& [reason, n] : tally.skipped) std::cout << "; " << n << " skipped: " << reason;
  std::cout << " (" << SecondsSince(start) << " s)\n";
  EXPECT_GT(tally.checked, 0);
  if (tally.failures.size() > 40) tally.failures.resize(40);
  EXPECT_TRUE(tally.failures.empty()) << absl::StrJoin(tally.failures, "\n");
}

}  // namespace
}  // namespace xlite
