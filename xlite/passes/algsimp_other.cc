// Algebraic simplifier rules on converts, selects, compares, dots and
// reduces:
//   convert to the same type -> operand; convert(convert(x)) through a type
//     that holds every value of x's type -> x
//   select(constant p, a, b) -> a or b; select(p, a, a) -> a
//   compare(x, x) of integers or pred -> constant (eq/ge/le true, ne/gt/lt false)
//   dot whose contracting dimensions all have size 1 (or that has none) ->
//     multiply of broadcasts (an outer product per batch)
//   reduce(broadcast(x)) over exactly the broadcast dimensions with a
//     max/min/and/or reducer -> op(x, init); with an integer add reducer ->
//     x * n + init (exact in wrapping arithmetic)
#include <algorithm>
#include <optional>
#include <vector>

#include "xlite/analysis/reduction_kind.h"
#include "xlite/passes/algsimp_internal.h"

namespace xlite::algsimp {
namespace {

using O = HloOpcode;

// Every value of `from` is exactly a value of `to`.
bool Widens(PrimitiveType from, PrimitiveType to) {
  using P = PrimitiveType;
  if (from == to) return true;
  if (IsPred(from)) return IsInteger(to) || IsFloat(to);
  if (IsInteger(from) && IsInteger(to)) {
    int fb = BitWidth(from), tb = BitWidth(to);
    if (IsSignedInt(from)) return IsSignedInt(to) && tb > fb;
    return tb > fb;  // unsigned into a wider signed or unsigned type
  }
  if (IsFloat(from) && IsFloat(to)) {
    if (to == P::F64) return from != P::F64;
    if (to == P::F32) return from == P::F16 || from == P::BF16;
    return false;
  }
  return false;
}

HloInstruction* SimplifyConvert(HloInstruction* inst, Context&) {
  HloInstruction* x = inst->operand(0);
  PrimitiveType to = inst->shape().element_type();
  if (x->shape().element_type() == to) return x;
  if (x->opcode() == O::kConvert) {
    HloInstruction* y = x->operand(0);
    if (y->shape().element_type() == to && Widens(to, x->shape().element_type())) return y;
  }
  return nullptr;
}

HloInstruction* SimplifySelect(HloInstruction* inst, Context&) {
  HloInstruction* on_true = inst->operand(1);
  HloInstruction* on_false = inst->operand(2);
  if (on_true == on_false) return on_true;
  std::optional<double> p = UniformValue(inst->operand(0));
  if (!p.has_value()) return nullptr;
  return *p != 0 ? on_true : on_false;
}

HloInstruction* SimplifyCompare(HloInstruction* inst, Context& ctx) {
  HloInstruction* a = inst->operand(0);
  PrimitiveType t = a->shape().element_type();
  if (a != inst->operand(1) || !(IsInteger(t) || IsPred(t))) return nullptr;
  ComparisonDirection d = inst->attrs<CompareAttrs>().direction;
  bool value = d == ComparisonDirection::kEq || d == ComparisonDirection::kGe ||
               d == ComparisonDirection::kLe;
  return ctx.make.Splat(ctx.computation, inst->shape(), value ? 1 : 0);
}

// One dot operand as [batch..., free...] in the result's element type,
// broadcast into the result: `free_offset` is where its free dims start.
HloInstruction* OuterOperand(HloInstruction* operand, const std::vector<int64_t>& batch,
                             const std::vector<int64_t>& contracting, int64_t free_offset,
                             const Shape& result, Context& ctx) {
  std::vector<int64_t> perm = batch;
  std::vector<int64_t> free;
  for (int64_t d = 0; d < operand->shape().rank(); ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
      free.push_back(d);
    }
  }
  perm.insert(perm.end(), free.begin(), free.end());
  perm.insert(perm.end(), contracting.begin(), contracting.end());
  HloInstruction* x = operand;
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == static_cast<int64_t>(i);
  std::vector<int64_t> dims;
  for (int64_t d : perm) dims.push_back(operand->shape().dimensions(d));
  if (!identity) {
    x = ctx.make.Add(ctx.computation, O::kTranspose, Shape(operand->shape().element_type(), dims),
                     {x});
    x->set_dimensions(perm);
  }
  // Drop the size-1 contracting dims.
  dims.resize(batch.size() + free.size());
  if (!contracting.empty()) {
    x = ctx.make.Reshape(ctx.computation, x, Shape(x->shape().element_type(), dims));
  }
  if (x->shape().element_type() != result.element_type()) {
    x = ctx.make.Convert(ctx.computation, x, result.element_type());
  }
  std::vector<int64_t> map;
  for (int64_t i = 0; i < static_cast<int64_t>(batch.size()); ++i) map.push_back(i);
  for (int64_t i = 0; i < static_cast<int64_t>(free.size()); ++i) map.push_back(free_offset + i);
  Shape target(result.element_type(), result.dimensions());
  return ctx.make.Broadcast(ctx.computation, x, target, std::move(map));
}

HloInstruction* SimplifyDot(HloInstruction* inst, Context& ctx) {
  const DotDimensions& dims = inst->attrs<DotAttrs>().dims;
  HloInstruction* lhs = inst->operand(0);
  HloInstruction* rhs = inst->operand(1);
  for (int64_t d : dims.lhs_contracting) {
    if (lhs->shape().dimensions(d) != 1) return nullptr;
  }
  PrimitiveType t = inst->shape().element_type();
  if (!(IsFloat(t) || IsInteger(t) || IsComplex(t))) return nullptr;
  int64_t batch = static_cast<int64_t>(dims.lhs_batch.size());
  int64_t lhs_free =
      lhs->shape().rank() - batch - static_cast<int64_t>(dims.lhs_contracting.size());
  HloInstruction* a =
      OuterOperand(lhs, dims.lhs_batch, dims.lhs_contracting, batch, inst->shape(), ctx);
  HloInstruction* b =
      OuterOperand(rhs, dims.rhs_batch, dims.rhs_contracting, batch + lhs_free, inst->shape(), ctx);
  return ctx.make.Binary(ctx.computation, O::kMultiply, a, b);
}

HloInstruction* SimplifyReduce(HloInstruction* inst, Context& ctx) {
  if (inst->operand_count() != 2) return nullptr;
  HloInstruction* input = inst->operand(0);
  HloInstruction* init = inst->operand(1);
  if (input->opcode() != O::kBroadcast) return nullptr;
  HloInstruction* x = input->operand(0);
  // The reduced dims must be exactly those the broadcast added, and the kept
  // ones in x's order (then the result has x's shape).
  std::vector<int64_t> kept = input->dimensions();
  if (!std::is_sorted(kept.begin(), kept.end())) return nullptr;
  std::vector<int64_t> reduced = inst->dimensions();
  std::sort(reduced.begin(), reduced.end());
  std::vector<int64_t> added;
  for (int64_t d = 0; d < input->shape().rank(); ++d) {
    if (std::find(kept.begin(), kept.end(), d) == kept.end()) added.push_back(d);
  }
  if (reduced != added || added.empty() || !SameArrayShape(x->shape(), inst->shape())) {
    return nullptr;
  }
  int64_t n = 1;
  for (int64_t d : added) n *= input->shape().dimensions(d);
  if (n == 0) return nullptr;
  std::optional<ReductionKind> kind = MatchReductionKind(*inst->to_apply());
  if (!kind.has_value()) return nullptr;
  PrimitiveType t = inst->shape().element_type();
  if (!IsIdempotent(*kind) && !(*kind == ReductionKind::kAdd && IsInteger(t))) return nullptr;
  // Made only once the rule applies: a dead leftover would "change" forever.
  HloInstruction* init_b = ctx.make.Broadcast(ctx.computation, init, inst->shape(), {});
  if (IsIdempotent(*kind)) {
    return ctx.make.Binary(ctx.computation, ReductionOpcode(*kind), x, init_b);
  }
  // add of integers: n wraps to the type's width, as the n additions would.
  Literal count(Shape::Scalar(t));
  count.SetInt64(0, n);
  HloInstruction* factor = ctx.make.Broadcast(
      ctx.computation, ctx.make.Constant(ctx.computation, std::move(count)), inst->shape(), {});
  HloInstruction* scaled = ctx.make.Binary(ctx.computation, O::kMultiply, x, factor);
  return ctx.make.Binary(ctx.computation, O::kAdd, scaled, init_b);
}

}  // namespace

HloInstruction* SimplifyOther(HloInstruction* inst, Context& ctx) {
  switch (inst->opcode()) {
    case O::kConvert:
      return SimplifyConvert(inst, ctx);
    case O::kSelect:
      return SimplifySelect(inst, ctx);
    case O::kCompare:
      return SimplifyCompare(inst, ctx);
    case O::kDot:
      return SimplifyDot(inst, ctx);
    case O::kReduce:
      return SimplifyReduce(inst, ctx);
    default:
      return nullptr;
  }
}

}  // namespace xlite::algsimp
