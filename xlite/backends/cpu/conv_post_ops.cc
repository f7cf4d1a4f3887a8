#include "xlite/backends/cpu/conv_post_ops.h"

#include <cstddef>

#include "xlite/ir/attributes.h"

namespace xlite::cpu {
namespace {

// The value of a broadcast f32 scalar constant.
std::optional<double> SplatValue(const HloInstruction& x) {
  if (x.opcode() != HloOpcode::kBroadcast) return std::nullopt;
  const HloInstruction& scalar = *x.operand(0);
  if (scalar.opcode() != HloOpcode::kConstant || !scalar.shape().IsScalar() ||
      scalar.shape().element_type() != PrimitiveType::F32) {
    return std::nullopt;
  }
  return scalar.literal().GetDouble(0);
}

bool Has(absl::Span<const ConvPostOp> ops, ConvPostOpKind kind) {
  for (const ConvPostOp& op : ops) {
    if (op.kind == kind) return true;
  }
  return false;
}

// The oneDNN eltwise algorithm a kind becomes (0: none). oneDNN 2.6's
// convolutions apply the parameters of the first eltwise post-op to every
// later one of the same algorithm (measured: a shift after a scale scaled
// again), so a chain takes one op per algorithm.
int EltwiseFamily(ConvPostOpKind kind) {
  switch (kind) {
    case ConvPostOpKind::kRelu:
      return 1;
    case ConvPostOpKind::kClipBelow:
    case ConvPostOpKind::kClipAbove:
      return 2;
    case ConvPostOpKind::kScale:
    case ConvPostOpKind::kShift:
      return 3;
    case ConvPostOpKind::kBias:
    case ConvPostOpKind::kSum:
      return 0;
  }
  return 0;
}

// What an op does with the chain's value and `other`, its other operand.
using Matcher = std::optional<ConvPostOp> (*)(const HloInstruction& other,
                                              const HloInstruction& conv,
                                              absl::Span<const ConvPostOp> before);

std::optional<ConvPostOp> MatchAdd(const HloInstruction& other, const HloInstruction& conv,
                                   absl::Span<const ConvPostOp> before) {
  if (std::optional<double> c = SplatValue(other))
    return ConvPostOp{ConvPostOpKind::kShift, nullptr, *c};
  // oneDNN adds its bias before any post-op: only the first add can be it.
  const int64_t feature = conv.attrs<ConvolutionAttrs>().dims.output_feature;
  if (before.empty() && other.opcode() == HloOpcode::kBroadcast &&
      other.dimensions() == std::vector<int64_t>{feature} &&
      other.operand(0)->shape().element_type() == PrimitiveType::F32) {
    return ConvPostOp{ConvPostOpKind::kBias, other.operand(0)};
  }
  // One sum per primitive; it reads the array in the output's layout.
  if (!Has(before, ConvPostOpKind::kSum) && other.shape().element_type() == PrimitiveType::F32) {
    return ConvPostOp{ConvPostOpKind::kSum, &other};
  }
  return std::nullopt;
}

std::optional<ConvPostOp> MatchSubtract(const HloInstruction& other, const HloInstruction&,
                                        absl::Span<const ConvPostOp>) {
  if (std::optional<double> c = SplatValue(other))
    return ConvPostOp{ConvPostOpKind::kShift, nullptr, -*c};
  return std::nullopt;
}

std::optional<ConvPostOp> MatchMultiply(const HloInstruction& other, const HloInstruction&,
                                        absl::Span<const ConvPostOp>) {
  if (std::optional<double> c = SplatValue(other))
    return ConvPostOp{ConvPostOpKind::kScale, nullptr, *c};
  return std::nullopt;
}

std::optional<ConvPostOp> MatchMaximum(const HloInstruction& other, const HloInstruction&,
                                       absl::Span<const ConvPostOp>) {
  std::optional<double> c = SplatValue(other);
  if (!c) return std::nullopt;
  if (*c == 0) return ConvPostOp{ConvPostOpKind::kRelu};
  return ConvPostOp{ConvPostOpKind::kClipBelow, nullptr, *c};
}

std::optional<ConvPostOp> MatchMinimum(const HloInstruction& other, const HloInstruction&,
                                       absl::Span<const ConvPostOp>) {
  if (std::optional<double> c = SplatValue(other))
    return ConvPostOp{ConvPostOpKind::kClipAbove, nullptr, *c};
  return std::nullopt;
}

// The post-op table: per opcode, whether the chain's value may be either
// operand (else only the first) and how the other operand is read.
struct Rule {
  HloOpcode opcode;
  bool commutative;
  Matcher match;
};
constexpr Rule kRules[] = {
    {HloOpcode::kAdd, true, MatchAdd},           {HloOpcode::kSubtract, false, MatchSubtract},
    {HloOpcode::kMultiply, true, MatchMultiply}, {HloOpcode::kMaximum, true, MatchMaximum},
    {HloOpcode::kMinimum, true, MatchMinimum},
};

}  // namespace

bool IsOneDnnConvolution(const HloInstruction& conv) {
  if (conv.opcode() != HloOpcode::kConvolution || conv.operand_count() != 2) return false;
  const auto& attrs = conv.attrs<ConvolutionAttrs>();
  for (const Shape* shape : {&conv.shape(), &conv.operand(0)->shape(), &conv.operand(1)->shape()}) {
    if (!shape->IsArray() || shape->element_type() != PrimitiveType::F32 || !shape->is_static() ||
        shape->ElementCount() == 0) {
      return false;
    }
  }
  const size_t spatial = attrs.dims.input_spatial.size();
  if (spatial < 1 || spatial > 3 || attrs.window.size() != spatial ||
      attrs.batch_group_count != 1) {
    return false;
  }
  // Feature groups as the verifier checks them, so that the thunk's grouped
  // kernel description is exact.
  const int64_t groups = attrs.feature_group_count;
  const Shape& input = conv.operand(0)->shape();
  const Shape& kernel = conv.operand(1)->shape();
  if (groups < 1 || kernel.dimensions(attrs.dims.kernel_output_feature) % groups != 0 ||
      kernel.dimensions(attrs.dims.kernel_input_feature) * groups !=
          input.dimensions(attrs.dims.input_feature)) {
    return false;
  }
  for (const WindowDimension& w : attrs.window) {
    if (w.base_dilation != 1 || w.window_reversal || w.padding_low < 0 || w.padding_high < 0 ||
        w.stride < 1 || w.window_dilation < 1) {
      return false;
    }
  }
  return true;
}

std::optional<ConvPostOp> MatchConvPostOp(const HloInstruction& user, const HloInstruction& value,
                                          const HloInstruction& conv,
                                          absl::Span<const ConvPostOp> before) {
  if (user.operand_count() != 2 || !user.shape().IsArray() ||
      user.shape().element_type() != PrimitiveType::F32 ||
      user.shape().dimensions() != conv.shape().dimensions() ||
      user.operand(0) == user.operand(1) || !user.control_predecessors().empty() ||
      !user.control_successors().empty()) {
    return std::nullopt;
  }
  std::optional<ConvPostOp> op;
  for (const Rule& rule : kRules) {
    if (rule.opcode != user.opcode()) continue;
    if (user.operand(0) == &value) {
      op = rule.match(*user.operand(1), conv, before);
    } else if (rule.commutative && user.operand(1) == &value) {
      op = rule.match(*user.operand(0), conv, before);
    }
  }
  if (!op) return std::nullopt;
  const int family = EltwiseFamily(op->kind);
  for (const ConvPostOp& earlier : before) {
    if (family != 0 && EltwiseFamily(earlier.kind) == family) return std::nullopt;
  }
  return op;
}

std::optional<std::vector<ConvPostOp>> ConvPostOpChain(const HloInstruction& conv,
                                                       const HloInstruction& last) {
  std::vector<ConvPostOp> ops;
  for (const HloInstruction* value = &conv; value != &last;) {
    if (value->user_count() != 1) return std::nullopt;
    const HloInstruction& user = *value->users()[0];
    std::optional<ConvPostOp> op = MatchConvPostOp(user, *value, conv, ops);
    if (!op) return std::nullopt;
    ops.push_back(*op);
    value = &user;
  }
  return ops;
}

}  // namespace xlite::cpu
