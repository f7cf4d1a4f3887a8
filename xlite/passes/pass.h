// The pass interface: a named module-to-module transformation that reports
// whether it changed anything. Every pass lives in its own file and is
// listed in pass_registry.cc, so the CLI and the lit tests can run it alone.
#ifndef XLITE_PASSES_PASS_H_
#define XLITE_PASSES_PASS_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "xlite/ir/module.h"

namespace xlite {

class HloPass {
 public:
  virtual ~HloPass() = default;
  // The name XLA registers the pass under, where XLA has it.
  virtual std::string_view name() const = 0;
  // True when the module changed.
  virtual absl::StatusOr<bool> Run(HloModule& module) = 0;
};

}  // namespace xlite

#endif  // XLITE_PASSES_PASS_H_
