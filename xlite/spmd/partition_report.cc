#include "xlite/spmd/partition_report.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "xlite/base/strings.h"
#include "xlite/ir/computation.h"
#include "xlite/spmd/partition_util.h"

namespace xlite::spmd {
namespace {

constexpr size_t kLargestShown = 5;

std::string SecondsText(const std::optional<double>& seconds) {
  if (!seconds.has_value()) return "";
  const double s = *seconds;
  if (s >= 1) return absl::StrFormat(", %.4g s", s);
  if (s >= 1e-3) return absl::StrFormat(", %.4g ms", s * 1e3);
  return absl::StrFormat(", %.4g us", s * 1e6);
}

}  // namespace

PartitionSummary SummarizePartition(const PartitionReport& report, const EntryShardings& entry,
                                    const HloModule& partitioned,
                                    const CollectiveSeconds& seconds) {
  PartitionSummary summary;
  summary.num_partitions = report.num_partitions;
  for (size_t i = 0; i < entry.parameters.size(); ++i) {
    summary.parameter_bytes +=
        ShardShape(entry.parameter_shapes[i], entry.parameters[i]).ByteSizeOf();
  }
  summary.output_bytes = ShardShape(entry.result_shape, entry.result).ByteSizeOf();
  // The largest array values a device holds (ties by name, so the order is
  // the same on every run).
  std::vector<std::tuple<int64_t, std::string, std::string, std::string>> values;
  absl::flat_hash_map<std::string, const HloInstruction*> by_name;  // looked up only
  for (const auto& c : partitioned.computations()) {
    for (const auto& inst : c->instructions()) {
      by_name[Cat(c->name(), "/", inst->name())] = inst.get();
      if (!inst->shape().IsArray()) continue;
      values.emplace_back(-inst->shape().ByteSizeOf(), std::string(c->name()),
                          std::string(inst->name()), inst->shape().ToString(false));
    }
  }
  std::sort(values.begin(), values.end());
  for (size_t i = 0; i < values.size() && i < kLargestShown; ++i) {
    auto& [bytes, computation, name, shape] = values[i];
    summary.largest_values.push_back({-bytes, computation, name, shape});
  }
  std::map<std::string, PartitionSummary::Kind> kinds;
  for (const InsertedCollective& c : report.collectives) {
    std::optional<double> time;
    if (seconds != nullptr) {
      auto it = by_name.find(Cat(c.computation, "/", c.name));
      if (it != by_name.end()) time = seconds(*it->second);
    }
    PartitionSummary::Kind& kind = kinds[c.kind];
    kind.kind = c.kind;
    ++kind.count;
    kind.bytes += c.bytes;
    if (time.has_value()) kind.seconds = kind.seconds.value_or(0) + *time;
    summary.collective_seconds.push_back(time);
  }
  for (auto& [name, kind] : kinds) summary.kinds.push_back(std::move(kind));
  summary.collectives = report.collectives;
  summary.fallbacks = report.fallbacks;
  return summary;
}

std::string FormatPartitionReport(const PartitionSummary& s) {
  std::string out;
  Append(&out, "partitions: ", s.num_partitions, "\n");
  Append(&out, "per device: parameters ", s.parameter_bytes, " bytes, outputs ", s.output_bytes,
         " bytes\n");
  Append(&out, "largest per-device values:\n");
  for (const PartitionSummary::Value& v : s.largest_values) {
    Append(&out, "  ", v.bytes, " bytes  ", v.computation, " %", v.name, "  ", v.shape, "\n");
  }
  Append(&out, "collectives: ", s.collectives.size(), "\n");
  for (const PartitionSummary::Kind& k : s.kinds) {
    Append(&out, "  ", k.kind, ": ", k.count, ", ", k.bytes, " bytes per device",
           SecondsText(k.seconds), "\n");
  }
  for (size_t i = 0; i < s.collectives.size(); ++i) {
    const InsertedCollective& c = s.collectives[i];
    Append(&out, "  ", c.kind, " %", c.name, " (", c.bytes, " bytes",
           SecondsText(s.collective_seconds[i]), ") in ", c.computation, ": ", c.reason, "; %",
           c.producer.empty() ? "?" : c.producer, " ", c.producer_sharding, " -> ",
           c.consumer.empty() ? "the result" : Cat("%", c.consumer), " needs ", c.needed_sharding,
           "\n");
  }
  Append(&out, "fallbacks (replicated execution): ", s.fallbacks.size(), "\n");
  for (const PartitionFallback& f : s.fallbacks) {
    Append(&out, "  %", f.instruction, " (", f.opcode, ") in ", f.computation, ": ", f.reason,
           "\n");
  }
  return out;
}

}  // namespace xlite::spmd
