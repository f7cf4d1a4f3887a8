#include "xlite/tools/reports/memory_report_json.h"

#include "xlite/base/status.h"
#include "xlite/passes/flatten_call_graph.h"

namespace xlite::tools {

absl::StatusOr<MemoryReport> AnalyzeMemoryAsWritten(HloModule& module, MemoryScheduler scheduler,
                                                    bool module_order, int64_t top) {
  FlattenCallGraphPass flatten;
  XLITE_RETURN_IF_ERROR(flatten.Run(module).status());
  return AnalyzeMemory(module, scheduler, module_order, top);
}

GroupedRows GroupBuffers(const MemoryReport& r, GroupBy by) {
  std::vector<std::string> keys;
  std::vector<std::vector<double>> figures;
  for (const ReportedBuffer& b : r.top_buffers) {
    keys.push_back(GroupKey(by, b.op_name, b.source));
    figures.push_back({static_cast<double>(b.bytes)});
  }
  return GroupRows(by, {"bytes"}, "buffers", keys, figures);
}

GroupedRows GroupBuffersThenKeepTop(MemoryReport* r, GroupBy by, int64_t top) {
  GroupedRows grouped = GroupBuffers(*r, by);
  if (top > 0 && static_cast<int64_t>(r->top_buffers.size()) > top) {
    r->top_buffers.resize(static_cast<size_t>(top));
  }
  return grouped;
}

nlohmann::ordered_json MemoryReportJson(const MemoryReport& r, const DeviceSpec* device,
                                        bool per_device, const std::string& backend,
                                        const GroupedRows* groups) {
  nlohmann::ordered_json json;
  json["module"] = r.module;
  json["scheduler"] = r.scheduler;
  if (!backend.empty()) json["backend"] = backend;
  json["per_device"] = per_device;
  json["peak_bytes"] = r.peak_bytes;
  if (device != nullptr) {
    json["device"] = device->name;
    json["device_memory_bytes"] = static_cast<int64_t>(device->memory_bytes);
    if (device->memory_bytes > 0) {
      json["fits"] = static_cast<double>(r.peak_bytes) <= device->memory_bytes;
    } else {
      json["fits"] = nullptr;
    }
  }
  json["temp_peak_bytes"] = r.temp_peak_bytes;
  json["peak_step"] = r.peak_step;
  json["steps"] = r.steps;
  json["peak_instruction"] = r.peak_instruction;
  json["peak_computation"] = r.peak_computation;
  json["parameter_bytes"] = r.parameter_bytes;
  json["constant_bytes"] = r.constant_bytes;
  json["output_bytes"] = r.output_bytes;
  json["arena_bytes"] = r.arena_bytes;
  json["fragmentation_bytes"] = r.fragmentation_bytes;
  json["shared_buffers"] = r.shared_buffers;
  json["buffer_count"] = r.buffer_count;
  nlohmann::ordered_json peaks;
  for (const auto& [name, bytes] : r.scheduler_peaks) peaks[name] = bytes;
  json["schedulers"] = std::move(peaks);
  json["live_buffers_at_peak"] = r.live_buffers_at_peak;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ReportedBuffer& b : r.top_buffers) {
    nlohmann::ordered_json item;
    item["bytes"] = b.bytes;
    item["shape"] = b.shape;
    item["instruction"] = b.instruction;
    item["computation"] = b.computation;
    item["op_name"] = b.op_name;
    item["source"] = b.source;
    item["kind"] = std::string(BufferKindName(b.kind));
    item["live_from"] = b.range.start;
    item["live_to"] = b.range.end;
    item["offset"] = b.offset;
    list.push_back(std::move(item));
  }
  json["top_buffers"] = std::move(list);
  if (groups != nullptr) AddGroupsJson(*groups, &json);
  return json;
}

}  // namespace xlite::tools
