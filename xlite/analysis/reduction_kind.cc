#include "xlite/analysis/reduction_kind.h"

#include <cmath>
#include <limits>

#include "xlite/ir/float_format.h"

namespace xlite {
namespace {

bool IsScalarParameter(const HloInstruction* inst) {
  return inst != nullptr && inst->opcode() == HloOpcode::kParameter && inst->shape().IsScalar();
}

// The lowest (or highest) value of a float type: -inf / +inf where it has
// them; the finite-only 8- and 4-bit types are searched bit pattern by bit
// pattern (at most 256), so their encodings need no table of their own.
double FloatExtreme(PrimitiveType type, bool highest) {
  const double inf = std::numeric_limits<double>::infinity();
  if (BitWidth(type) > 8 || std::isinf(DecodeFloat(EncodeFloat(inf, type), type))) {
    return highest ? inf : -inf;
  }
  double best = highest ? -inf : inf;
  for (uint64_t bits = 0; bits < (uint64_t{1} << BitWidth(type)); ++bits) {
    double v = DecodeFloat(bits, type);
    if (std::isnan(v)) continue;
    best = highest ? std::max(best, v) : std::min(best, v);
  }
  return best;
}

// The lowest or highest value of an integer type of BitWidth(type) bits.
int64_t IntegerExtreme(PrimitiveType type, bool highest) {
  int bits = BitWidth(type);
  if (IsUnsignedInt(type)) return highest ? -1 : 0;  // -1 wraps to all ones
  if (bits >= 64) {
    return highest ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  int64_t half = int64_t{1} << (bits - 1);
  return highest ? half - 1 : -half;
}

}  // namespace

std::optional<ReductionKind> MatchReductionKind(const HloComputation& computation) {
  if (computation.num_parameters() != 2) return std::nullopt;
  const HloInstruction* p0 = computation.parameter_instruction(0);
  const HloInstruction* p1 = computation.parameter_instruction(1);
  if (!IsScalarParameter(p0) || !IsScalarParameter(p1) ||
      p0->shape().element_type() != p1->shape().element_type()) {
    return std::nullopt;
  }
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr) return std::nullopt;
  if (root->opcode() == HloOpcode::kTuple && root->operand_count() == 1) root = root->operand(0);
  std::optional<ReductionKind> kind = ReductionKindOf(root->opcode());
  if (!kind.has_value() || root->operand_count() != 2 || !root->shape().IsScalar() ||
      root->shape().element_type() != p0->shape().element_type()) {
    return std::nullopt;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if ((a == p0 && b == p1) || (a == p1 && b == p0)) return kind;
  return std::nullopt;
}

HloOpcode ReductionOpcode(ReductionKind kind) {
  switch (kind) {
    case ReductionKind::kAdd:
      return HloOpcode::kAdd;
    case ReductionKind::kMultiply:
      return HloOpcode::kMultiply;
    case ReductionKind::kMaximum:
      return HloOpcode::kMaximum;
    case ReductionKind::kMinimum:
      return HloOpcode::kMinimum;
    case ReductionKind::kAnd:
      return HloOpcode::kAnd;
    case ReductionKind::kOr:
      return HloOpcode::kOr;
    case ReductionKind::kXor:
      return HloOpcode::kXor;
  }
  return HloOpcode::kAdd;
}

std::optional<ReductionKind> ReductionKindOf(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd:
      return ReductionKind::kAdd;
    case HloOpcode::kMultiply:
      return ReductionKind::kMultiply;
    case HloOpcode::kMaximum:
      return ReductionKind::kMaximum;
    case HloOpcode::kMinimum:
      return ReductionKind::kMinimum;
    case HloOpcode::kAnd:
      return ReductionKind::kAnd;
    case HloOpcode::kOr:
      return ReductionKind::kOr;
    case HloOpcode::kXor:
      return ReductionKind::kXor;
    default:
      return std::nullopt;
  }
}

std::string_view ReductionKindName(ReductionKind kind) { return OpcodeName(ReductionOpcode(kind)); }

bool IsIdempotent(ReductionKind kind) {
  return kind == ReductionKind::kMaximum || kind == ReductionKind::kMinimum ||
         kind == ReductionKind::kAnd || kind == ReductionKind::kOr;
}

std::optional<Literal> ReductionIdentity(ReductionKind kind, PrimitiveType type) {
  if (!IsArrayType(type)) return std::nullopt;
  const bool bitwise =
      kind == ReductionKind::kAnd || kind == ReductionKind::kOr || kind == ReductionKind::kXor;
  const bool extremum = kind == ReductionKind::kMaximum || kind == ReductionKind::kMinimum;
  if (bitwise && !(IsInteger(type) || IsPred(type))) return std::nullopt;
  if (extremum && IsComplex(type)) return std::nullopt;
  Literal identity(Shape::Scalar(type));
  switch (kind) {
    case ReductionKind::kAdd:
    case ReductionKind::kOr:
    case ReductionKind::kXor:
      identity.SetInt64(0, 0);
      break;
    case ReductionKind::kMultiply:
      identity.SetInt64(0, 1);
      break;
    case ReductionKind::kAnd:
      identity.SetInt64(0, IsPred(type) ? 1 : -1);  // all ones, wrapped to the width
      break;
    case ReductionKind::kMaximum:
    case ReductionKind::kMinimum: {
      // max(x, lowest) == x; pred orders false < true.
      bool highest = kind == ReductionKind::kMinimum;
      if (IsFloat(type)) {
        identity.SetDouble(0, FloatExtreme(type, highest));
      } else if (IsPred(type)) {
        identity.SetInt64(0, highest ? 1 : 0);
      } else {
        identity.SetInt64(0, IntegerExtreme(type, highest));
      }
      break;
    }
  }
  return identity;
}

}  // namespace xlite
