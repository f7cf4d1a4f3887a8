// logistic-expander: rewrites logistic(x) for backends without it, with the
// strategy chosen by `strategy=`: `exp` (XLA's: 1 / (1 + exp(-x)), the
// default) or `tanh` (0.5 + 0.5 * tanh(0.5 * x), no division, saturates
// cleanly at both ends).
#ifndef XLITE_PASSES_LOGISTIC_EXPANDER_H_
#define XLITE_PASSES_LOGISTIC_EXPANDER_H_

#include "xlite/passes/pass.h"

namespace xlite {

enum class LogisticStrategy { kExp, kTanh };

class LogisticExpanderPass : public HloPass {
 public:
  explicit LogisticExpanderPass(LogisticStrategy strategy) : strategy_(strategy) {}
  std::string_view name() const override { return "logistic-expander"; }
  absl::StatusOr<bool> Run(HloModule& module) override;

 private:
  LogisticStrategy strategy_;
};

}  // namespace xlite

#endif  // XLITE_PASSES_LOGISTIC_EXPANDER_H_
