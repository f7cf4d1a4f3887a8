// The schedule's figures as `xlite sched --json` and
// `xlite.Module.schedule()` print them.
#ifndef XLITE_TOOLS_REPORTS_SCHEDULE_REPORT_JSON_H_
#define XLITE_TOOLS_REPORTS_SCHEDULE_REPORT_JSON_H_

#include <nlohmann/json.hpp>

#include "xlite/analysis/device_spec.h"
#include "xlite/sched/schedule_module.h"
#include "xlite/tools/reports/row_groups.h"

namespace xlite::tools {

// The share of the communication hidden behind compute, in percent.
double OverlapPercent(const StepEstimate& e);

// The collectives summed by `by`: exposed_seconds, seconds.
GroupedRows GroupCollectives(const StepEstimate& e, GroupBy by);

// `by` adds `group_by` and `groups` (GroupCollectives).
nlohmann::ordered_json ScheduleReportJson(const ScheduleModuleResult& r, const DeviceSpec& device,
                                          bool per_device, GroupBy by = GroupBy::kNone);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_REPORTS_SCHEDULE_REPORT_JSON_H_
