// The HLO verifier: structural checks of a module (operand counts, called
// computation signatures, tuple indices, unique names, acyclic control
// dependencies, shardings, module config) plus each instruction's shape
// against shape inference. Each violation is one precise error naming the
// computation and instruction and what was expected.
#ifndef XLITE_ANALYSIS_VERIFIER_H_
#define XLITE_ANALYSIS_VERIFIER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "xlite/ir/module.h"

namespace xlite {

// Decisions where dumps leave XLA's rules open:
// * Shardings: with num_partitions > 1, tile assignments cover exactly
//   num_partitions devices; unpartitioned modules (num_partitions == 1) only
//   get structural checks, since their device count is not written down.
// * replica_groups: ids are bounded by the group mode's count only when that
//   count is above 1 (dumps often omit replica_count/num_partitions); groups
//   must always be disjoint and non-negative.
// * Shapes are compared with layouts and dynamic bits ignored
//   (ShapesCompatible); dot/convolution results take the written element type.
struct VerifyOptions {
  // Compare layouts too where XLA's layout-sensitive verifier would
  // (bitcast byte sizes, entry_computation_layout vs. the entry).
  bool layout_sensitive = false;
};

// One violation: its text (`%inst in computation %comp: message`,
// `computation %comp: message` or `module: message`) and the instruction it
// is about, null when it is about a computation or the module.
struct Violation {
  const HloInstruction* instruction = nullptr;
  std::string text;
};
// All violations found (empty when the module is valid).
std::vector<Violation> FindViolations(const HloModule& module, const VerifyOptions& options = {});
// Their texts.
std::vector<std::string> VerifyModuleAll(const HloModule& module,
                                         const VerifyOptions& options = {});
// OK, or InvalidArgument with the first violations (up to 20) joined by newlines.
absl::Status VerifyModule(const HloModule& module, const VerifyOptions& options = {});

// OK when `sequence` is a valid schedule of `computation` (each instruction
// once, after its operands and control predecessors), the check the verifier
// makes of a scheduled module; else InvalidArgument with the first violation.
absl::Status VerifySequence(const HloComputation& computation,
                            absl::Span<HloInstruction* const> sequence);

}  // namespace xlite

#endif  // XLITE_ANALYSIS_VERIFIER_H_
