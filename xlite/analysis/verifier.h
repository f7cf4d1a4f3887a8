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
#include "xlite/ir/module.h"

namespace xlite {

struct VerifyOptions {
  // Compare layouts too where XLA's layout-sensitive verifier would
  // (bitcast byte sizes, entry_computation_layout vs. the entry).
  bool layout_sensitive = false;
};

// All violations found (empty when the module is valid).
std::vector<std::string> VerifyModuleAll(const HloModule& module,
                                         const VerifyOptions& options = {});
// OK, or InvalidArgument with the first violations (up to 20) joined by newlines.
absl::Status VerifyModule(const HloModule& module, const VerifyOptions& options = {});

}  // namespace xlite

#endif  // XLITE_ANALYSIS_VERIFIER_H_
