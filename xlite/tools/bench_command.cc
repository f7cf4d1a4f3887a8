// `xlite bench`: compiles a module once for a backend, runs it warmup then
// repeat times on the same inputs and prints the median/min/max time of a
// whole execution, the FLOP/s and bytes/s the cost analysis implies, and the
// share of the host roofline measured by `xlite calibrate`, as text or JSON.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xlite/analysis/collective_model.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/base/byte_text.h"
#include "xlite/base/file_io.h"
#include "xlite/base/status.h"
#include "xlite/compiler/compile.h"
#include "xlite/ir/module.h"
#include "xlite/text/printer.h"
#include "xlite/tools/backends.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/flag_checks.h"
#include "xlite/tools/input.h"
#include "xlite/tools/out_of_memory.h"
#include "xlite/tools/process_memory.h"
#include "xlite/tools/run_inputs.h"

namespace xlite::tools {
namespace {

struct BenchOptions {
  std::string path;
  ArgumentSource inputs;
  std::string backend = DefaultBackend();
  int threads = 0;  // 0: one per core
  int warmup = 1;
  int repeat = 10;
  std::optional<int64_t> memory_budget;
  bool json = false;
  bool profile = false;       // the backend's time per kernel/thunk, over every execution
  bool report = false;        // predicted memory and time beside what the run measured
  std::string save_compiled;  // the module as the backend runs it
};

// What one `xlite bench` measured.
struct Measurement {
  std::string module;
  double compile_ms = 0;
  std::vector<double> run_ms;  // sorted
  double flops = 0;
  double bytes_accessed = 0;
  // The host's roofline time of the module (as `xlite cost --device host`
  // sums it), or why it is unknown.
  std::optional<double> roofline_ms;
  std::string roofline_note;
  int64_t arena_bytes = -1;   // the backend's arena, -1 when it has none
  int64_t scratch_bytes = 0;  // its library calls' working space
  // What the compiler predicts the run holds at its peak (`xlite mem
  // --backend`: arguments, outputs and the arena), -1 when the backend plans
  // no arena; and what the process held: its resident set once the module
  // was parsed (the baseline) and at its highest.
  int64_t predicted_peak_bytes = -1;
  int64_t baseline_rss_bytes = 0, peak_rss_bytes = 0;
};

double MillisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Of a sorted, non-empty list; the mean of the middle two for an even count.
double Median(const std::vector<double>& sorted) {
  const size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

// Per second of `ms`, in units of 1e9; 0 when nothing was timed.
double GigaPerSecond(double count, double ms) { return ms > 0 ? count / (ms * 1e6) : 0; }

// The roofline share: how much of the measured time the host's limits
// explain (1 = as fast as the calibrated peaks allow). It exceeds 1 when a
// backend avoids memory traffic the per-instruction count includes (fusion).
std::optional<double> RooflineShare(const Measurement& m) {
  if (!m.roofline_ms) return std::nullopt;
  const double median = Median(m.run_ms);
  return median > 0 ? std::optional<double>(*m.roofline_ms / median) : std::nullopt;
}

void SetRoofline(const ModuleCost& cost, Measurement* m) {
  absl::StatusOr<DeviceSpec> host = LoadDeviceSpec("host");
  if (!host.ok()) {
    m->roofline_note = std::string(host.status().message());
    return;
  }
  double seconds = 0;
  for (const InstructionCost& entry : cost.instructions) {
    seconds += InstructionRoofline(entry, *host).seconds;
  }
  m->roofline_ms = seconds * 1e3;
}

// Predicted beside measured: memory (the process's growth over its baseline
// against the compiler's peak) and time (the host roofline against the
// median).
std::string ReportText(const Measurement& m) {
  std::string out = "predicted vs measured:\n";
  const int64_t grown = m.peak_rss_bytes - m.baseline_rss_bytes;
  const std::string measured =
      absl::StrFormat("measured peak RSS %s, %s over the %s once the module was parsed",
                      BytesText(m.peak_rss_bytes, false), BytesText(grown, false),
                      BytesText(m.baseline_rss_bytes, false));
  if (m.predicted_peak_bytes >= 0) {
    const int64_t expected = m.predicted_peak_bytes + m.scratch_bytes;
    absl::StrAppendFormat(
        &out,
        "  memory: predicted peak %s (arguments, outputs, arena %s) + library scratch %s; %s "
        "(%.1f%% of predicted + scratch)\n",
        BytesText(m.predicted_peak_bytes, false), BytesText(m.arena_bytes, false),
        BytesText(m.scratch_bytes, false), measured,
        expected > 0 ? 100.0 * static_cast<double>(grown) / static_cast<double>(expected) : 0.0);
  } else {
    absl::StrAppendFormat(&out, "  memory: no prediction for this backend (no arena); %s\n",
                          measured);
  }
  if (m.roofline_ms) {
    absl::StrAppendFormat(&out,
                          "  time: predicted %.4g ms (host roofline); measured median %.4g ms\n",
                          *m.roofline_ms, Median(m.run_ms));
  } else {
    absl::StrAppendFormat(&out, "  time: no prediction (%s); measured median %.4g ms\n",
                          m.roofline_note, Median(m.run_ms));
  }
  return out;
}

std::string FormatText(const BenchOptions& options, const Measurement& m) {
  const double median = Median(m.run_ms);
  std::string out;
  absl::StrAppendFormat(&out, "module: %s\n", m.module);
  absl::StrAppendFormat(&out, "backend: %s (threads: %s)\n", options.backend,
                        options.threads == 0 ? "one per core" : absl::StrCat(options.threads));
  absl::StrAppendFormat(&out, "compile: %.4g ms\n", m.compile_ms);
  absl::StrAppendFormat(&out, "runs: %d after %d warmup\n", options.repeat, options.warmup);
  absl::StrAppendFormat(&out, "time: median %.4g ms, min %.4g ms, max %.4g ms\n", median,
                        m.run_ms.front(), m.run_ms.back());
  absl::StrAppendFormat(&out, "flops: %.6g (%.3f GFLOP/s)\n", m.flops,
                        GigaPerSecond(m.flops, median));
  absl::StrAppendFormat(&out, "bytes accessed: %s (%.3f GB/s)\n", ApproxBytesText(m.bytes_accessed),
                        GigaPerSecond(m.bytes_accessed, median));
  if (std::optional<double> share = RooflineShare(m)) {
    absl::StrAppendFormat(&out, "host roofline: %.4g ms, share %.1f%%\n", *m.roofline_ms,
                          100 * *share);
  } else {
    absl::StrAppendFormat(&out, "host roofline: unknown (%s)\n", m.roofline_note);
  }
  if (options.report) out += ReportText(m);
  return out;
}

std::string FormatJson(const BenchOptions& options, const Measurement& m) {
  const double median = Median(m.run_ms);
  nlohmann::ordered_json json;
  json["module"] = m.module;
  json["backend"] = options.backend;
  json["threads"] = options.threads;
  json["warmup"] = options.warmup;
  json["repeat"] = options.repeat;
  json["compile_ms"] = m.compile_ms;
  json["median_ms"] = median;
  json["min_ms"] = m.run_ms.front();
  json["max_ms"] = m.run_ms.back();
  json["flops"] = m.flops;
  json["bytes_accessed"] = m.bytes_accessed;
  json["arena_bytes"] = m.arena_bytes >= 0 ? nlohmann::ordered_json(m.arena_bytes) : nullptr;
  json["scratch_bytes"] = m.scratch_bytes;
  json["predicted_peak_bytes"] =
      m.predicted_peak_bytes >= 0 ? nlohmann::ordered_json(m.predicted_peak_bytes) : nullptr;
  json["baseline_rss_bytes"] = m.baseline_rss_bytes;
  json["peak_rss_bytes"] = m.peak_rss_bytes;
  json["gflops"] = GigaPerSecond(m.flops, median);
  json["gbytes_per_s"] = GigaPerSecond(m.bytes_accessed, median);
  json["roofline_ms"] = m.roofline_ms ? nlohmann::ordered_json(*m.roofline_ms) : nullptr;
  std::optional<double> share = RooflineShare(m);
  json["roofline_share"] = share ? nlohmann::ordered_json(*share) : nullptr;
  if (!share) json["roofline_note"] = m.roofline_note;
  return json.dump(2) + "\n";
}

// The measurement, or why the module could not be benched.
absl::StatusOr<Measurement> Measure(const BenchOptions& options) {
  XLITE_ASSIGN_OR_RETURN(RunnableModule loaded,
                         LoadRunnableModule(options.path, options.memory_budget, false));
  HloModule& module = *loaded.module;
  const int64_t baseline_rss = ResidentBytes();  // before the inputs exist
  if (module.config().DeviceCount() > 1) {
    return absl::InvalidArgumentError(
        "not supported yet: xlite bench on multi-device modules (use xlite run)");
  }
  // Without --inputs the arguments (and elided constants) come from a seed.
  ArgumentSource inputs = options.inputs;
  if (!inputs.from_files() && !inputs.seed) inputs.seed = 0;
  XLITE_RETURN_IF_ERROR(FillOrRefuseElidedConstants(module, inputs.seed).status());
  SetActivity(absl::StrCat("preparing the inputs of ", loaded.name));
  XLITE_ASSIGN_OR_RETURN(std::vector<Literal> args, EntryArguments(module, inputs));

  Measurement m;
  m.module = module.name();
  m.baseline_rss_bytes = baseline_rss;
  XLITE_ASSIGN_OR_RETURN(ModuleCost cost, AnalyzeModuleCost(module, CostOptions()));
  m.flops = cost.total.flops;
  m.bytes_accessed = cost.total.bytes_accessed;
  SetRoofline(cost, &m);

  SetActivity(absl::StrCat("compiling ", loaded.name));
  compiler::CompileOptions compile;
  compile.backend = options.backend;
  compile.analyze_memory = compiler::FindBackend(options.backend)->PlansArena();
  compile.build_executable = true;
  compile.executable_options.threads = options.threads;
  compile.executable_options.profile = options.profile;
  auto compile_start = std::chrono::steady_clock::now();
  absl::StatusOr<compiler::CompileResult> compiled = compiler::Compile(module, compile);
  if (!compiled.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("compilation failed: ", compiled.status().message()));
  }
  m.compile_ms = MillisecondsSince(compile_start);
  if (compiled->memory.has_value()) {
    const MemoryReport& memory = *compiled->memory;
    m.predicted_peak_bytes = memory.parameter_bytes + memory.output_bytes + memory.arena_bytes;
  }
  if (!options.save_compiled.empty()) {
    XLITE_RETURN_IF_ERROR(WriteBinaryFile(options.save_compiled, PrintModule(module)));
  }
  runtime::Executable& executable = *compiled->executable;
  m.arena_bytes = executable.arena_bytes();
  m.scratch_bytes = executable.scratch_bytes();

  SetActivity(absl::StrCat("running ", loaded.name));
  runtime::ExecuteOptions execute_options;
  execute_options.rng_seed = inputs.seed.value_or(0);
  for (int i = 0; i < options.warmup + options.repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    // The result is produced (and freed) within the timed call, so that two
    // results are never alive at once.
    absl::Status status = executable.Execute(args, execute_options).status();
    const double ms = MillisecondsSince(start);
    if (!status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("evaluation failed: ", status.message()));
    }
    if (i >= options.warmup) m.run_ms.push_back(ms);
  }
  std::sort(m.run_ms.begin(), m.run_ms.end());
  m.peak_rss_bytes = PeakResidentBytes();
  if (options.profile) std::cerr << executable.ProfileReport();
  return m;
}

int RunBench(const BenchOptions& options) {
  if (!IsBackend(options.backend)) {
    PrintError(absl::StrCat("xlite bench: error: unknown backend '", options.backend,
                            "' (available: ", AvailableBackends(), ")"));
    return kExitUsage;
  }
  absl::StatusOr<Measurement> m = Measure(options);
  if (!m.ok()) {
    PrintCommandError("bench", "", m.status().message());
    return kExitInvalidInput;
  }
  std::cout << (options.json ? FormatJson(options, *m) : FormatText(options, *m));
  return kExitOk;
}

}  // namespace

void AddBenchCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* command = app.add_subcommand(
      "bench",
      "Compile a module once for a backend, run it --warmup times untimed and --repeat times "
      "timed on the same inputs, and print the compile time, the median/min/max time of a "
      "whole execution (inputs ready to result produced), the GFLOP/s and GB/s that the cost "
      "analysis's flops and bytes accessed give at the median, and the share of the host "
      "roofline (`xlite cost --device host` time / median; needs `xlite calibrate --install`).");
  command->add_option("input", options->path, "HLO text file, or - for stdin")->required();
  command
      ->add_option("--backend", options->backend,
                   absl::StrCat("Backend to run on (", AvailableBackends(), ")"))
      ->capture_default_str();
  command->add_option("--warmup", options->warmup, "Untimed executions first")
      ->capture_default_str()
      ->check(IntegerIn(0, 1 << 20));
  command->add_option("--repeat", options->repeat, "Timed executions")
      ->capture_default_str()
      ->check(IntegerIn(1, 1 << 20));
  command
      ->add_option("--threads", options->threads, "Worker threads of the backend (0: one per core)")
      ->capture_default_str()
      ->check(IntegerIn(0, kMaxThreads));
  command->add_option("--inputs", options->inputs.inputs_npz,
                      "An .npz holding arg0, arg1... in entry-parameter order");
  command
      ->add_option("--random", options->inputs.seed,
                   "Generate the inputs (and fill elided {...} constants) from this seed "
                   "(the default, with seed 0, when --inputs is not given)")
      ->check(UnsignedInteger());
  command
      ->add_option("--memory-budget", options->memory_budget,
                   "Refuse a module whose estimated memory exceeds BYTES (default: the "
                   "available memory)")
      ->check(IntegerIn(0, std::numeric_limits<int64_t>::max()));
  command->add_flag("--json", options->json,
                    "Print one JSON object (median_ms, min_ms, max_ms, compile_ms, gflops, "
                    "gbytes_per_s, roofline_share or null, backend, repeat...)");
  command->add_flag("--report", options->report,
                    "Print the predicted peak memory (as `xlite mem --backend`) and time (host "
                    "roofline) beside what the run measured: the process's resident-set growth "
                    "over its baseline once the module is parsed, and the median time");
  command->add_option("--save-compiled", options->save_compiled,
                      "Write the module as the backend runs it to this file (cpu: fused and "
                      "scheduled, as its thunks run)");
  command->add_flag("--profile", options->profile,
                    "Print the time per fused computation/thunk, summed over every execution "
                    "(warmup included), to stderr");
  command->callback([options, exit_code] { *exit_code = RunBench(*options); });
}

}  // namespace xlite::tools
