// Speed of the schedulers on real partitioned dumps of ../shared/corpus/hlo:
// the best memory scheduler (list, DFS and post-order, keeping the lowest
// peak), the latency hiding scheduler on an h100 model (async collectives
// created first, as `xlite sched` does), and rematerialization to 90% of the
// memory schedule's peak. Parsing the same text is the peer in the same run.
#include <memory>
#include <string>

#include "bench/corpus_file.h"
#include "benchmark/benchmark.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/analysis/liveness.h"
#include "xlite/sched/hlo_memory_scheduler.h"
#include "xlite/sched/latency_hiding_scheduler.h"
#include "xlite/sched/memory_scheduler.h"
#include "xlite/sched/rematerialization.h"
#include "xlite/sched/schedule_module.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

// The module of `name`, call graph flattened and collectives made async
// (PrepareForScheduling, what every scheduler here starts from); null after
// SkipWithError.
std::unique_ptr<HloModule> Prepared(benchmark::State& state, const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (!module.ok()) {
    state.SkipWithError(std::string(module.status().message()).c_str());
    return nullptr;
  }
  if (!PrepareForScheduling(**module, /*create_async_collectives=*/true).ok()) {
    state.SkipWithError("preparing the module failed");
    return nullptr;
  }
  return *std::move(module);
}

void BM_MemorySchedulerBest(benchmark::State& state, const char* name) {
  const std::string text = ReadCorpus(name);
  if (text.empty()) return state.SkipWithError("corpus module not found in ../shared/corpus/hlo");
  std::unique_ptr<HloModule> module = Prepared(state, text);
  if (module == nullptr) return;
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<AliasAnalysis>> aliases = AliasAnalysis::Run(*module);
    absl::StatusOr<MemorySchedule> schedule =
        aliases.ok() ? ScheduleForMemory(**aliases, MemoryScheduler::kBest)
                     : absl::StatusOr<MemorySchedule>(aliases.status());
    if (!schedule.ok())
      return state.SkipWithError(std::string(schedule.status().message()).c_str());
    state.counters["peak_GiB"] = static_cast<double>(schedule->peak_bytes) / (1 << 30);
  }
}

void BM_LatencyHidingScheduler(benchmark::State& state, const char* name) {
  const std::string text = ReadCorpus(name);
  if (text.empty()) return state.SkipWithError("corpus module not found in ../shared/corpus/hlo");
  std::unique_ptr<HloModule> module = Prepared(state, text);
  absl::StatusOr<DeviceSpec> device = LoadDeviceSpec("h100");
  if (module == nullptr || !device.ok()) return;
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> aliases = AliasAnalysis::Run(*module);
  if (!aliases.ok()) return state.SkipWithError(std::string(aliases.status().message()).c_str());
  absl::StatusOr<MemorySchedule> base = ScheduleForMemory(**aliases, MemoryScheduler::kBest);
  if (!base.ok()) return state.SkipWithError(std::string(base.status().message()).c_str());
  LatencyModel model(*device);
  for (auto _ : state) {
    absl::StatusOr<LatencyHidingResult> result =
        ScheduleLatencyHiding(**aliases, base->schedule, model, {});
    if (!result.ok()) return state.SkipWithError(std::string(result.status().message()).c_str());
    benchmark::DoNotOptimize(result->peak_bytes);
  }
}

void BM_RematerializeTo90Percent(benchmark::State& state, const char* name) {
  const std::string text = ReadCorpus(name);
  if (text.empty()) return state.SkipWithError("corpus module not found in ../shared/corpus/hlo");
  int64_t recomputed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<HloModule> module = Prepared(state, text);
    HloMemorySchedulerPass schedule;
    if (module == nullptr || !schedule.Run(*module).ok()) return;
    absl::StatusOr<std::unique_ptr<AliasAnalysis>> aliases = AliasAnalysis::Run(*module);
    absl::StatusOr<std::unique_ptr<Liveness>> live =
        aliases.ok() ? Liveness::Run(**aliases, module->schedule())
                     : absl::StatusOr<std::unique_ptr<Liveness>>(aliases.status());
    if (!live.ok()) return state.SkipWithError(std::string(live.status().message()).c_str());
    const int64_t limit = (*live)->peak_bytes() / 10 * 9;
    state.ResumeTiming();
    absl::StatusOr<RematerializationResult> r = Rematerialize(*module, limit);
    if (!r.ok()) return state.SkipWithError(std::string(r.status().message()).c_str());
    recomputed = r->rematerialized;
  }
  state.counters["recomputed"] = static_cast<double>(recomputed);
}

void BM_Parse(benchmark::State& state, const char* name) {
  const std::string text = ReadCorpus(name);
  if (text.empty()) return state.SkipWithError("corpus module not found in ../shared/corpus/hlo");
  for (auto _ : state) benchmark::DoNotOptimize(ParseHloModule(text).ok());
}

#define XLITE_SCHED_BENCH(label, file)                                                        \
  BENCHMARK_CAPTURE(BM_MemorySchedulerBest, label, file)->Unit(benchmark::kMillisecond);      \
  BENCHMARK_CAPTURE(BM_LatencyHidingScheduler, label, file)->Unit(benchmark::kMillisecond);   \
  BENCHMARK_CAPTURE(BM_RematerializeTo90Percent, label, file)->Unit(benchmark::kMillisecond); \
  BENCHMARK_CAPTURE(BM_Parse, label, file)->Unit(benchmark::kMillisecond)

XLITE_SCHED_BENCH(llama3_8b_cp_1x4, "xla__tools__benchmarks__hlo__hlo_llama3_8b_cp_bf16_1x4.hlo");
XLITE_SCHED_BENCH(mixtral_8x7b_2x8, "xla__tools__benchmarks__hlo__hlo_mixtral_8x7b_bf16_2x8.hlo");

}  // namespace
}  // namespace xlite

BENCHMARK_MAIN();
