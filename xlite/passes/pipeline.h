// A pass pipeline: passes run in order, and fixed-point groups repeat until
// none of their passes changes the module (capped, and reported when the cap
// is hit). Optionally verifies after every pass and dumps the module after
// the passes whose name matches a regex, as XLA's --xla_dump_hlo_pass_re.
#ifndef XLITE_PASSES_PIPELINE_H_
#define XLITE_PASSES_PIPELINE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/passes/pass.h"

namespace xlite {

struct PipelineOptions {
  bool verify_each = false;
  // Dump after each pass whose name fully matches this ECMAScript regex
  // (empty: no dumps) into dump_dir as NNNN.<module>.after_<pass>.hlo.
  std::string dump_after;
  std::string dump_dir = "xlite_dump";
  int max_fixed_point_iterations = 25;
};

// One pass execution, in order.
struct PassRecord {
  std::string pass;
  std::string group;  // the enclosing fixed-point group, "" at top level
  int iteration = 0;  // within the group
  double seconds = 0;
  bool changed = false;
};

struct PipelineReport {
  std::vector<PassRecord> passes;
  // One line per fixed-point group that hit its iteration cap.
  std::vector<std::string> warnings;
  int dumps = 0;  // modules dumped so far (numbers the dump files)
  // The per-pass table of --pass-stats: runs, changed runs, total time.
  std::string StatsTable() const;
};

class PassPipeline {
 public:
  explicit PassPipeline(std::string name) : name_(std::move(name)) {}
  PassPipeline(PassPipeline&&) = default;

  const std::string& name() const { return name_; }
  void AddPass(std::unique_ptr<HloPass> pass);
  // A group repeated until it reaches its fixed point; fill it through the
  // returned pipeline.
  PassPipeline& AddFixedPointGroup(std::string name);
  // The largest max_ulp_error() of its passes (see HloPass).
  int64_t max_ulp_error() const;

  // True when any pass changed the module.
  absl::StatusOr<bool> Run(HloModule& module, const PipelineOptions& options,
                           PipelineReport* report);

 private:
  struct Step {
    std::unique_ptr<HloPass> pass;  // or
    std::unique_ptr<PassPipeline> group;
  };
  absl::StatusOr<bool> RunOnce(HloModule& module, const PipelineOptions& options,
                               const std::string& group, int iteration, PipelineReport* report);

  std::string name_;
  std::vector<Step> steps_;
};

// Builds a pipeline from a spec: comma-separated pass specs (see
// pass_registry.h), where `fixed-point(a,b,...)` is a fixed-point group and
// a registered pipeline name (`default`) expands to that pipeline.
absl::StatusOr<PassPipeline> ParsePipelineSpec(std::string_view spec);

// InvalidArgument naming the flag when `options` cannot be used (a
// --dump-after that is no regex); checked by every Run, and by callers that
// want a usage error before they read any input.
absl::Status CheckPipelineOptions(const PipelineOptions& options);

}  // namespace xlite

#endif  // XLITE_PASSES_PIPELINE_H_
