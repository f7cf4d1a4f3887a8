#include "xlite/tools/reports/cost_report.h"

#include <algorithm>

#include "xlite/analysis/collective_model.h"
#include "xlite/base/stable_sort.h"
#include "xlite/ir/computation.h"
#include "xlite/ir/op_source.h"

namespace xlite::tools {

CostReport MakeCostReport(const HloModule& module, ModuleCost cost, const DeviceSpec& device) {
  CostReport report;
  report.module = module.name();
  report.cost = std::move(cost);
  const SourceLines sources(module);
  for (const InstructionCost& entry : report.cost.instructions) {
    RooflineTime time = InstructionRoofline(entry, device);
    report.rows.push_back({&entry, time, sources.Of(*entry.instruction)});
    report.seconds += time.seconds;
    report.seconds_by_bound[static_cast<int>(time.bound)] += time.seconds;
  }
  // Stable: equal times keep the module's order.
  StableSort(report.rows,
             [](const Row& a, const Row& b) { return a.time.seconds > b.time.seconds; });
  double most = 0;
  for (Bound b : {Bound::kCompute, Bound::kMemory, Bound::kInterconnect}) {
    if (report.seconds_by_bound[static_cast<int>(b)] > most) {
      most = report.seconds_by_bound[static_cast<int>(b)];
      report.bound = b;
    }
  }
  return report;
}

double Intensity(const Cost& cost) {
  return cost.bytes_accessed > 0 ? cost.flops / cost.bytes_accessed : 0;
}

size_t RowCount(const CostReport& report, int64_t top) {
  return top <= 0 ? report.rows.size() : std::min(report.rows.size(), static_cast<size_t>(top));
}

GroupedRows GroupCostRows(const CostReport& report, GroupBy by) {
  std::vector<std::string> keys;
  std::vector<std::vector<double>> figures;
  for (const Row& row : report.rows) {
    keys.push_back(GroupKey(by, row.entry->instruction->metadata().op_name, row.source));
    figures.push_back({row.time.seconds, row.entry->cost.flops, row.entry->cost.bytes_accessed});
  }
  return GroupRows(by, {"seconds", "flops", "bytes_accessed"}, "instructions", keys, figures);
}

nlohmann::ordered_json CostReportJson(const CostReport& report, const DeviceSpec& device,
                                      bool per_device, int64_t top, GroupBy by) {
  const Cost& total = report.cost.total;
  nlohmann::ordered_json json;
  json["module"] = report.module;
  json["device"] = device.name;
  json["per_device"] = per_device;
  json["flops"] = total.flops;
  json["transcendentals"] = total.transcendentals;
  json["bytes_accessed"] = total.bytes_accessed;
  json["arithmetic_intensity"] = Intensity(total);
  json["seconds"] = report.seconds;
  json["bound"] = BoundName(report.bound);
  json["compute_bound_seconds"] = report.seconds_by_bound[static_cast<int>(Bound::kCompute)];
  json["memory_bound_seconds"] = report.seconds_by_bound[static_cast<int>(Bound::kMemory)];
  json["interconnect_bound_seconds"] =
      report.seconds_by_bound[static_cast<int>(Bound::kInterconnect)];
  json["loops_with_unknown_trip_count"] = report.cost.loops_with_unknown_trip_count;
  json["custom_calls"] = report.cost.custom_calls;
  json["instruction_count"] = report.rows.size();
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (size_t i = 0; i < RowCount(report, top); ++i) {
    const Row& row = report.rows[i];
    const HloInstruction& inst = *row.entry->instruction;
    nlohmann::ordered_json item;
    item["name"] = inst.name();
    item["opcode"] = std::string(OpcodeName(inst.opcode()));
    item["op_name"] = inst.metadata().op_name;
    item["source"] = row.source;
    item["computation"] = inst.parent() != nullptr ? inst.parent()->name() : "";
    item["executions"] = row.entry->executions;
    item["flops"] = row.entry->cost.flops;
    item["transcendentals"] = row.entry->cost.transcendentals;
    item["bytes_accessed"] = row.entry->cost.bytes_accessed;
    item["seconds"] = row.time.seconds;
    item["bound"] = BoundName(row.time.bound);
    list.push_back(std::move(item));
  }
  json["instructions"] = std::move(list);
  if (by != GroupBy::kNone) AddGroupsJson(GroupCostRows(report, by), &json);
  return json;
}

}  // namespace xlite::tools
