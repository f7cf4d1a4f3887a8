// FactorRule: how an op's operand and result dims relate, as data. Every dim
// is a list of factors; a factor shared by two tensors carries its sharding
// between them. Sharding propagation (and later the SPMD partitioner) read
// this one description per op, built by FactorRuleOf (factor_rules.cc).
#ifndef XLITE_SPMD_FACTOR_RULE_H_
#define XLITE_SPMD_FACTOR_RULE_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "xlite/ir/instruction.h"
#include "xlite/ir/sharding_transforms.h"

namespace xlite::spmd {

enum class FactorKind : uint8_t {
  kPassThrough,      // the same split on every tensor that has it
  kReduction,        // only in operands (contracting, reduced dims)
  kNeedReplication,  // must not stay split (sort dim, gather index vector)
};

// Dims of one tensor: per dim, its factor ids major to minor.
using TensorFactors = std::vector<std::vector<int64_t>>;

struct FactorRule {
  std::string_view name;  // rule family, shown by --explain ("dot", "reshape")
  std::vector<int64_t> factor_sizes;
  std::vector<FactorKind> kinds;
  // Per operand: its dims, or nullopt for operands the rule does not relate
  // (scalar pad values, slice indices, init values): they get replicated
  // from their user.
  std::vector<std::optional<TensorFactors>> operands;
  // Per result leaf (one for array results).
  std::vector<TensorFactors> results;
  // Which result leaf operand i relates to (variadic reduce/sort); -1: all.
  std::vector<int64_t> result_of_operand;
  // XLA's aggressiveness levels: the lowest level at which the op passes a
  // sharding forward (operands -> result) and backward (result -> operands).
  int min_aggressiveness_forward = 1;
  int min_aggressiveness_backward = 1;
  // Operands in the order their shardings are tried forward (XLA tries a
  // dot's larger operand first); empty = operand order.
  std::vector<int64_t> forward_order;
  // Dims whose tile order flips between operand and result (reverse).
  std::vector<int64_t> reversed_dims;
  // Backward, operand i's sharding from the result is merged with what the
  // operands merge_backward_from[i] imply (dot/convolution: each other, as
  // XLA's InferDotOperandSharding; scatter: indices and updates); empty =
  // none.
  std::vector<std::vector<int64_t>> merge_backward_from;
};

// The rule of `inst`, or nullopt for ops propagation handles structurally
// (tuple, get-tuple-element, while, call, conditional, opt-barrier, fusion,
// manual-region custom-calls) or has no rule for (unknown custom-calls).
std::optional<FactorRule> FactorRuleOf(const HloInstruction& inst);

// Custom-call targets that pass their first operand's sharding through.
bool IsPassThroughCustomCall(const HloInstruction& inst);

// The factor mapping from one tensor of a rule to another; factors of kind
// kNeedReplication never carry over.
FactorMapping MappingBetween(const FactorRule& rule, const TensorFactors& from,
                             const TensorFactors& to);

// `sharding` carried from tensor `from` of `rule` to tensor `to` (the same
// sharding when the dims correspond one to one, as for elementwise ops).
HloSharding ProjectThrough(const FactorRule& rule, const TensorFactors& from,
                           const TensorFactors& to, const HloSharding& sharding);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_FACTOR_RULE_H_
