// pow-expander: power(x, n) with a constant integer exponent n ->
// square-and-multiply; see expanders.h for where it applies and its bound.
#include <cmath>
#include <optional>

#include "xlite/passes/expander_util.h"
#include "xlite/passes/expanders.h"

namespace xlite {
namespace {

using O = HloOpcode;

// The exponent when `e` is a constant, or a broadcast of one, whose elements
// all hold the same integer.
std::optional<int64_t> UniformIntegerExponent(const HloInstruction& e) {
  const HloInstruction* source = &e;
  if (source->opcode() == O::kBroadcast) source = source->operand(0);
  if (source->opcode() != O::kConstant) return std::nullopt;
  const auto& attrs = source->attrs<ConstantAttrs>();
  if (attrs.elided || attrs.literal.element_count() == 0) return std::nullopt;
  const Literal& literal = attrs.literal;
  PrimitiveType type = literal.shape().element_type();
  std::optional<int64_t> value;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    int64_t v;
    if (IsInteger(type)) {
      v = literal.GetInt64(i);
      // u64 above INT64_MAX reads back negative: leave those alone.
      if (IsUnsignedInt(type) && v < 0) return std::nullopt;
    } else if (IsFloat(type)) {
      double d = literal.GetDouble(i);
      if (!(std::abs(d) <= 1e9) || d != std::trunc(d)) return std::nullopt;
      v = static_cast<int64_t>(d);
    } else {
      return std::nullopt;
    }
    if (value.has_value() && *value != v) return std::nullopt;
    value = v;
  }
  return value;
}

// x^n for n >= 0 by square-and-multiply (n = 0 gives 1, even for NaN, as pow).
HloInstruction* PowerOf(InstructionMaker& make, HloComputation& c, HloInstruction* x, uint64_t n) {
  HloInstruction* result = nullptr;
  HloInstruction* square = x;
  while (n != 0) {
    if (n & 1) result = result == nullptr ? square : make.Binary(c, O::kMultiply, result, square);
    n >>= 1;
    if (n != 0) square = make.Binary(c, O::kMultiply, square, square);
  }
  if (result != nullptr) return result;
  PrimitiveType type = x->shape().element_type();
  return IsFloat(type) || IsComplex(type) ? make.Splat(c, x->shape(), 1.0)
                                          : IntSplat(make, c, x->shape(), 1);
}

}  // namespace

absl::StatusOr<bool> PowExpanderPass::Run(HloModule& module) {
  const int64_t max_exponent = max_exponent_;
  return ExpandInstructions(
      module, [](HloOpcode op) { return op == O::kPower; },
      [max_exponent](InstructionMaker& make, HloComputation& c,
                     HloInstruction& power) -> absl::StatusOr<HloInstruction*> {
        PrimitiveType type = power.shape().element_type();
        std::optional<int64_t> n = UniformIntegerExponent(*power.operand(1));
        if (!n.has_value()) return nullptr;
        HloInstruction* x = power.operand(0);
        if (IsInteger(type)) {
          // Exact with wrap-around; negative powers (0 or 1 by XLA's rule)
          // stay with the op.
          if (*n < 0) return nullptr;
          return PowerOf(make, c, x, static_cast<uint64_t>(*n));
        }
        if (!IsFloat(type) || *n > max_exponent || *n < 0) return nullptr;
        return PowerOf(make, c, x, static_cast<uint64_t>(*n));
      });
}

}  // namespace xlite
