// Adversarial robustness: mutates the real modules of the corpus the way a
// fuzzer of semantics would (a dimension set to 0, 1, 2^31 or 2^63-1; an
// attribute or operand number set to an extreme; an element type or opcode
// swapped) and runs verify, the default pass pipeline, cost analysis and the
// evaluator (under a memory budget and a deadline) on each mutant. None may
// crash, abort or hang, and every refusal must be a message.
//
// A bounded run is part of ctest; XLITE_ADVERSARIAL_MUTATIONS=N runs N
// mutations (XLITE_ADVERSARIAL_SEED picks another stream) over every module.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/conformance/corpus.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/memory_estimate.h"
#include "xlite/analysis/verifier.h"
#include "xlite/eval/evaluator.h"
#include "xlite/eval/multi_device.h"
#include "xlite/ir/opcode.h"
#include "xlite/ir/primitive_type.h"
#include "xlite/passes/pipeline.h"
#include "xlite/runtime/random_inputs.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kDefaultMutations = 1000;
// Modules above this size are left to the long mode (parsing and optimising
// them dominates the bounded run otherwise).
constexpr size_t kBoundedModuleBytes = 48 * 1024;
constexpr int64_t kMemoryBudget = 64 << 20;
constexpr auto kEvalDeadline = std::chrono::milliseconds(500);
constexpr int64_t kMaxDevices = 8;
// A single mutant taking longer than this is a hang.
constexpr auto kHangLimit = std::chrono::seconds(60);

const char* const kExtremes[] = {
    "0", "1", "2147483648", "9223372036854775807", "-1", "-9223372036854775808", "4294967296"};
const char* const kDimensions[] = {"0", "1", "2147483648", "9223372036854775807"};

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::strtoll(value, nullptr, 10) : fallback;
}

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A span of the text to replace.
struct Site {
  size_t begin, end;
};

// The sites of each kind of mutation in one module's text, found in one scan.
struct Sites {
  std::vector<Site> dimensions;     // numbers inside `type[...]`
  std::vector<Site> numbers;        // other numbers outside names
  std::vector<Site> element_types;  // `type` of `type[`
  std::vector<Site> opcodes;        // `opcode` of `opcode(`
};

bool IsTypeName(std::string_view word) {
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    PrimitiveType t = static_cast<PrimitiveType>(i);
    if (IsArrayType(t) && PrimitiveTypeName(t) == word) return true;
  }
  return false;
}

bool IsOpcodeName(std::string_view word) {
  for (int i = 0; i < kNumOpcodes; ++i) {
    if (OpcodeName(static_cast<HloOpcode>(i)) == word) return true;
  }
  return false;
}

Sites FindSites(const std::string& text) {
  Sites sites;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '"') {  // strings (metadata, configs) are left alone
      size_t close = text.find('"', i + 1);
      i = close == std::string::npos ? n : close + 1;
      continue;
    }
    if (!IsIdentChar(c)) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < n && IsIdentChar(text[i])) ++i;
    std::string_view word(text.data() + start, i - start);
    bool all_digits = true;
    for (char w : word) all_digits &= IsDigit(w);
    bool after_name_sigil = start > 0 && (text[start - 1] == '%' || text[start - 1] == '#');
    if (all_digits && !after_name_sigil) {
      sites.numbers.push_back({start, i});
      continue;
    }
    if (i < n && text[i] == '[' && IsTypeName(word)) {
      sites.element_types.push_back({start, i});
      size_t close = text.find(']', i);
      if (close == std::string::npos) break;
      for (size_t j = i + 1; j < close;) {
        if (!IsDigit(text[j])) {
          ++j;
          continue;
        }
        size_t d = j;
        while (j < close && IsDigit(text[j])) ++j;
        sites.dimensions.push_back({d, j});
      }
      i = close + 1;
      continue;
    }
    if (i < n && text[i] == '(' && !after_name_sigil && IsOpcodeName(word)) {
      sites.opcodes.push_back({start, i});
    }
  }
  return sites;
}

struct Mutant {
  std::string text;
  std::string description;
};

// One random mutation of `text`; false when the module has no site of the
// kind drawn.
bool Mutate(const std::string& text, const Sites& sites, std::mt19937_64& rng, Mutant* mutant) {
  auto pick = [&](const std::vector<Site>& from) -> const Site* {
    if (from.empty()) return nullptr;
    return &from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(rng)];
  };
  auto replace = [&](const Site& site, std::string_view with, const char* kind) {
    mutant->text = text.substr(0, site.begin) + std::string(with) + text.substr(site.end);
    mutant->description = std::string(kind) + " at byte " + std::to_string(site.begin) + ": '" +
                          text.substr(site.begin, site.end - site.begin) + "' -> '" +
                          std::string(with) + "'";
  };
  switch (std::uniform_int_distribution<int>(0, 4)(rng)) {
    case 4: {
      // Every dimension of one size changed alike: the module stays
      // consistent, so the mutant reaches the passes and the evaluator.
      const Site* site = pick(sites.dimensions);
      if (site == nullptr) return false;
      const std::string from = text.substr(site->begin, site->end - site->begin);
      const std::string to = kDimensions[rng() % std::size(kDimensions)];
      mutant->text.clear();
      size_t done = 0;
      for (const Site& d : sites.dimensions) {
        if (text.compare(d.begin, d.end - d.begin, from) != 0) continue;
        mutant->text.append(text, done, d.begin - done).append(to);
        done = d.end;
      }
      mutant->text.append(text, done, std::string::npos);
      mutant->description = "every dimension " + from + " -> " + to;
      return true;
    }
    case 0: {
      const Site* site = pick(sites.dimensions);
      if (site == nullptr) return false;
      replace(*site, kDimensions[rng() % std::size(kDimensions)], "dimension");
      return true;
    }
    case 1: {
      const Site* site = pick(sites.numbers);
      if (site == nullptr) return false;
      std::string_view value = kExtremes[rng() % std::size(kExtremes)];
      // A negative number where the grammar has none is a plain parse error;
      // keep most mutants parseable.
      if (value[0] == '-' && rng() % 2 == 0) value.remove_prefix(1);
      replace(*site, value, "number");
      return true;
    }
    case 2: {
      const Site* site = pick(sites.element_types);
      if (site == nullptr) return false;
      PrimitiveType to;
      do {
        to = static_cast<PrimitiveType>(rng() % kNumPrimitiveTypes);
      } while (!IsArrayType(to));
      replace(*site, PrimitiveTypeName(to), "element type");
      return true;
    }
    default: {
      const Site* site = pick(sites.opcodes);
      if (site == nullptr) return false;
      replace(*site, OpcodeName(static_cast<HloOpcode>(rng() % kNumOpcodes)), "opcode");
      return true;
    }
  }
}

// What the mutants did, for the summary line.
struct Tally {
  int64_t mutants = 0, parse_errors = 0, verify_errors = 0, cost_errors = 0;
  int64_t pipeline_errors = 0, run_refused = 0, run_errors = 0, runs = 0;
};

// Fails the test when a refusal has no message to show; with
// XLITE_ADVERSARIAL_VERBOSE set, prints the first line of each.
void ExpectMessage(const absl::Status& status, const Mutant& mutant, const char* stage) {
  EXPECT_FALSE(status.message().empty())
      << stage << " refused without a message: " << mutant.description;
  static const bool verbose = std::getenv("XLITE_ADVERSARIAL_VERBOSE") != nullptr;
  if (verbose) {
    absl::string_view message = status.message();
    std::fprintf(stderr, "  %s: %.*s\n", stage,
                 static_cast<int>(std::min(message.find('\n'), message.size())), message.data());
  }
}

absl::StatusOr<std::unique_ptr<HloModule>> Parse(const std::string& text) {
  return ParseHloModule(text);
}

void Evaluate(const Mutant& mutant, Tally& tally) {
  absl::StatusOr<std::unique_ptr<HloModule>> parsed = Parse(mutant.text);
  if (!parsed.ok()) return;
  HloModule& module = **parsed;
  RunMemoryEstimate estimate = EstimateRunMemory(module);
  if (estimate.devices > kMaxDevices || estimate.total_bytes > kMemoryBudget) {
    ++tally.run_refused;
    return;
  }
  runtime::FillElidedConstants(module, 0);
  std::vector<Literal> args = runtime::RandomArguments(module, 0);
  EvalOptions options;
  options.deadline = Clock::now() + kEvalDeadline;
  absl::Status status;
  if (estimate.devices == 1) {
    Evaluator evaluator(options);
    status = evaluator.Run(module, args).status();
  } else {
    std::vector<std::vector<Literal>> per_device;
    per_device.push_back(std::move(args));
    status = EvaluateOnAllDevices(module, per_device, options).status();
  }
  ++tally.runs;
  if (!status.ok()) {
    ++tally.run_errors;
    ExpectMessage(status, mutant, "run");
  }
}

// Runs every stage on one mutant.
void Exercise(const Mutant& mutant, PassPipeline& pipeline, Tally& tally) {
  ++tally.mutants;
  absl::StatusOr<std::unique_ptr<HloModule>> parsed = Parse(mutant.text);
  if (!parsed.ok()) {
    ++tally.parse_errors;
    ExpectMessage(parsed.status(), mutant, "parse");
    return;
  }
  HloModule& module = **parsed;
  if (absl::Status valid = VerifyModule(module); !valid.ok()) {
    ++tally.verify_errors;
    ExpectMessage(valid, mutant, "verify");
    return;
  }
  absl::StatusOr<ModuleCost> cost = AnalyzeModuleCost(module);
  if (!cost.ok()) {
    ++tally.cost_errors;
    ExpectMessage(cost.status(), mutant, "cost");
  }
  Evaluate(mutant, tally);
  PipelineReport report;
  absl::StatusOr<bool> changed = pipeline.Run(module, PipelineOptions(), &report);
  if (!changed.ok()) {
    ++tally.pipeline_errors;
    ExpectMessage(changed.status(), mutant, "opt --pipeline=default");
  }
}

// Ends the process with the mutant's description when one takes too long:
// a hang is a failure to report, not a test that never ends.
class HangWatchdog {
 public:
  HangWatchdog() : thread_([this] { Watch(); }) {}
  ~HangWatchdog() {
    done_ = true;
    thread_.join();
  }
  void Start(const std::string* description) {
    description_ = description;
    started_ = Clock::now().time_since_epoch().count();
  }

 private:
  void Watch() {
    while (!done_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      Clock::duration elapsed = Clock::now().time_since_epoch() - Clock::duration(started_.load());
      if (started_.load() != 0 && elapsed > kHangLimit) {
        std::fprintf(stderr, "adversarial: hang (over %lld s) on mutant: %s\n",
                     static_cast<long long>(kHangLimit.count()), description_.load()->c_str());
        std::abort();
      }
    }
  }

  std::atomic<bool> done_{false};
  std::atomic<Clock::rep> started_{0};
  std::atomic<const std::string*> description_{nullptr};
  std::thread thread_;
};

TEST(AdversarialTest, MutatedCorpusModulesNeverCrashNorHang) {
  std::vector<std::string> files = conformance::CorpusFiles();
  if (files.empty()) {
    GTEST_SKIP() << "corpus absent (" << conformance::CorpusDir() << "): nothing to mutate";
  }
  const int64_t mutations = EnvInt("XLITE_ADVERSARIAL_MUTATIONS", kDefaultMutations);
  const bool bounded = std::getenv("XLITE_ADVERSARIAL_MUTATIONS") == nullptr;
  std::mt19937_64 rng(static_cast<uint64_t>(EnvInt("XLITE_ADVERSARIAL_SEED", 1)));
  struct Source {
    std::string name, text;
    Sites sites;
  };
  std::vector<Source> sources;
  for (const std::string& path : files) {
    std::string file = conformance::ReadFileOrDie(path);
    if (bounded && file.size() > kBoundedModuleBytes) continue;
    // Files with `// -----` separators hold several modules: each is one
    // source to mutate.
    std::vector<InputChunk> chunks = SplitInputFile(file);
    for (size_t c = 0; c < chunks.size(); ++c) {
      std::string text(chunks[c].text);
      if (!Parse(text).ok()) continue;  // mutate what parses to begin with
      Sites sites = FindSites(text);
      std::string name = conformance::TestNameForPath(path);
      if (chunks.size() > 1) name += "#" + std::to_string(c);
      sources.push_back({std::move(name), std::move(text), std::move(sites)});
    }
  }
  ASSERT_FALSE(sources.empty());
  absl::StatusOr<PassPipeline> pipeline = ParsePipelineSpec("default");
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  HangWatchdog watchdog;
  Tally tally;
  Clock::time_point start = Clock::now();
  for (int64_t m = 0; m < mutations; ++m) {
    const Source& source = sources[m % sources.size()];
    Mutant mutant;
    if (!Mutate(source.text, source.sites, rng, &mutant)) continue;
    mutant.description = source.name + ": " + mutant.description;
    watchdog.Start(&mutant.description);
    // Printed first, so that a crash names the mutant that caused it.
    std::fprintf(stderr, "mutant %lld: %s\n", static_cast<long long>(m),
                 mutant.description.c_str());
    Exercise(mutant, *pipeline, tally);
    if (::testing::Test::HasFailure()) break;
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf(
      "adversarial: %lld mutants of %zu modules in %.1f s: %lld parse errors, %lld "
      "verify errors, %lld cost errors, %lld pipeline errors, %lld runs (%lld errors), "
      "%lld runs refused by the budget; no crash, abort or hang\n",
      static_cast<long long>(tally.mutants), sources.size(), seconds,
      static_cast<long long>(tally.parse_errors), static_cast<long long>(tally.verify_errors),
      static_cast<long long>(tally.cost_errors), static_cast<long long>(tally.pipeline_errors),
      static_cast<long long>(tally.runs), static_cast<long long>(tally.run_errors),
      static_cast<long long>(tally.run_refused));
}

}  // namespace
}  // namespace xlite
