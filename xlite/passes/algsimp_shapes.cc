// Algebraic simplifier rules on data movement:
//   broadcast/reshape/transpose/bitcast/copy that change nothing -> operand
//   broadcast(broadcast(y)) -> broadcast(y); reshape(reshape(y)) -> reshape(y)
//   reshape(broadcast(scalar)), transpose(broadcast(scalar)) -> broadcast(scalar)
//   transpose(transpose(y)) -> transpose(y) (or y)
//   reshape between row-major layouts -> bitcast (reshape-is-bitcast)
//   slice of the whole array -> operand; slice(slice(y)) -> slice(y)
//   slice inside one operand of a concatenate -> slice of that operand
//   concatenate of one operand -> operand; zero-sized operands dropped
//   pad with no padding -> operand
//   reverse of size-1 dims -> operand; reverse(reverse(y)) -> y
//   dynamic-slice at constant indices -> slice (indices clamped as XLA does)
//   dynamic-update-slice of a whole-array update -> the update
//   bitcast(bitcast(y)) -> bitcast(y) (or y)
#include <algorithm>
#include <cstdint>
#include <vector>

#include "xlite/passes/algsimp_internal.h"

namespace xlite::algsimp {
namespace {

using O = HloOpcode;

bool IsIdentityPermutation(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

bool IsScalar(const HloInstruction* inst) { return inst->shape().rank() == 0; }

HloInstruction* SimplifyBroadcast(HloInstruction* inst, Context& ctx) {
  HloInstruction* x = inst->operand(0);
  if (SameArrayShape(x->shape(), inst->shape()) && IsIdentityPermutation(inst->dimensions())) {
    return x;
  }
  if (x->opcode() == O::kBroadcast) {
    std::vector<int64_t> dims;
    for (int64_t d : x->dimensions()) dims.push_back(inst->dimensions()[d]);
    return ctx.make.Broadcast(ctx.computation, x->operand(0), inst->shape(), std::move(dims));
  }
  return nullptr;
}

// Both shapes carry the default (row-major) layout.
bool BothRowMajor(const Shape& a, const Shape& b) {
  return a.has_layout() && b.has_layout() && !a.layout().has_extras() && !b.layout().has_extras() &&
         a.layout() == Layout::Default(a.rank()) && b.layout() == Layout::Default(b.rank());
}

HloInstruction* SimplifyReshape(HloInstruction* inst, Context& ctx) {
  HloInstruction* x = inst->operand(0);
  if (SameArrayShape(x->shape(), inst->shape())) return x;
  if (x->opcode() == O::kReshape) {
    return ctx.make.Reshape(ctx.computation, x->operand(0), inst->shape());
  }
  if (x->opcode() == O::kBroadcast && IsScalar(x->operand(0))) {
    return ctx.make.Broadcast(ctx.computation, x->operand(0), inst->shape(), {});
  }
  if (BothRowMajor(x->shape(), inst->shape())) {
    return ctx.make.Add(ctx.computation, O::kBitcast, inst->shape(), {x});
  }
  return nullptr;
}

HloInstruction* SimplifyTranspose(HloInstruction* inst, Context& ctx) {
  HloInstruction* x = inst->operand(0);
  const std::vector<int64_t>& perm = inst->dimensions();
  if (IsIdentityPermutation(perm)) return x;
  if (x->opcode() == O::kTranspose) {
    std::vector<int64_t> composed;
    for (int64_t p : perm) composed.push_back(x->dimensions()[p]);
    if (IsIdentityPermutation(composed)) return x->operand(0);
    HloInstruction* t =
        ctx.make.Add(ctx.computation, O::kTranspose, inst->shape(), {x->operand(0)});
    t->set_dimensions(std::move(composed));
    return t;
  }
  if (x->opcode() == O::kBroadcast && IsScalar(x->operand(0))) {
    return ctx.make.Broadcast(ctx.computation, x->operand(0), inst->shape(), {});
  }
  return nullptr;
}

HloInstruction* SimplifySlice(HloInstruction* inst, Context& ctx) {
  HloInstruction* x = inst->operand(0);
  const auto& s = inst->attrs<SliceAttrs>();
  bool whole = true;
  for (int64_t d = 0; d < inst->shape().rank(); ++d) {
    whole &= s.starts[d] == 0 && s.limits[d] == x->shape().dimensions(d) && s.strides[d] == 1;
  }
  if (whole) return x;
  if (x->opcode() == O::kSlice) {
    const auto& inner = x->attrs<SliceAttrs>();
    auto merged = std::make_unique<SliceAttrs>();
    for (int64_t d = 0; d < inst->shape().rank(); ++d) {
      int64_t start = inner.starts[d] + s.starts[d] * inner.strides[d];
      int64_t stride = inner.strides[d] * s.strides[d];
      int64_t count = inst->shape().dimensions(d);
      merged->starts.push_back(start);
      merged->strides.push_back(stride);
      merged->limits.push_back(count == 0 ? start : start + (count - 1) * stride + 1);
    }
    return ctx.make.Add(ctx.computation, O::kSlice, inst->shape(), {x->operand(0)},
                        std::move(merged));
  }
  if (x->opcode() == O::kConcatenate) {
    int64_t axis = x->dimensions()[0];
    int64_t offset = 0;
    for (HloInstruction* part : x->operands()) {
      int64_t size = part->shape().dimensions(axis);
      if (s.starts[axis] >= offset && s.limits[axis] <= offset + size) {
        auto shifted = std::make_unique<SliceAttrs>(s);
        shifted->starts[axis] -= offset;
        shifted->limits[axis] -= offset;
        return ctx.make.Add(ctx.computation, O::kSlice, inst->shape(), {part}, std::move(shifted));
      }
      offset += size;
    }
  }
  return nullptr;
}

HloInstruction* SimplifyConcatenate(HloInstruction* inst, Context& ctx) {
  if (inst->operand_count() == 1) return inst->operand(0);
  std::vector<HloInstruction*> kept;
  for (HloInstruction* part : inst->operands()) {
    if (part->shape().ElementCount() != 0) kept.push_back(part);
  }
  if (kept.empty() || kept.size() == inst->operands().size()) return nullptr;
  if (kept.size() == 1) return kept[0];
  HloInstruction* c = ctx.make.Add(ctx.computation, O::kConcatenate, inst->shape(), kept);
  c->set_dimensions(inst->dimensions());
  return c;
}

HloInstruction* SimplifyPad(HloInstruction* inst, Context&) {
  for (const PaddingDimension& p : inst->attrs<PadAttrs>().padding) {
    if (p.low != 0 || p.high != 0 || p.interior != 0) return nullptr;
  }
  return inst->operand(0);
}

HloInstruction* SimplifyReverse(HloInstruction* inst, Context& ctx) {
  HloInstruction* x = inst->operand(0);
  std::vector<int64_t> dims;
  for (int64_t d : inst->dimensions()) {
    if (x->shape().dimensions(d) > 1) dims.push_back(d);
  }
  if (dims.empty()) return x;
  if (x->opcode() == O::kReverse) {
    std::vector<int64_t> inner;
    for (int64_t d : x->dimensions()) {
      if (x->shape().dimensions(d) > 1) inner.push_back(d);
    }
    std::sort(dims.begin(), dims.end());
    std::sort(inner.begin(), inner.end());
    if (dims == inner) return x->operand(0);
  }
  if (dims.size() == inst->dimensions().size()) return nullptr;
  HloInstruction* r = ctx.make.Add(ctx.computation, O::kReverse, inst->shape(), {x});
  r->set_dimensions(std::move(dims));
  return r;
}

// The scalar index constants of a dynamic-slice / dynamic-update-slice.
bool ConstantIndices(const HloInstruction* inst, int64_t first, std::vector<int64_t>* out) {
  for (int64_t i = first; i < inst->operand_count(); ++i) {
    const HloInstruction* index = inst->operand(i);
    if (index->opcode() != O::kConstant || index->attrs<ConstantAttrs>().elided ||
        index->shape().rank() != 0) {
      return false;
    }
    int64_t value = index->literal().GetInt64(0);
    // A u64 index past 2^63 reads as negative here: it clamps high, not low.
    if (IsUnsignedInt(index->shape().element_type()) && value < 0) value = INT64_MAX;
    out->push_back(value);
  }
  return true;
}

HloInstruction* SimplifyDynamicSlice(HloInstruction* inst, Context& ctx) {
  HloInstruction* x = inst->operand(0);
  std::vector<int64_t> starts;
  if (x->shape().rank() == 0 || !ConstantIndices(inst, 1, &starts)) return nullptr;
  if (starts.size() != static_cast<size_t>(x->shape().rank())) return nullptr;
  auto slice = std::make_unique<SliceAttrs>();
  for (int64_t d = 0; d < x->shape().rank(); ++d) {
    int64_t size = inst->shape().dimensions(d);
    int64_t start = std::clamp<int64_t>(starts[d], 0, x->shape().dimensions(d) - size);
    slice->starts.push_back(start);
    slice->limits.push_back(start + size);
    slice->strides.push_back(1);
  }
  return ctx.make.Add(ctx.computation, O::kSlice, inst->shape(), {x}, std::move(slice));
}

HloInstruction* SimplifyDynamicUpdateSlice(HloInstruction* inst, Context&) {
  HloInstruction* update = inst->operand(1);
  return SameArrayShape(update->shape(), inst->shape()) ? update : nullptr;
}

// copy and bitcast that keep shape and layout; bitcast(bitcast(y)).
HloInstruction* SimplifyNoOpCopy(HloInstruction* inst, Context& ctx) {
  HloInstruction* x = inst->operand(0);
  if (x->shape() == inst->shape()) return x;
  if (inst->opcode() == O::kBitcast && x->opcode() == O::kBitcast) {
    HloInstruction* y = x->operand(0);
    if (y->shape() == inst->shape()) return y;
    return ctx.make.Add(ctx.computation, O::kBitcast, inst->shape(), {y});
  }
  return nullptr;
}

}  // namespace

HloInstruction* SimplifyShapes(HloInstruction* inst, Context& ctx) {
  switch (inst->opcode()) {
    case O::kBroadcast:
      return SimplifyBroadcast(inst, ctx);
    case O::kReshape:
      return SimplifyReshape(inst, ctx);
    case O::kTranspose:
      return SimplifyTranspose(inst, ctx);
    case O::kSlice:
      return SimplifySlice(inst, ctx);
    case O::kConcatenate:
      return SimplifyConcatenate(inst, ctx);
    case O::kPad:
      return SimplifyPad(inst, ctx);
    case O::kReverse:
      return SimplifyReverse(inst, ctx);
    case O::kDynamicSlice:
      return SimplifyDynamicSlice(inst, ctx);
    case O::kDynamicUpdateSlice:
      return SimplifyDynamicUpdateSlice(inst, ctx);
    case O::kCopy:
    case O::kBitcast:
      return SimplifyNoOpCopy(inst, ctx);
    default:
      return nullptr;
  }
}

}  // namespace xlite::algsimp
