// The report of `xlite cost` and `xlite.Module.cost()`: every instruction's
// cost with its roofline time on a device, most expensive first, and the
// totals per bound, as data and as the JSON both print.
#ifndef XLITE_TOOLS_REPORTS_COST_REPORT_H_
#define XLITE_TOOLS_REPORTS_COST_REPORT_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/ir/module.h"
#include "xlite/tools/reports/row_groups.h"

namespace xlite::tools {

// One instruction of the report with its roofline time.
struct Row {
  const InstructionCost* entry;
  RooflineTime time;
  std::string source;  // "file:line" (ir/op_source.h SourceLines), or ""
};

struct CostReport {
  std::string module;
  ModuleCost cost;
  std::vector<Row> rows;  // by time, most expensive first
  double seconds = 0;
  // Time spent in instructions of each bound (index: Bound).
  double seconds_by_bound[4] = {0, 0, 0, 0};
  Bound bound = Bound::kNone;
};

CostReport MakeCostReport(const HloModule& module, ModuleCost cost, const DeviceSpec& device);

// Flops per byte accessed (0 when no bytes are).
double Intensity(const Cost& cost);

// How many rows a report lists when asked for the `top` (0: all).
size_t RowCount(const CostReport& report, int64_t top);

// The report's instructions summed by `by`: seconds, flops, bytes_accessed.
GroupedRows GroupCostRows(const CostReport& report, GroupBy by);

// `per_device`: whether the figures are per device (FiguresArePerDevice);
// `by` adds `group_by` and `groups` (GroupCostRows).
nlohmann::ordered_json CostReportJson(const CostReport& report, const DeviceSpec& device,
                                      bool per_device, int64_t top, GroupBy by = GroupBy::kNone);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_REPORTS_COST_REPORT_H_
