// The pass interface: a named module-to-module transformation that reports
// whether it changed anything. Every pass lives in its own file and is
// listed in pass_registry.cc, so the CLI and the lit tests can run it alone.
#ifndef XLITE_PASSES_PASS_H_
#define XLITE_PASSES_PASS_H_

#include <cstdint>
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
  // The most a floating-point result may move, in units in the last place of
  // its element type, for passes that replace an op by an approximation (0:
  // exact up to the reassociation every pass may do). The differential test
  // holds each pass to its own bound.
  virtual int64_t max_ulp_error() const { return 0; }
};

}  // namespace xlite

#endif  // XLITE_PASSES_PASS_H_
