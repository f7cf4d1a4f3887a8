#include "xlite/spmd/partition_report.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include "xlite/base/strings.h"
#include "xlite/spmd/partition_util.h"

namespace xlite::spmd {
namespace {

constexpr size_t kLargestShown = 5;

}  // namespace

std::string FormatPartitionReport(const PartitionReport& report, const EntryShardings& entry,
                                  const HloModule& partitioned) {
  std::string out;
  int64_t parameter_bytes = 0;
  for (size_t i = 0; i < entry.parameters.size(); ++i) {
    parameter_bytes += ShardShape(entry.parameter_shapes[i], entry.parameters[i]).ByteSizeOf();
  }
  const int64_t output_bytes = ShardShape(entry.result_shape, entry.result).ByteSizeOf();
  Append(&out, "partitions: ", report.num_partitions, "\n");
  Append(&out, "per device: parameters ", parameter_bytes, " bytes, outputs ", output_bytes,
         " bytes\n");
  // The largest array values a device holds (ties by name, so the order is
  // the same on every run).
  std::vector<std::tuple<int64_t, std::string, std::string>> values;
  for (const auto& c : partitioned.computations()) {
    for (const auto& inst : c->instructions()) {
      if (!inst->shape().IsArray()) continue;
      values.emplace_back(-inst->shape().ByteSizeOf(), Cat(c->name(), " %", inst->name()),
                          inst->shape().ToString(false));
    }
  }
  std::sort(values.begin(), values.end());
  Append(&out, "largest per-device values:\n");
  for (size_t i = 0; i < values.size() && i < kLargestShown; ++i) {
    Append(&out, "  ", -std::get<0>(values[i]), " bytes  ", std::get<1>(values[i]), "  ",
           std::get<2>(values[i]), "\n");
  }
  std::map<std::string, std::pair<int64_t, int64_t>> by_kind;  // count, bytes
  for (const InsertedCollective& c : report.collectives) {
    ++by_kind[c.kind].first;
    by_kind[c.kind].second += c.bytes;
  }
  Append(&out, "collectives: ", report.collectives.size(), "\n");
  for (const auto& [kind, totals] : by_kind) {
    Append(&out, "  ", kind, ": ", totals.first, ", ", totals.second, " bytes per device\n");
  }
  for (const InsertedCollective& c : report.collectives) {
    Append(&out, "  ", c.kind, " %", c.name, " (", c.bytes, " bytes) in ", c.computation, ": ",
           c.reason, "; %", c.producer.empty() ? "?" : c.producer, " ", c.producer_sharding, " -> ",
           c.consumer.empty() ? "the result" : Cat("%", c.consumer), " needs ", c.needed_sharding,
           "\n");
  }
  Append(&out, "fallbacks (replicated execution): ", report.fallbacks.size(), "\n");
  for (const PartitionFallback& f : report.fallbacks) {
    Append(&out, "  %", f.instruction, " (", f.opcode, ") in ", f.computation, ": ", f.reason,
           "\n");
  }
  return out;
}

}  // namespace xlite::spmd
