// The analyses behind Module.cost(), .memory(), .schedule(), .shard() and
// .optimize():
// each compiles a clone of the module as the matching `xlite` command does
// and returns that command's --json report (the same C++ builds both).
#ifndef XLITE_PYTHON_SRC_REPORTS_H_
#define XLITE_PYTHON_SRC_REPORTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "module_handle.h"

namespace xlite::python {

struct Report {
  std::string json;
  std::vector<std::string> warnings;  // what the command prints as warnings
};

// `group_by` below is `--group-by`: "" (none), "op_name" or "source".
// `xlite cost --device DEVICE [--spmd] [--xla-compat] --top TOP --json`.
Report CostJson(const HloModule& module, const std::string& device, bool spmd, bool xla_compat,
                int64_t top, const std::string& group_by);
// `xlite mem [--backend B] [--device D] --scheduler S --top TOP --json`.
Report MemoryJson(const HloModule& module, const std::string& backend, const std::string& device,
                  const std::string& scheduler, int64_t top, const std::string& group_by);
// `xlite sched --device DEVICE [--spmd] [--memory-limit] --json`.
Report ScheduleJson(const HloModule& module, const std::string& device, bool spmd,
                    std::optional<int64_t> memory_limit, int max_in_flight,
                    const std::string& group_by);

// `xlite shard [--partition [--device DEVICE]] --json` of one module;
// `explain` keeps each leaf's origin and chain (the CLI's JSON always has
// them), `names` limits the listing as `--explain NAME...` does.
Report ShardJson(const HloModule& module, bool explain, bool partition, const std::string& device,
                 const std::vector<std::string>& names);

struct Optimized {
  ModuleHandle module;
  std::vector<std::string> warnings;
};
// `xlite opt --pipeline=NAME` or `--passes=SPEC` (exactly one non-empty).
Optimized OptimizeModule(const HloModule& module, const std::string& pipeline,
                         const std::string& passes);

}  // namespace xlite::python

#endif  // XLITE_PYTHON_SRC_REPORTS_H_
