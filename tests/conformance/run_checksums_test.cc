// Runs every corpus module (split on `// -----`) the way `xlite run --random
// 0` does and compares each result's leaf checksums with the committed
// goldens in run_checksums.txt. Modules the evaluator cannot run yet are
// recorded as such, so the list of gaps shrinks visibly as opcodes land.
//
// Regenerate the goldens: XLITE_UPDATE_GOLDENS=1 build/tests/conformance/xlite_run_conformance_test
//
// Budget: a module whose static cost estimate (elements produced, dots and
// convolutions weighted by their reduction size, loop bodies counted once)
// exceeds kCostCap is skipped (deterministically, recorded in the goldens);
// each module runs in a forked child killed after kTimeLimitSeconds, recorded
// as `timeout` and never compared (it depends on the machine).
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tests/conformance/corpus.h"
#include "xlite/analysis/verifier.h"
#include "xlite/eval/custom_call_registry.h"
#include "xlite/eval/evaluator.h"
#include "xlite/eval/multi_device.h"
#include "xlite/ir/computation.h"
#include "xlite/runtime/array_summary.h"
#include "xlite/runtime/random_inputs.h"
#include "xlite/text/parser.h"

namespace xlite::conformance {
namespace {

constexpr double kCostCap = 2e7;
constexpr int kTimeLimitSeconds = 20;

std::string GoldenPath() { return XLITE_SOURCE_DIR "/tests/conformance/run_checksums.txt"; }

std::string OneLine(absl::string_view message) {
  std::string line(message.substr(0, message.find('\n')));
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

// Runs the prepared module as `xlite run --random 0` does; the outcome line.
std::string Evaluate(HloModule& module) {
  runtime::FillElidedConstants(module, 0);
  std::vector<Literal> args = runtime::RandomArguments(module, 0);
  EvalOptions options;
  int64_t devices = module.config().replica_count * module.config().num_partitions;
  absl::StatusOr<std::vector<Literal>> results;
  if (devices == 1) {
    Evaluator evaluator(options);
    absl::StatusOr<Literal> result = evaluator.Run(module, args);
    if (result.ok()) {
      results = std::vector<Literal>();
      results->push_back(*std::move(result));
    } else {
      results = result.status();
    }
  } else {
    std::vector<std::vector<Literal>> per_device;
    per_device.push_back(std::move(args));
    results = EvaluateOnAllDevices(module, per_device, options);
  }
  if (!results.ok()) {
    bool gap = results.status().code() == absl::StatusCode::kUnimplemented;
    return absl::StrCat(gap ? "unsupported: " : "error: ", OneLine(results.status().message()));
  }
  std::vector<std::string> devices_text;
  for (const Literal& result : *results) {
    std::vector<std::string> sums;
    for (const Literal* leaf : runtime::Leaves(result)) {
      sums.push_back(leaf->shape().IsArray() ? runtime::LeafChecksum(*leaf) : "token");
    }
    // "-" for an empty tuple keeps the line free of trailing spaces.
    devices_text.push_back(sums.empty() ? "-" : absl::StrJoin(sums, " "));
  }
  return absl::StrCat("ok ", absl::StrJoin(devices_text, " | "));
}

// Evaluate() in a child process, so that a slow module can be stopped (and a
// crash is reported instead of ending the whole test).
std::string EvaluateIsolated(HloModule& module) {
  int fds[2];
  if (pipe(fds) != 0) return "error: pipe failed";
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    std::string line = Evaluate(module);
    size_t done = 0;
    while (done < line.size()) {
      ssize_t n = write(fds[1], line.data() + done, line.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kTimeLimitSeconds);
  bool timed_out = false;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[4096];
    ssize_t n = read(fds[0], buffer, sizeof(buffer));
    if (n <= 0) break;
    line.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  if (timed_out) return "timeout";
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::StrCat("crash: signal ", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  }
  return line;
}

std::string Outcome(std::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) return "invalid: does not parse";
  if (!VerifyModule(**module).ok()) return "invalid: does not verify";
  std::vector<std::string> unknown = eval::CustomCallRegistry::BuiltIn().UnknownTargets(**module);
  if (!unknown.empty()) return absl::StrCat("skipped: custom-call ", absl::StrJoin(unknown, ","));
  double cost = EstimateCost(**module);
  if (cost > kCostCap) return absl::StrCat("skipped: cost estimate ", cost, " over the cap");
  return EvaluateIsolated(**module);
}

TEST(RunConformanceTest, CorpusChecksumsMatchGoldens) {
  std::vector<std::string> files = CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "no corpus at " << CorpusDir();
  std::map<std::string, std::string> current;
  for (const std::string& path : files) {
    std::string text = ReadFileOrDie(path);
    std::vector<InputChunk> chunks = SplitInputFile(text);
    std::string name = std::filesystem::path(path).filename().string();
    for (size_t i = 0; i < chunks.size(); ++i) {
      current[absl::StrCat(name, "#", i)] = Outcome(chunks[i].text);
    }
  }
  if (std::getenv("XLITE_UPDATE_GOLDENS") != nullptr) {
    std::ofstream out(GoldenPath());
    out << "# xlite run --random 0 over ../shared/corpus/hlo: module (file#chunk) -> outcome.\n"
           "# ok: fnv1a64 per result leaf (devices separated by |). Regenerate with\n"
           "# XLITE_UPDATE_GOLDENS=1 build/tests/conformance/xlite_run_conformance_test\n";
    for (const auto& [id, outcome] : current) out << id << " " << outcome << "\n";
    ASSERT_TRUE(out.good());
    GTEST_SKIP() << "wrote " << current.size() << " goldens to " << GoldenPath();
  }
  std::ifstream in(GoldenPath());
  ASSERT_TRUE(in.good()) << "no goldens at " << GoldenPath()
                         << "; generate them with XLITE_UPDATE_GOLDENS=1";
  std::map<std::string, std::string> golden;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    size_t space = line.find(' ');
    golden[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  std::vector<std::string> diffs;
  int64_t ok = 0, timeouts = 0;
  for (const auto& [id, outcome] : current) {
    if (outcome.rfind("ok", 0) == 0) ++ok;
    auto it = golden.find(id);
    if (it == golden.end()) {
      diffs.push_back(absl::StrCat(id, ": not in the goldens; now: ", outcome));
      continue;
    }
    if (outcome == "timeout" || it->second == "timeout") {
      timeouts += outcome == "timeout";
      continue;
    }
    if (it->second != outcome) {
      diffs.push_back(absl::StrCat(id, ":\n  golden: ", it->second, "\n  now:    ", outcome));
    }
  }
  for (const auto& [id, outcome] : golden) {
    if (!current.count(id)) diffs.push_back(absl::StrCat(id, ": in the goldens, not the corpus"));
  }
  std::cout << current.size() << " modules, " << ok << " ran, " << timeouts
            << " timed out (not compared)\n";
  if (diffs.size() > 30) diffs.resize(30);
  EXPECT_TRUE(diffs.empty()) << absl::StrJoin(diffs, "\n")
                             << "\n(if intended: XLITE_UPDATE_GOLDENS=1 regenerates them)";
}

}  // namespace
}  // namespace xlite::conformance
