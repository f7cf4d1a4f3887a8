#include "xlite/tools/reports/schedule_report_json.h"

#include <algorithm>
#include <string>

namespace xlite::tools {

double OverlapPercent(const StepEstimate& e) {
  if (e.communication_seconds <= 0) return 0;
  return std::max(0.0, 100 * (1 - e.exposed_communication_seconds / e.communication_seconds));
}

GroupedRows GroupCollectives(const StepEstimate& e, GroupBy by) {
  std::vector<std::string> keys;
  std::vector<std::vector<double>> figures;
  for (const CollectiveTiming& c : e.collectives) {
    keys.push_back(GroupKey(by, c.op_name, c.source));
    figures.push_back({c.exposed_seconds, c.seconds});
  }
  return GroupRows(by, {"exposed_seconds", "seconds"}, "collectives", keys, figures);
}

nlohmann::ordered_json ScheduleReportJson(const ScheduleModuleResult& r, const DeviceSpec& device,
                                          bool per_device, GroupBy by) {
  const StepEstimate& s = r.scheduled;
  nlohmann::ordered_json json;
  json["module"] = r.module;
  json["device"] = device.name;
  json["per_device"] = per_device;
  json["step_seconds"] = s.step_seconds;
  json["compute_seconds"] = s.compute_seconds;
  json["communication_seconds"] = s.communication_seconds;
  json["exposed_communication_seconds"] = s.exposed_communication_seconds;
  json["overlap_percent"] = OverlapPercent(s);
  json["sync_step_seconds"] = r.sync.step_seconds;
  json["sync_exposed_communication_seconds"] = r.sync.exposed_communication_seconds;
  json["lower_bound_seconds"] = s.lower_bound_seconds;
  json["critical_path_seconds"] = s.critical_path_seconds;
  json["peak_bytes"] = r.peak_bytes;
  json["base_peak_bytes"] = r.base_peak_bytes;
  json["memory_limit_bytes"] = r.memory_limit_bytes;
  json["device_memory_bytes"] = static_cast<int64_t>(device.memory_bytes);
  // Unknown (null) when the device spec gives no memory.
  if (device.memory_bytes > 0) {
    json["fits"] = static_cast<double>(r.peak_bytes) <= device.memory_bytes;
  } else {
    json["fits"] = nullptr;
  }
  json["rematerialized"] = r.rematerialized;
  json["memory_barriers"] = r.memory_barriers;
  json["scheduling_seconds"] = r.scheduling_seconds;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const CollectiveTiming& c : s.collectives) {
    list.push_back({{"name", c.name},
                    {"opcode", c.opcode},
                    {"seconds", c.seconds},
                    {"exposed_seconds", c.exposed_seconds},
                    {"op_name", c.op_name},
                    {"source", c.source},
                    {"computation", c.computation},
                    {"executions", c.executions},
                    {"algorithm", std::string(c.algorithm)}});
  }
  json["collectives"] = std::move(list);
  if (by != GroupBy::kNone) AddGroupsJson(GroupCollectives(s, by), &json);
  return json;
}

}  // namespace xlite::tools
