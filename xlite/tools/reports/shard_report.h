// What `xlite shard` computes of one module: sharding propagation alone, or
// the compile pipeline's partition stage (which propagates the same way and
// adds the partitioner's report), and every instruction's sharding with where
// it came from — as the command's text or as the JSON object that
// `xlite shard --json` prints per module and xlite.Module.shard() returns.
#ifndef XLITE_TOOLS_REPORTS_SHARD_REPORT_H_
#define XLITE_TOOLS_REPORTS_SHARD_REPORT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/ir/module.h"
#include "xlite/spmd/propagation.h"

namespace xlite::tools {

struct ShardReportOptions {
  spmd::PropagationOptions propagation;
  bool partition = false;              // also partition, adding the report
  const DeviceSpec* device = nullptr;  // with partition: times each collective
  bool json = false;                   // fill ShardReport::json instead of text
  // Text: each leaf's origin chain. JSON: each leaf's origin (kind, source
  // instruction, rule, chain, conflicts) under "leaves".
  bool explain = false;
  bool print_module = false;       // text: the module instead of the listing
  std::vector<std::string> names;  // only these instructions ("%" optional); empty: all
};

struct ShardReport {
  std::string text;  // the listing (or module), the partition report, the totals line
  nlohmann::ordered_json json;
  std::vector<std::string> warnings;  // the partitioner's
};

// Whether some instruction of `module` is called `name` ("%" optional), as
// ShardReportOptions::names are matched.
bool HasInstructionNamed(const HloModule& module, std::string_view name);

// Propagates (and partitions) `module` in place. Errors: propagation or
// partitioning failed ("partitioning failed: ..."), or the propagated module
// does not verify.
absl::StatusOr<ShardReport> ReportShardings(HloModule& module, const ShardReportOptions& options);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_REPORTS_SHARD_REPORT_H_
