#include "xlite/compiler/compile.h"

#include <memory>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/analysis/partition_state.h"
#include "xlite/analysis/verifier.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/spmd/sharded_execution.h"

namespace xlite::compiler {
namespace {

constexpr std::string_view kSpmdPipeline = "spmd";

// Runs `spec` on `module`; when the result does not verify, replays the
// pipeline on a copy of the input, verifying after every pass, to name the
// pass that broke it.
absl::Status RunPassesVerified(std::string_view spec, const PipelineOptions& options,
                               HloModule& module, PipelineReport& report) {
  XLITE_ASSIGN_OR_RETURN(PassPipeline pipeline, ParsePipelineSpec(spec));
  std::unique_ptr<HloModule> input = options.verify_each ? nullptr : module.Clone();
  XLITE_RETURN_IF_ERROR(pipeline.Run(module, options, &report).status());
  absl::Status verified = VerifyModule(module);
  if (verified.ok() || input == nullptr) return verified;
  PipelineOptions replay_options = options;
  replay_options.verify_each = true;
  replay_options.dump_after.clear();
  XLITE_ASSIGN_OR_RETURN(PassPipeline replay, ParsePipelineSpec(spec));
  PipelineReport replay_report;
  absl::Status named = replay.Run(*input, replay_options, &replay_report).status();
  if (!named.ok()) return named;
  return absl::InternalError(absl::StrCat("the module after `", std::string(spec),
                                          "` does not verify: ", verified.message()));
}

// An error when `module` does not verify after `stage`: an xlite bug.
absl::Status VerifyStage(const HloModule& module, std::string_view stage) {
  absl::Status verified = VerifyModule(module);
  if (verified.ok()) return verified;
  return absl::InternalError(absl::StrCat("the module after ", std::string(stage),
                                          " does not verify (an xlite bug): ", verified.message()));
}

// The backend stage: its passes and order, then its memory plan and its
// executable, both of the module as prepared.
absl::Status CompileForBackend(HloModule& module, const CompileOptions& options,
                               CompileResult& result) {
  const Backend* backend = FindBackend(options.backend);
  if (backend == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown backend '", options.backend,
                     "' (available: ", absl::StrJoin(BackendNames(), ", "), ")"));
  }
  if (module.config().DeviceCount() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not supported yet: compiling a ", module.config().DeviceCount(),
        "-device module for backend '", options.backend,
        "' (partition it and run it with `xlite run --spmd`, or use the interpreter)"));
  }
  XLITE_RETURN_IF_ERROR(backend->Prepare(module));
  XLITE_RETURN_IF_ERROR(
      VerifyStage(module, absl::StrCat("the ", options.backend, " backend's passes")));
  if (options.analyze_memory) {
    XLITE_ASSIGN_OR_RETURN(result.memory, backend->AnalyzeMemory(module, options.memory_top));
  }
  if (options.build_executable) {
    XLITE_ASSIGN_OR_RETURN(result.executable, backend->Build(module, options.executable_options));
  }
  return absl::OkStatus();
}

}  // namespace

std::optional<std::string> AlreadyPartitionedWarning(const HloModule& module) {
  const HloInstruction* collective = PartitionedCollective(module);
  if (collective == nullptr) return std::nullopt;
  return absl::StrCat("%", collective->name(),
                      " is a cross-partition collective outside any manual region: the "
                      "module looks partitioned already, and partitioning it again reads its "
                      "per-partition shapes as global ones");
}

absl::StatusOr<CompileResult> Compile(HloModule& module, const CompileOptions& options) {
  XLITE_RETURN_IF_ERROR(VerifyModule(module));
  CompileResult result;
  const bool partition = options.partition || options.passes == kSpmdPipeline;
  if (!options.passes.empty() && options.passes != kSpmdPipeline) {
    XLITE_RETURN_IF_ERROR(
        RunPassesVerified(options.passes, options.pipeline_options, module, result.pipeline));
  }
  if (partition) {
    if (std::optional<std::string> warning = AlreadyPartitionedWarning(module)) {
      result.warnings.push_back(*std::move(warning));
    }
    spmd::SpmdOptions spmd_options;
    spmd_options.propagation = options.propagation;
    spmd_options.after_propagation = options.after_propagation;
    XLITE_ASSIGN_OR_RETURN(spmd::SpmdResult spmd,
                           spmd::PartitionForExecution(module, spmd_options));
    for (PassRecord& record : spmd.passes.passes) result.pipeline.passes.push_back(record);
    for (std::string& warning : spmd.passes.warnings) result.pipeline.warnings.push_back(warning);
    result.entry = std::move(spmd.entry);
    result.partition = std::move(spmd.report);
  }
  if (options.schedule_on.has_value()) {
    LatencyModel model(*options.schedule_on);
    XLITE_ASSIGN_OR_RETURN(result.schedule, ScheduleModule(module, model, options.schedule));
    XLITE_RETURN_IF_ERROR(VerifyStage(module, "scheduling"));
  }
  if (!options.backend.empty()) XLITE_RETURN_IF_ERROR(CompileForBackend(module, options, result));
  return result;
}

}  // namespace xlite::compiler
