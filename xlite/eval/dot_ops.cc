// dot (general batch and contracting dimensions), ragged-dot (non-contracting
// and contracting ragged dimension) and scaled-dot (refused).
// Operands are converted to the result element type first (XLA's preferred
// element type) and products accumulate in the result's compute type: the
// type itself for f32/f64/integers/complex, f32 for bf16/f16/f8 results,
// which are rounded once at the end as XLA's CPU backend does. The operand
// precision config and algorithm are ignored: the oracle always computes at
// full precision of that accumulation type.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/eval/index_util.h"
#include "xlite/eval/linalg_internal.h"

namespace xlite::eval {
namespace {

using Operands = absl::Span<const Literal* const>;

// The dot as `batch` independent [m,k] x [k,n] products over offsets into
// the operands' row-major data: element (b, i, kk) of the lhs is at
// lhs_rows[b*m+i] + lhs_k[kk], element (b, kk, j) of the rhs at
// rhs_cols[b*n+j] + rhs_k[kk]; the result is [batch, m, n] row-major, which
// is exactly XLA's result order (batch dims, lhs free dims, rhs free dims).
struct DotIndexing {
  int64_t batch = 1, m = 1, k = 1, n = 1;
  std::vector<int64_t> lhs_rows, rhs_cols, lhs_k, rhs_k;
};

// Offsets in a row-major array of `shape` of every index over `dims` (taken
// in that order, row-major), the other coordinates zero.
std::vector<int64_t> OffsetsOver(const Shape& shape, absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
  std::vector<int64_t> sizes, sub_strides;
  for (int64_t d : dims) {
    sizes.push_back(shape.dimensions(d));
    sub_strides.push_back(strides[d]);
  }
  std::vector<int64_t> offsets;
  ForEachIndex(sizes, [&](absl::Span<const int64_t> index) {
    offsets.push_back(LinearIndex(index, sub_strides));
  });
  return offsets;
}

// Dimensions of `shape` in none of the lists, ascending.
std::vector<int64_t> FreeDims(const Shape& shape,
                              std::initializer_list<absl::Span<const int64_t>> used) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    bool taken = false;
    for (absl::Span<const int64_t> list : used) {
      taken = taken || std::find(list.begin(), list.end(), d) != list.end();
    }
    if (!taken) free.push_back(d);
  }
  return free;
}

absl::Status CheckDims(const char* what, const Shape& shape, absl::Span<const int64_t> batch,
                       absl::Span<const int64_t> contracting) {
  std::vector<bool> seen(shape.rank(), false);
  for (absl::Span<const int64_t> list : {batch, contracting}) {
    for (int64_t d : list) {
      if (d < 0 || d >= shape.rank() || seen[d]) {
        return InvalidArgument("dot: ", what, " dimension numbers {", absl::StrJoin(list, ","),
                               "} are out of range or repeated for ", shape.ToString());
      }
      seen[d] = true;
    }
  }
  return absl::OkStatus();
}

// `rhs_group` (ragged-dot's rhs group dimension, if any) is left out of the
// rhs free dimensions: its coordinate stays 0 in the offsets.
absl::StatusOr<DotIndexing> PlanDot(const Shape& lhs, const Shape& rhs, const DotDimensions& dims,
                                    absl::Span<const int64_t> result_dims,
                                    absl::Span<const int64_t> rhs_group = {}) {
  if (!lhs.IsArray() || !rhs.IsArray()) {
    return InvalidArgument("dot: operands must be arrays");
  }
  if (dims.lhs_batch.size() != dims.rhs_batch.size() ||
      dims.lhs_contracting.size() != dims.rhs_contracting.size()) {
    return InvalidArgument("dot: lhs and rhs must have as many batch and contracting dimensions");
  }
  XLITE_RETURN_IF_ERROR(CheckDims("lhs", lhs, dims.lhs_batch, dims.lhs_contracting));
  XLITE_RETURN_IF_ERROR(CheckDims("rhs", rhs, dims.rhs_batch, dims.rhs_contracting));
  std::vector<int64_t> expected;
  DotIndexing ix;
  for (size_t i = 0; i < dims.lhs_batch.size(); ++i) {
    int64_t size = lhs.dimensions(dims.lhs_batch[i]);
    if (size != rhs.dimensions(dims.rhs_batch[i])) {
      return InvalidArgument("dot: batch dimension ", i, " differs: ", lhs.ToString(), " vs ",
                             rhs.ToString());
    }
    expected.push_back(size);
    ix.batch *= size;
  }
  for (size_t i = 0; i < dims.lhs_contracting.size(); ++i) {
    int64_t size = lhs.dimensions(dims.lhs_contracting[i]);
    if (size != rhs.dimensions(dims.rhs_contracting[i])) {
      return InvalidArgument("dot: contracting dimension ", i, " differs: ", lhs.ToString(), " vs ",
                             rhs.ToString());
    }
    ix.k *= size;
  }
  std::vector<int64_t> lhs_free = FreeDims(lhs, {dims.lhs_batch, dims.lhs_contracting});
  std::vector<int64_t> rhs_free = FreeDims(rhs, {dims.rhs_batch, dims.rhs_contracting, rhs_group});
  for (int64_t d : lhs_free) {
    expected.push_back(lhs.dimensions(d));
    ix.m *= lhs.dimensions(d);
  }
  for (int64_t d : rhs_free) {
    expected.push_back(rhs.dimensions(d));
    ix.n *= rhs.dimensions(d);
  }
  if (!std::equal(expected.begin(), expected.end(), result_dims.begin(), result_dims.end())) {
    return InvalidArgument("dot: result dimensions [", absl::StrJoin(result_dims, ","),
                           "] should be [", absl::StrJoin(expected, ","), "]");
  }
  std::vector<int64_t> lhs_batch = OffsetsOver(lhs, dims.lhs_batch);
  std::vector<int64_t> rhs_batch = OffsetsOver(rhs, dims.rhs_batch);
  std::vector<int64_t> lhs_m = OffsetsOver(lhs, lhs_free);
  std::vector<int64_t> rhs_n = OffsetsOver(rhs, rhs_free);
  ix.lhs_k = OffsetsOver(lhs, dims.lhs_contracting);
  ix.rhs_k = OffsetsOver(rhs, dims.rhs_contracting);
  for (int64_t b = 0; b < ix.batch; ++b) {
    for (int64_t i = 0; i < ix.m; ++i) ix.lhs_rows.push_back(lhs_batch[b] + lhs_m[i]);
    for (int64_t j = 0; j < ix.n; ++j) ix.rhs_cols.push_back(rhs_batch[b] + rhs_n[j]);
  }
  return ix;
}

// Gathers each batch of the f32 operands into contiguous [m,k] and [k,n]
// buffers and runs the blocked kernel, writing [batch, m, n] floats to `out`.
void FastDot(const DotIndexing& ix, const Literal& lhs, const Literal& rhs, float* out) {
  const uint8_t* a = lhs.raw_data().data();
  const uint8_t* b = rhs.raw_data().data();
  Scratch lhs_scratch(ScratchSlot::kLhs, ix.m * ix.k), rhs_scratch(ScratchSlot::kRhs, ix.k * ix.n);
  float* lhs_buf = lhs_scratch.data();
  float* rhs_buf = rhs_scratch.data();
  for (int64_t bb = 0; bb < ix.batch; ++bb) {
    for (int64_t i = 0; i < ix.m; ++i) {
      const int64_t row = ix.lhs_rows[bb * ix.m + i];
      for (int64_t kk = 0; kk < ix.k; ++kk) lhs_buf[i * ix.k + kk] = F32At(a, row + ix.lhs_k[kk]);
    }
    for (int64_t kk = 0; kk < ix.k; ++kk) {
      const int64_t* cols = ix.rhs_cols.data() + bb * ix.n;
      for (int64_t j = 0; j < ix.n; ++j) rhs_buf[kk * ix.n + j] = F32At(b, cols[j] + ix.rhs_k[kk]);
    }
    MatMulF32(ix.m, ix.k, ix.n, lhs_buf, ix.k, rhs_buf, ix.n, out + bb * ix.m * ix.n, ix.n);
  }
}

absl::StatusOr<Literal> Dot(const HloInstruction& inst, Operands operands, EvalContext&) {
  const DotAttrs& attrs = inst.attrs<DotAttrs>();
  // The layout of XLA's sparse metadata (which kept element sits where in a
  // group) is a hardware format, not specified with the op.
  if (!attrs.sparsity.empty()) return Unimplemented("sparse dot");
  return EvaluateDot(*operands[0], *operands[1], attrs.dims, inst.shape());
}

// ragged-dot with group_sizes [g] splitting lhs's ragged dimension into g
// consecutive groups. Non-contracting ragged dimension: each lhs row takes
// the rhs slice of its group (rows past the last group give zeros).
// Contracting ragged dimension: result [g, dot...], group i summing only over
// its own range of the contraction. Generic path only (any element type).
struct RaggedPlan {
  bool contracting = false;
  int64_t groups = 1, group_stride = 0;
  std::vector<int64_t> row_group;  // non-contracting: group of lhs row i, -1 past the end
                                   // (empty for a plain dot)
  std::vector<int64_t> k_group;    // contracting: group of contraction index kk
};

// Group of every coordinate 0..size-1 of the ragged dimension (-1 past the
// sum of the sizes).
absl::StatusOr<std::vector<int64_t>> GroupOfCoordinate(const Literal& group_sizes, int64_t size) {
  std::vector<int64_t> group(size, -1);
  int64_t start = 0;
  for (int64_t g = 0; g < group_sizes.element_count(); ++g) {
    const int64_t n = group_sizes.GetInt64(g);
    if (n < 0) return InvalidArgument("ragged-dot: group size ", n, " is negative");
    for (int64_t c = start; c < std::min(size, start + n); ++c) group[c] = g;
    start += n;
  }
  return group;
}

// For each linear index over `dims` of `shape` (row-major in that order),
// the group of its coordinate along dimension `ragged`.
std::vector<int64_t> GroupsAlong(const Shape& shape, absl::Span<const int64_t> dims, int64_t ragged,
                                 const std::vector<int64_t>& group_of) {
  std::vector<int64_t> sizes;
  int64_t pos = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    sizes.push_back(shape.dimensions(dims[i]));
    if (dims[i] == ragged) pos = static_cast<int64_t>(i);
  }
  std::vector<int64_t> out;
  ForEachIndex(sizes,
               [&](absl::Span<const int64_t> index) { out.push_back(group_of[index[pos]]); });
  return out;
}

// One accumulation per result element, in the result's compute type (a plain
// dot is one group with no ragged dimension).
template <PrimitiveType PT>
void GenericDot(const DotIndexing& ix, const RaggedPlan& rp, const std::vector<NativeT<PT>>& a,
                const std::vector<NativeT<PT>>& b, Literal& out) {
  using T = NativeT<PT>;
  uint8_t* data = out.mutable_raw_data().data();
  for (int64_t g = 0; g < rp.groups; ++g) {
    for (int64_t bb = 0; bb < ix.batch; ++bb) {
      for (int64_t i = 0; i < ix.m; ++i) {
        const int64_t row = ix.lhs_rows[bb * ix.m + i];
        const int64_t row_group = rp.contracting ? g : rp.row_group.empty() ? 0 : rp.row_group[i];
        for (int64_t j = 0; j < ix.n; ++j) {
          T acc{};
          if (row_group >= 0) {
            const int64_t col =
                ix.rhs_cols[bb * ix.n + j] + (rp.contracting ? 0 : row_group * rp.group_stride);
            for (int64_t kk = 0; kk < ix.k; ++kk) {
              if (rp.contracting && rp.k_group[kk] != g) continue;
              acc = MulAdd<T>(acc, a[row + ix.lhs_k[kk]], b[col + ix.rhs_k[kk]]);
            }
          }
          StoreElement<PT>(data, ((g * ix.batch + bb) * ix.m + i) * ix.n + j, acc);
        }
      }
    }
  }
}

// Converts the operands to the result type and runs GenericDot for it.
absl::StatusOr<Literal> RunGenericDot(const DotIndexing& ix, const RaggedPlan& rp,
                                      const Literal& lhs, const Literal& rhs,
                                      const Shape& result_shape) {
  const PrimitiveType type = result_shape.element_type();
  XLITE_ASSIGN_OR_RETURN(ConvertedOperand l, ConvertedOperand::Make(lhs, type));
  XLITE_ASSIGN_OR_RETURN(ConvertedOperand r, ConvertedOperand::Make(rhs, type));
  return DispatchArrayType(type, [&](auto tag) -> absl::StatusOr<Literal> {
    constexpr PrimitiveType PT = decltype(tag)::kType;
    Literal out(result_shape);
    GenericDot<PT>(ix, rp, LoadAll<PT>(l.get()), LoadAll<PT>(r.get()), out);
    return out;
  });
}

absl::StatusOr<Literal> RaggedDot(const HloInstruction& inst, Operands operands, EvalContext&) {
  const DotAttrs& attrs = inst.attrs<DotAttrs>();
  const DotDimensions& dims = attrs.dims;
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const Literal& sizes = *operands[2];
  const Shape& result_shape = inst.shape();
  if (attrs.ragged.lhs_ragged.size() != 1 || sizes.shape().rank() != 1 ||
      !IsInteger(sizes.shape().element_type()) || !result_shape.IsArray()) {
    return Unimplemented("ragged-dot other than one lhs ragged dimension and 1-D group_sizes");
  }
  const int64_t ragged = attrs.ragged.lhs_ragged[0];
  if (ragged < 0 || ragged >= lhs.shape().rank()) {
    return InvalidArgument("ragged-dot: lhs_ragged_dims ", ragged, " is out of range");
  }
  auto has = [](const std::vector<int64_t>& v, int64_t d) {
    return std::find(v.begin(), v.end(), d) != v.end();
  };
  if (has(dims.lhs_batch, ragged)) return Unimplemented("ragged-dot with a ragged batch dimension");
  RaggedPlan rp;
  rp.contracting = has(dims.lhs_contracting, ragged);
  const int64_t g = sizes.element_count();
  XLITE_ASSIGN_OR_RETURN(std::vector<int64_t> group_of,
                         GroupOfCoordinate(sizes, lhs.shape().dimensions(ragged)));
  absl::Span<const int64_t> result_dims = result_shape.dimensions();
  DotIndexing ix;
  if (rp.contracting) {
    if (!attrs.ragged.rhs_group.empty() || result_dims.empty() || result_dims[0] != g) {
      return InvalidArgument(
          "ragged-dot: a contracting ragged dimension takes no rhs group "
          "dimension and gives [g, ...], got ",
          result_shape.ToString());
    }
    rp.groups = g;
    XLITE_ASSIGN_OR_RETURN(ix, PlanDot(lhs.shape(), rhs.shape(), dims, result_dims.subspan(1)));
    rp.k_group = GroupsAlong(lhs.shape(), dims.lhs_contracting, ragged, group_of);
  } else {
    const std::vector<int64_t>& group_dim = attrs.ragged.rhs_group;
    if (group_dim.size() != 1 || group_dim[0] < 0 || group_dim[0] >= rhs.shape().rank() ||
        rhs.shape().dimensions(group_dim[0]) != g) {
      return InvalidArgument("ragged-dot: needs one rhs group dimension of size ", g);
    }
    XLITE_ASSIGN_OR_RETURN(ix, PlanDot(lhs.shape(), rhs.shape(), dims, result_dims, group_dim));
    rp.group_stride = RowMajorStrides(rhs.shape().dimensions())[group_dim[0]];
    rp.row_group =
        GroupsAlong(lhs.shape(), FreeDims(lhs.shape(), {dims.lhs_batch, dims.lhs_contracting}),
                    ragged, group_of);
  }
  return RunGenericDot(ix, rp, lhs, rhs, result_shape);
}

absl::StatusOr<Literal> ScaledDot(const HloInstruction&, Operands, EvalContext&) {
  return Unimplemented("scaled-dot in the evaluator (its scale semantics are unpublished)");
}

}  // namespace

absl::StatusOr<Literal> EvaluateDot(const Literal& lhs, const Literal& rhs,
                                    const DotDimensions& dims, const Shape& result_shape,
                                    bool allow_fast) {
  if (!result_shape.IsArray()) return InvalidArgument("dot: the result must be an array");
  XLITE_ASSIGN_OR_RETURN(DotIndexing ix,
                         PlanDot(lhs.shape(), rhs.shape(), dims, result_shape.dimensions()));
  const PrimitiveType type = result_shape.element_type();
  if (allow_fast && ComputesInFloat(type)) {
    XLITE_ASSIGN_OR_RETURN(ConvertedOperand l, ConvertedOperand::MakeF32(lhs, type));
    XLITE_ASSIGN_OR_RETURN(ConvertedOperand r, ConvertedOperand::MakeF32(rhs, type));
    return FloatResult(result_shape, [&](float* out) { FastDot(ix, l.get(), r.get(), out); });
  }
  return RunGenericDot(ix, RaggedPlan{}, lhs, rhs, result_shape);
}

void RegisterDotOps(OpHandlerTable& table) {
  table.Register(HloOpcode::kDot, Dot);
  table.Register(HloOpcode::kRaggedDot, RaggedDot);
  table.Register(HloOpcode::kScaledDot, ScaledDot);
}

}  // namespace xlite::eval
