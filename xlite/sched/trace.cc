#include "xlite/sched/trace.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace xlite {

std::string TraceJson(const StepEstimate& estimate, const std::string& module_name) {
  std::vector<std::string> streams = {std::string(kComputeStreamName)};
  for (int k = 0; k < kNumCollectiveKinds; ++k) {
    streams.emplace_back(CollectiveKindName(static_cast<CollectiveKind>(k)));
  }
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  events.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", module_name}}}});
  for (size_t t = 0; t < streams.size(); ++t) {
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", static_cast<int>(t)},
                      {"args", {{"name", streams[t]}}}});
  }
  for (const TimelineSlice& slice : estimate.slices) {
    const auto tid = std::find(streams.begin(), streams.end(), slice.stream) - streams.begin();
    nlohmann::ordered_json event = {{"name", slice.name},
                                    {"ph", "X"},
                                    {"pid", 1},
                                    {"tid", tid},
                                    {"ts", slice.begin * 1e6},
                                    {"dur", (slice.end - slice.begin) * 1e6}};
    nlohmann::ordered_json args = {{"shape", slice.shape}};
    if (!slice.op_name.empty()) args["op_name"] = slice.op_name;
    if (!slice.source.empty()) args["source"] = slice.source;
    if (slice.flops > 0 || slice.bytes_accessed > 0) {
      args["flops"] = slice.flops;
      args["bytes_accessed"] = slice.bytes_accessed;
    }
    event["args"] = std::move(args);
    events.push_back(std::move(event));
  }
  nlohmann::ordered_json trace = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
  return trace.dump();
}

}  // namespace xlite
