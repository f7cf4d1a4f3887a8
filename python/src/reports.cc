#include "reports.h"

#include <nanobind/nanobind.h>

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "errors.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/analysis/partition_state.h"
#include "xlite/compiler/compile.h"
#include "xlite/passes/named_pipelines.h"
#include "xlite/tools/backends.h"
#include "xlite/tools/reports/cost_report.h"
#include "xlite/tools/reports/memory_report_json.h"
#include "xlite/tools/reports/schedule_report_json.h"
#include "xlite/tools/reports/shard_report.h"

namespace nb = nanobind;

namespace xlite::python {
namespace {

// A verified clone to compile in place.
std::unique_ptr<HloModule> VerifiedClone(const HloModule& module) {
  VerifyOrThrow(module);
  return module.Clone();
}

compiler::CompileResult CompileOrThrow(HloModule& module, const compiler::CompileOptions& options,
                                       const std::string& context) {
  nb::gil_scoped_release unlocked;
  return ValueOrThrow(compiler::Compile(module, options), context);
}

tools::GroupBy GroupByOrThrow(const std::string& name) {
  std::optional<tools::GroupBy> by = tools::GroupByFromName(name);
  if (!by) throw XliteError("group_by must be op_name or source, got '" + name + "'");
  return *by;
}

}  // namespace

Report CostJson(const HloModule& module, const std::string& device_name, bool spmd, bool xla_compat,
                int64_t top, const std::string& group_by) {
  if (top < 0) throw XliteError("top must be >= 0");
  const tools::GroupBy by = GroupByOrThrow(group_by);
  const DeviceSpec device = ValueOrThrow(LoadDeviceSpec(device_name));
  std::unique_ptr<HloModule> costed = VerifiedClone(module);
  Report report;
  if (spmd) {
    compiler::CompileOptions options;
    options.partition = true;
    report.warnings = CompileOrThrow(*costed, options, "partitioning failed").warnings;
  }
  const CostOptions cost_options = xla_compat ? CostOptions::XlaCompat() : CostOptions();
  ModuleCost cost = ValueOrThrow(AnalyzeModuleCost(*costed, cost_options));
  tools::CostReport made = tools::MakeCostReport(*costed, std::move(cost), device);
  report.json = tools::CostReportJson(made, device, FiguresArePerDevice(*costed), top, by).dump();
  return report;
}

Report MemoryJson(const HloModule& module, const std::string& backend,
                  const std::string& device_name, const std::string& scheduler_name, int64_t top,
                  const std::string& group_by) {
  const tools::GroupBy by = GroupByOrThrow(group_by);
  const int64_t analyzed_top = by != tools::GroupBy::kNone ? 0 : top;
  const bool module_order = scheduler_name == "module";
  std::optional<MemoryScheduler> scheduler = MemorySchedulerFromName(scheduler_name);
  if (!scheduler && !module_order) {
    throw XliteError("scheduler must be best, list, dfs, postorder or module");
  }
  if (!backend.empty() && !tools::IsBackend(backend)) {
    throw XliteError(absl::StrCat("unknown backend '", backend,
                                  "' (available: ", tools::AvailableBackends(), ")"));
  }
  std::optional<DeviceSpec> device;
  if (!device_name.empty()) device = ValueOrThrow(LoadDeviceSpec(device_name));
  std::unique_ptr<HloModule> planned = VerifiedClone(module);
  const bool per_device = FiguresArePerDevice(*planned);
  xlite::MemoryReport memory;
  if (backend.empty()) {
    nb::gil_scoped_release unlocked;
    memory = ValueOrThrow(tools::AnalyzeMemoryAsWritten(
        *planned, scheduler.value_or(MemoryScheduler::kBest), module_order, analyzed_top));
  } else {
    compiler::CompileOptions options;
    options.backend = backend;
    options.analyze_memory = true;
    options.memory_top = analyzed_top;
    memory = *CompileOrThrow(*planned, options, "").memory;
  }
  std::optional<tools::GroupedRows> groups;
  if (by != tools::GroupBy::kNone) groups = tools::GroupBuffersThenKeepTop(&memory, by, top);
  return Report{tools::MemoryReportJson(memory, device ? &*device : nullptr, per_device, backend,
                                        groups ? &*groups : nullptr)
                    .dump(),
                {}};
}

Report ScheduleJson(const HloModule& module, const std::string& device_name, bool spmd,
                    std::optional<int64_t> memory_limit, int max_in_flight,
                    const std::string& group_by) {
  const tools::GroupBy by = GroupByOrThrow(group_by);
  if (max_in_flight < 1) throw XliteError("max_in_flight must be >= 1");
  if (memory_limit && *memory_limit < 1) throw XliteError("memory_limit must be >= 1 byte");
  const DeviceSpec device = ValueOrThrow(LoadDeviceSpec(device_name));
  std::unique_ptr<HloModule> scheduled = VerifiedClone(module);
  compiler::CompileOptions options;
  options.partition = spmd;
  options.schedule_on = device;
  options.schedule.max_in_flight_per_kind = max_in_flight;
  if (memory_limit) options.schedule.memory_limit_bytes = memory_limit;
  compiler::CompileResult compiled = CompileOrThrow(*scheduled, options, "");
  return Report{
      tools::ScheduleReportJson(*compiled.schedule, device, FiguresArePerDevice(*scheduled), by)
          .dump(),
      std::move(compiled.warnings)};
}

Report ShardJson(const HloModule& module, bool explain, bool partition,
                 const std::string& device_name, const std::vector<std::string>& names) {
  if (!device_name.empty() && !partition) {
    throw XliteError("device needs partition=True (it times the partitioner's collectives)");
  }
  std::optional<DeviceSpec> device;
  if (!device_name.empty()) device = ValueOrThrow(LoadDeviceSpec(device_name));
  std::unique_ptr<HloModule> sharded = VerifiedClone(module);
  for (const std::string& name : names) {
    if (!tools::HasInstructionNamed(*sharded, name)) {
      throw XliteError(absl::StrCat("no instruction %", absl::StripPrefix(name, "%"), " in module ",
                                    sharded->name()));
    }
  }
  tools::ShardReportOptions options;
  options.partition = partition;
  options.device = device ? &*device : nullptr;
  options.json = true;
  options.explain = explain;
  options.names = names;
  absl::StatusOr<tools::ShardReport> report;
  {
    nb::gil_scoped_release unlocked;
    report = tools::ReportShardings(*sharded, options);
  }
  tools::ShardReport made = ValueOrThrow(std::move(report));
  return Report{made.json.dump(), std::move(made.warnings)};
}

Optimized OptimizeModule(const HloModule& module, const std::string& pipeline,
                         const std::string& passes) {
  if (pipeline.empty() == passes.empty()) {
    throw XliteError("give exactly one of pipeline=NAME or passes=SPEC");
  }
  if (!pipeline.empty() && !NamedPipelineSpec(pipeline)) {
    throw XliteError(absl::StrCat("unknown pipeline '", pipeline, "'"));
  }
  std::unique_ptr<HloModule> optimized = VerifiedClone(module);
  compiler::CompileOptions options;
  options.passes = pipeline.empty() ? passes : pipeline;
  compiler::CompileResult compiled = CompileOrThrow(*optimized, options, "");
  Optimized result{ModuleHandle{std::move(optimized)}, std::move(compiled.warnings)};
  for (std::string& warning : compiled.pipeline.warnings) result.warnings.push_back(warning);
  return result;
}

}  // namespace xlite::python
