// The reference evaluator: runs a verified module on host literals, one
// opcode handler at a time. It is the oracle every pass, the partitioner, the
// schedulers and every backend are checked against, so it favours exactness
// over speed (dot and convolution excepted, which have blocked f32 paths).
#ifndef XLITE_EVAL_EVALUATOR_H_
#define XLITE_EVAL_EVALUATOR_H_

#include <chrono>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/ir/literal.h"
#include "xlite/ir/module.h"

namespace xlite {

class Communicator;

namespace eval {
class CustomCallRegistry;
}  // namespace eval

struct EvalOptions {
  // Which device this evaluation is (replica-id / partition-id answer these).
  int64_t replica_id = 0;
  int64_t partition_id = 0;
  // Carries collectives between devices; nullptr runs a single device, where
  // a collective over a group of one is the identity and anything wider is
  // an error.
  Communicator* communicator = nullptr;
  // Custom-call targets; nullptr uses the built-in registry.
  const eval::CustomCallRegistry* custom_calls = nullptr;
  // Seed of the `rng` op's stream (rng-bit-generator takes its state as an
  // operand and needs none).
  uint64_t rng_seed = 0;
  // Evaluation stops with DeadlineExceeded once this time has passed. It is
  // polled before every instruction and every computation call (so each
  // while iteration, reducer and branch), not inside one instruction's loop.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

class Evaluator {
 public:
  explicit Evaluator(EvalOptions options = {});
  ~Evaluator();
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // Runs the entry computation of `module` on `args` (one per entry
  // parameter, shapes checked, layouts ignored).
  absl::StatusOr<Literal> Run(const HloModule& module, absl::Span<const Literal> args);
  // Runs any computation of a module on `args`.
  absl::StatusOr<Literal> RunComputation(const HloComputation& computation,
                                         absl::Span<const Literal* const> args);
  // Evaluates one instruction on the values of its operands (one per
  // operand, in order), calling into its computations as needed: what
  // constant folding asks. Unimplemented when no rule covers the opcode.
  absl::StatusOr<Literal> EvaluateInstruction(const HloInstruction& inst,
                                              absl::Span<const Literal* const> operands);

 private:
  class Impl;
  Impl* impl_;
};

}  // namespace xlite

#endif  // XLITE_EVAL_EVALUATOR_H_
