// The memory plan as `xlite mem --json` and `xlite.Module.memory()` print
// it, and the module's own plan (no backend) that both compute.
#ifndef XLITE_TOOLS_REPORTS_MEMORY_REPORT_JSON_H_
#define XLITE_TOOLS_REPORTS_MEMORY_REPORT_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/ir/module.h"
#include "xlite/sched/memory_report.h"
#include "xlite/tools/reports/row_groups.h"

namespace xlite::tools {

// The module's own memory, its call graph flattened first (one order per
// computation needs one call site per computation); `module_order` keeps
// the order the module has instead of `scheduler`'s.
absl::StatusOr<MemoryReport> AnalyzeMemoryAsWritten(HloModule& module, MemoryScheduler scheduler,
                                                    bool module_order, int64_t top);

// The buffers in `r.top_buffers` summed by `by`: bytes (all the buffers live
// at the peak where the report was made with top 0).
GroupedRows GroupBuffers(const MemoryReport& r, GroupBy by);
// GroupBuffers of a report made with top 0 (every buffer live at the peak),
// then `r.top_buffers` cut to the `top` largest (all when top <= 0).
GroupedRows GroupBuffersThenKeepTop(MemoryReport* r, GroupBy by, int64_t top);

// `device` (may be null) adds whether the peak fits; `backend` (may be
// empty) names the backend whose plan this is; `groups` (may be null, from
// GroupBuffersThenKeepTop) adds `group_by` and `groups`.
nlohmann::ordered_json MemoryReportJson(const MemoryReport& r, const DeviceSpec* device,
                                        bool per_device, const std::string& backend,
                                        const GroupedRows* groups = nullptr);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_REPORTS_MEMORY_REPORT_JSON_H_
