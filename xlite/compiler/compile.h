// Compile(module, options): the one pipeline every command goes through —
// verify, the passes or a named pipeline, sharding propagation and the SPMD
// partitioner, scheduling on a device, a backend's own passes and the order
// it runs in, its memory plan and its executable, each stage's result
// verified — with one record of what each stage did. `xlite opt`, `run`
// (one device, --spmd on threads and MPI), `bench`, `mem --backend`, `cost
// --spmd`, `shard --partition` and `sched` are views of its result, so they
// describe the module that runs.
#ifndef XLITE_COMPILER_COMPILE_H_
#define XLITE_COMPILER_COMPILE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/compiler/backend.h"
#include "xlite/ir/module.h"
#include "xlite/passes/pipeline.h"
#include "xlite/sched/schedule_module.h"
#include "xlite/spmd/partitioner.h"
#include "xlite/spmd/propagation.h"

namespace xlite::compiler {

struct CompileOptions {
  // Passes run before partitioning: a pass spec or a named pipeline, as
  // `xlite opt --passes`; empty: none. The named pipeline `spmd` is the
  // partition stage (`partition` below), so every path partitions alike.
  std::string passes;
  PipelineOptions pipeline_options;
  // Propagate shardings, partition into the per-partition program and clean
  // up what partitioning leaves (the `spmd` pipeline).
  bool partition = false;
  spmd::PropagationOptions propagation;
  // Called once propagation has set every sharding, before partitioning
  // (`xlite shard` prints its explanations there); an error stops Compile.
  std::function<absl::Status(const HloModule&, const spmd::PropagationResult&)> after_propagation;
  // Schedule on this device: calls inlined, collectives made asynchronous,
  // the best memory order, latency hidden over the device's interconnect
  // within the memory limit, the step estimated (`xlite sched`). None: the
  // module keeps the order it has.
  std::optional<DeviceSpec> schedule_on;
  ScheduleModuleOptions schedule;
  // Compile for this backend (backend.h; empty: none): its passes and its
  // schedule, then what is asked for below. Single-device modules only.
  std::string backend;
  // The backend's memory plan (`xlite mem --backend`), the `memory_top`
  // largest live buffers listed (all when <= 0).
  bool analyze_memory = false;
  int64_t memory_top = 0;
  // The backend's executable, built with these options.
  bool build_executable = false;
  runtime::CompileOptions executable_options;
};

struct CompileResult {
  // Every pass run, the partition stage's included, in order.
  PipelineReport pipeline;
  // With `partition`: the global entry shardings (how to split inputs and
  // assemble outputs) and what the partitioner inserted.
  std::optional<spmd::EntryShardings> entry;
  std::optional<spmd::PartitionReport> partition;
  // With `schedule_on`: the schedule's step estimates and memory figures.
  std::optional<ScheduleModuleResult> schedule;
  // With `analyze_memory`: the buffers of the program the backend runs and
  // the arena its executable allocates.
  std::optional<MemoryReport> memory;
  // With `build_executable`: runs the compiled module, which must outlive it.
  std::unique_ptr<runtime::Executable> executable;
  // Things the user should know that do not stop compilation.
  std::vector<std::string> warnings;
};

// Compiles `module` in place. The input must verify; so must the result:
// a pass that leaves an invalid module is an error naming that pass.
absl::StatusOr<CompileResult> Compile(HloModule& module, const CompileOptions& options);

// Cross-partition collectives outside manual regions: in a module that has
// not been partitioned yet, only shard_map bodies hold them, so finding one
// means the module was most likely partitioned already. Returns a warning
// naming the first, or nothing.
std::optional<std::string> AlreadyPartitionedWarning(const HloModule& module);

}  // namespace xlite::compiler

#endif  // XLITE_COMPILER_COMPILE_H_
