// Data-movement opcodes: broadcast, reshape, transpose, slices, concatenate,
// pad, reverse, bitcast and the dynamic-shape ops. Each is one strided walk
// over bytes (array_copy.h), so none depends on the element type.
#include <algorithm>
#include <numeric>

#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/eval/array_copy.h"
#include "xlite/eval/data_movement_internal.h"
#include "xlite/eval/index_util.h"
#include "xlite/eval/op_handlers.h"

namespace xlite::eval {
namespace {

using O = HloOpcode;

// Result dimension i of `x` is its dimension perm[i].
Literal Permute(const Literal& x, absl::Span<const int64_t> perm, const Shape& result_shape) {
  Literal out(result_shape);
  std::vector<int64_t> x_strides = StridesOf(x.shape());
  std::vector<int64_t> src(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) src[i] = x_strides[perm[i]];
  CopyBox(out, x, StridedBox(result_shape.dimensions(), 0, StridesOf(result_shape), 0, src));
  return out;
}

// The single dimension of a `dimensions={d}` attribute.
absl::StatusOr<int64_t> OnlyDimension(const HloInstruction& inst, int64_t rank) {
  if (inst.dimensions().size() != 1 || inst.dimensions()[0] < 0 || inst.dimensions()[0] >= rank) {
    return InvalidArgument("expected one dimension below ", rank, " in dimensions={",
                           absl::StrJoin(inst.dimensions(), ","), "}");
  }
  return inst.dimensions()[0];
}

absl::Status ExpectRank(absl::Span<const int64_t> list, int64_t rank, const char* what) {
  if (static_cast<int64_t>(list.size()) == rank) return absl::OkStatus();
  return InvalidArgument(what, " has ", list.size(), " entries for rank ", rank);
}

absl::StatusOr<Literal> Broadcast(const HloInstruction& inst, Operands ops, EvalContext&) {
  const Literal& x = *ops[0];
  const std::vector<int64_t>& dims = inst.dimensions();
  XLITE_RETURN_IF_ERROR(ExpectRank(dims, x.shape().rank(), "broadcast dimensions"));
  Literal out(inst.shape());
  // Result dimensions the operand does not map to repeat it: stride 0.
  std::vector<int64_t> src(inst.shape().rank(), 0);
  std::vector<int64_t> x_strides = StridesOf(x.shape());
  for (size_t i = 0; i < dims.size(); ++i) src[dims[i]] = x_strides[i];
  CopyBox(out, x, StridedBox(inst.shape().dimensions(), 0, StridesOf(inst.shape()), 0, src));
  return out;
}

// reshape, and set-dimension-size (whose data does not change).
absl::StatusOr<Literal> Reshape(const HloInstruction& inst, Operands ops, EvalContext&) {
  return WithShape(*ops[0], inst.shape());
}

absl::StatusOr<Literal> SetDimensionSize(const HloInstruction& inst, Operands ops, EvalContext&) {
  XLITE_ASSIGN_OR_RETURN(int64_t d, OnlyDimension(inst, ops[0]->shape().rank()));
  XLITE_ASSIGN_OR_RETURN(std::vector<int64_t> size, IndexValues(*ops[1]));
  if (size[0] < 0 || size[0] > ops[0]->shape().dimensions(d)) {
    return InvalidArgument("size ", size[0], " is out of range for dimension ", d, " of ",
                           ops[0]->shape().ToString());
  }
  return WithShape(*ops[0], inst.shape());
}

absl::StatusOr<Literal> GetDimensionSize(const HloInstruction& inst, Operands ops, EvalContext&) {
  XLITE_ASSIGN_OR_RETURN(int64_t d, OnlyDimension(inst, ops[0]->shape().rank()));
  Literal out(Shape::Scalar(PrimitiveType::S32));
  out.SetInt64(0, ops[0]->shape().dimensions(d));
  return out;
}

// The operand's elements, row-major over the runtime sizes, placed in the
// (bounded) result; positions past the runtime sizes stay zero.
absl::StatusOr<Literal> DynamicReshape(const HloInstruction& inst, Operands ops, EvalContext&) {
  const Shape& shape = inst.shape();
  std::vector<int64_t> sizes;
  for (size_t i = 1; i < ops.size(); ++i) {
    XLITE_ASSIGN_OR_RETURN(std::vector<int64_t> v, IndexValues(*ops[i]));
    if (v.size() != 1) return InvalidArgument("dynamic-reshape sizes must be scalars");
    sizes.push_back(v[0]);
  }
  XLITE_RETURN_IF_ERROR(ExpectRank(sizes, shape.rank(), "dynamic-reshape sizes"));
  int64_t count = 1;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (sizes[i] < 0 || sizes[i] > shape.dimensions(i)) {
      return InvalidArgument("runtime size ", sizes[i], " of dimension ", i,
                             " exceeds the bound of ", shape.ToString());
    }
    count *= sizes[i];
  }
  if (count != ops[0]->element_count()) {
    return InvalidArgument("runtime sizes {", absl::StrJoin(sizes, ","), "} hold ", count,
                           " elements but the operand has ", ops[0]->element_count());
  }
  Literal out(shape);
  CopyBox(out, *ops[0], StridedBox(sizes, 0, StridesOf(shape), 0, RowMajorStrides(sizes)));
  return out;
}

absl::StatusOr<Literal> Transpose(const HloInstruction& inst, Operands ops, EvalContext&) {
  XLITE_RETURN_IF_ERROR(
      ExpectRank(inst.dimensions(), ops[0]->shape().rank(), "transpose dimensions"));
  return Permute(*ops[0], inst.dimensions(), inst.shape());
}

absl::StatusOr<Literal> Slice(const HloInstruction& inst, Operands ops, EvalContext&) {
  const Literal& x = *ops[0];
  const auto& a = inst.attrs<SliceAttrs>();
  XLITE_RETURN_IF_ERROR(ExpectRank(a.starts, x.shape().rank(), "slice starts"));
  std::vector<int64_t> x_strides = StridesOf(x.shape());
  std::vector<int64_t> src(x_strides.size());
  int64_t offset = 0;
  for (size_t i = 0; i < src.size(); ++i) {
    offset += a.starts[i] * x_strides[i];
    src[i] = x_strides[i] * (a.strides.empty() ? 1 : a.strides[i]);
  }
  Literal out(inst.shape());
  CopyBox(out, x, StridedBox(inst.shape().dimensions(), 0, StridesOf(inst.shape()), offset, src));
  return out;
}

absl::StatusOr<Literal> Concatenate(const HloInstruction& inst, Operands ops, EvalContext&) {
  XLITE_ASSIGN_OR_RETURN(int64_t d, OnlyDimension(inst, inst.shape().rank()));
  Literal out(inst.shape());
  std::vector<int64_t> out_strides = StridesOf(inst.shape());
  int64_t at = 0;
  for (const Literal* x : ops) {
    CopyBox(out, *x,
            StridedBox(x->shape().dimensions(), at * out_strides[d], out_strides, 0,
                       StridesOf(x->shape())));
    at += x->shape().dimensions(d);
  }
  return out;
}

// Operand element i of a dimension lands at low + i * (interior + 1); those
// landing outside the result (negative padding) are cropped.
absl::StatusOr<Literal> Pad(const HloInstruction& inst, Operands ops, EvalContext&) {
  const Literal& x = *ops[0];
  const PaddingConfig& padding = inst.attrs<PadAttrs>().padding;
  if (static_cast<int64_t>(padding.size()) != x.shape().rank()) {
    return InvalidArgument("padding has ", padding.size(), " entries for rank ", x.shape().rank());
  }
  Literal out(inst.shape());
  FillWith(out, *ops[1]);
  std::vector<int64_t> x_strides = StridesOf(x.shape()), out_strides = StridesOf(inst.shape());
  int64_t rank = x.shape().rank();
  std::vector<int64_t> sizes(rank), dst(rank);
  int64_t dst_offset = 0, src_offset = 0;
  for (int64_t i = 0; i < rank; ++i) {
    const PaddingDimension& p = padding[i];
    int64_t step = p.interior + 1, n = x.shape().dimensions(i), m = inst.shape().dimensions(i);
    int64_t first = p.low >= 0 ? 0 : (-p.low + step - 1) / step;
    int64_t end = m - p.low - 1 < 0 ? 0 : std::min(n, (m - p.low - 1) / step + 1);
    sizes[i] = std::max<int64_t>(end - first, 0);
    dst[i] = step * out_strides[i];
    dst_offset += (p.low + first * step) * out_strides[i];
    src_offset += first * x_strides[i];
  }
  StridedBox box(sizes, dst_offset, dst, src_offset, x_strides);
  if (!box.empty()) CopyBox(out, x, box);
  return out;
}

absl::StatusOr<Literal> Reverse(const HloInstruction& inst, Operands ops, EvalContext&) {
  const Literal& x = *ops[0];
  std::vector<int64_t> src = StridesOf(x.shape());
  int64_t offset = 0;
  for (int64_t d : inst.dimensions()) {
    offset += (x.shape().dimensions(d) - 1) * src[d];
    src[d] = -src[d];
  }
  Literal out(inst.shape());
  CopyBox(out, x, StridedBox(x.shape().dimensions(), 0, StridesOf(x.shape()), offset, src));
  return out;
}

// The dimensions of `shape` from most to least major in memory (row-major
// when it has no layout).
absl::StatusOr<std::vector<int64_t>> MajorToMinor(const Shape& shape) {
  std::vector<int64_t> order(shape.rank());
  if (!shape.has_layout()) {
    std::iota(order.begin(), order.end(), 0);
    return order;
  }
  const Layout& layout = shape.layout();
  if (layout.has_extras() && !layout.extras().tiles.empty()) {
    return Unimplemented("bitcast with a tiled layout (", shape.ToString(), ")");
  }
  std::vector<int64_t> sorted(layout.minor_to_major.rbegin(), layout.minor_to_major.rend());
  order = sorted;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (static_cast<int64_t>(sorted.size()) != shape.rank() || sorted[i] != i) {
      return InvalidArgument("layout of ", shape.ToString(), " is not a permutation");
    }
  }
  return order;
}

bool IsIdentity(absl::Span<const int64_t> perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// Reinterprets the operand's buffer: its elements in memory order (through
// its layout) are the result's elements in memory order (through the
// result's layout).
absl::StatusOr<Literal> Bitcast(const HloInstruction& inst, Operands ops, EvalContext&) {
  const Literal& x = *ops[0];
  const Shape& shape = inst.shape();
  if (BitWidth(x.shape().element_type()) != BitWidth(shape.element_type())) {
    return Unimplemented("bitcast between element types of different widths (",
                         x.shape().ToString(), " to ", shape.ToString(), ")");
  }
  if (x.element_count() != shape.ElementCount()) {
    return InvalidArgument("bitcast of ", x.shape().ToString(), " to ", shape.ToString(),
                           " changes the element count");
  }
  // Layouts come from the instruction: argument literals carry none.
  XLITE_ASSIGN_OR_RETURN(std::vector<int64_t> in_order, MajorToMinor(inst.operand(0)->shape()));
  XLITE_ASSIGN_OR_RETURN(std::vector<int64_t> out_order, MajorToMinor(shape));
  // The operand's buffer as a row-major array of its physical dimensions.
  DimVector physical_dims;
  for (int64_t d : in_order) physical_dims.push_back(x.shape().dimensions(d));
  Literal physical = IsIdentity(in_order)
                         ? Literal()
                         : Permute(x, in_order, Shape(x.shape().element_type(), physical_dims));
  const Literal& buffer = IsIdentity(in_order) ? x : physical;
  // Walk the result in its memory order, writing its logical positions.
  std::vector<int64_t> out_strides = StridesOf(shape), sizes, dst;
  for (int64_t d : out_order) {
    sizes.push_back(shape.dimensions(d));
    dst.push_back(out_strides[d]);
  }
  Literal out(shape);
  CopyBox(out, buffer, StridedBox(sizes, 0, dst, 0, RowMajorStrides(sizes)));
  return out;
}

}  // namespace

void RegisterDataMovementOps(OpHandlerTable& table) {
  table.Register(O::kBroadcast, Broadcast);
  table.Register(O::kReshape, Reshape);
  table.Register(O::kDynamicReshape, DynamicReshape);
  table.Register(O::kTranspose, Transpose);
  table.Register(O::kSlice, Slice);
  table.Register(O::kConcatenate, Concatenate);
  table.Register(O::kPad, Pad);
  table.Register(O::kReverse, Reverse);
  table.Register(O::kBitcast, Bitcast);
  table.Register(O::kGetDimensionSize, GetDimensionSize);
  table.Register(O::kSetDimensionSize, SetDimensionSize);
  RegisterDynamicSliceOps(table);
}

}  // namespace xlite::eval
