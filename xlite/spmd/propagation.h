// Sharding propagation (XLA's `sharding-propagation`): from the user's
// annotations, a sharding for every instruction reachable from them, forward
// and backward through each op's FactorRule, with XLA's aggressiveness
// levels; the propagator records for every value where its sharding came
// from (ShardingOrigin), which `xlite shard --explain` prints.
#ifndef XLITE_SPMD_PROPAGATION_H_
#define XLITE_SPMD_PROPAGATION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/ir/module.h"
#include "xlite/passes/pass.h"

namespace xlite::spmd {

struct PropagationOptions {
  bool is_spmd = true;
  // nullopt: the module header's allow_spmd_sharding_propagation_to_* lists
  // (per root tuple leaf / per entry parameter); true/false: every index.
  std::optional<bool> propagate_to_output;
  std::optional<bool> propagate_to_parameters;
};

// Why one value (an instruction's array leaf) has its sharding.
struct ShardingOrigin {
  enum class Kind : uint8_t {
    kNone,        // no sharding reached it
    kAnnotation,  // written by the user
    kForward,     // from an operand through the instruction's rule
    kBackward,    // from a user through the user's rule
    kLinked,      // a while/call/conditional value it must agree with
    kRule,        // set by the op's own rule (manual region, unknown custom-call)
  };
  Kind kind = Kind::kNone;
  const HloInstruction* from = nullptr;  // the neighbour it came from
  int64_t from_leaf = 0;
  std::string_view rule;   // the FactorRule family or structural rule
  int aggressiveness = 0;  // XLA's level at which it was set
  bool merged = false;     // combined with the partial sharding it had
  // The annotated instructions it derives from (sorted by name, at most
  // kMaxSources; a merge joins both sides').
  std::vector<const HloInstruction*> sources;
  static constexpr size_t kMaxSources = 8;
  // Proposals this value did not take, with the reason (annotation kept,
  // incompatible with the sharding it already had): at most a few.
  std::vector<std::string> conflicts;
};

// One instruction's result of propagation.
struct InstructionOrigins {
  const HloInstruction* instruction = nullptr;
  std::vector<ShardingOrigin> leaves;  // one per array leaf of its shape
};

struct PropagationResult {
  bool changed = false;
  // Instructions of the partitionable computations (entry, while bodies and
  // conditions, called computations, branches), in propagation order.
  std::vector<InstructionOrigins> instructions;
  int64_t unsharded = 0;  // of those, instructions left without a sharding
  int64_t fixed_point_rounds = 0;
  int64_t inferences = 0;  // successful updates

  // `from` chain of one leaf back to its annotation, e.g.
  // `forward dot from %a <- backward reshape from %b <- annotated %c`; long
  // chains keep their first and last hops; ends with the sources when a
  // merge joined several annotations.
  std::string Chain(const InstructionOrigins& origins, int64_t leaf) const;
  const InstructionOrigins* Find(std::string_view name) const;
};

// Checks every annotation against its shape and the module's device count
// (num_partitions, or replica_count when not SPMD; any distinct devices when
// the module does not say): errors name the instruction.
absl::Status ValidateAnnotations(const HloModule& module, bool is_spmd);

// Runs propagation, setting the shardings on the module.
absl::StatusOr<PropagationResult> PropagateShardings(HloModule& module,
                                                     const PropagationOptions& options);

class ShardingPropagationPass : public HloPass {
 public:
  explicit ShardingPropagationPass(PropagationOptions options) : options_(options) {}
  std::string_view name() const override { return "sharding-propagation"; }
  absl::StatusOr<bool> Run(HloModule& module) override;

 private:
  PropagationOptions options_;
};

// Adds sharding-propagation to the pass registry (idempotent).
void RegisterSpmdPasses();

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_PROPAGATION_H_
