// What an opcode handler sees of the running evaluation: the options (device
// ids, communicator, custom-call registry), calls into other computations,
// and the per-evaluation random stream of the `rng` op.
#ifndef XLITE_EVAL_EVAL_CONTEXT_H_
#define XLITE_EVAL_EVAL_CONTEXT_H_

#include <cstdint>
#include <random>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/eval/evaluator.h"
#include "xlite/ir/computation.h"
#include "xlite/ir/literal.h"

namespace xlite::eval {

class EvalContext {
 public:
  virtual ~EvalContext() = default;

  virtual const EvalOptions& options() const = 0;
  // Evaluates `computation` on `args` (reducers, comparators, loop bodies,
  // branches, fused and called computations).
  virtual absl::StatusOr<Literal> Call(const HloComputation& computation,
                                       absl::Span<const Literal* const> args) = 0;
  // The stream of the `rng` op, seeded from options().rng_seed and the
  // device, advanced in evaluation order (deterministic).
  virtual std::mt19937_64& rng() = 0;

  // The state rng-get-and-update-state reads and advances (starts at 0 for
  // each evaluation).
  uint64_t& rng_state_counter() { return rng_state_counter_; }

 private:
  uint64_t rng_state_counter_ = 0;
};

}  // namespace xlite::eval

#endif  // XLITE_EVAL_EVAL_CONTEXT_H_
