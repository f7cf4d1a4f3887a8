// dot (general batch and contracting dimensions), ragged-dot and scaled-dot.
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

// Dimensions of `shape` in none of `used`, ascending.
std::vector<int64_t> FreeDims(const Shape& shape, absl::Span<const int64_t> a,
                              absl::Span<const int64_t> b) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() &&
        std::find(b.begin(), b.end(), d) == b.end()) {
      free.push_back(d);
    }
  }
  return free;
}

absl::Status CheckDims(const char* what, const Shape& shape,
                       absl::Span<const int64_t> batch, absl::Span<const int64_t> contracting) {
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

absl::StatusOr<DotIndexing> PlanDot(const Shape& lhs, const Shape& rhs, const DotDimensions& dims,
                                    const Shape& result) {
  if (!lhs.IsArray() || !rhs.IsArray() || !result.IsArray()) {
    return InvalidArgument("dot: operands and result must be arrays");
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
      return InvalidArgument("dot: contracting dimension ", i, " differs: ", lhs.ToString(),
                             " vs ", rhs.ToString());
    }
    ix.k *= size;
  }
  std::vector<int64_t> lhs_free = FreeDims(lhs, dims.lhs_batch, dims.lhs_contracting);
  std::vector<int64_t> rhs_free = FreeDims(rhs, dims.rhs_batch, dims.rhs_contracting);
  for (int64_t d : lhs_free) {
    expected.push_back(lhs.dimensions(d));
    ix.m *= lhs.dimensions(d);
  }
  for (int64_t d : rhs_free) {
    expected.push_back(rhs.dimensions(d));
    ix.n *= rhs.dimensions(d);
  }
  if (!std::equal(expected.begin(), expected.end(), result.dimensions().begin(),
                  result.dimensions().end())) {
    return InvalidArgument("dot: result shape ", result.ToString(), " should have dimensions [",
                           absl::StrJoin(expected, ","), "]");
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

// One dot product per result element, in the result's compute type.
template <PrimitiveType PT>
void GenericDot(const DotIndexing& ix, const std::vector<NativeT<PT>>& a,
                const std::vector<NativeT<PT>>& b, Literal& out) {
  using T = NativeT<PT>;
  uint8_t* data = out.mutable_raw_data().data();
  for (int64_t bb = 0; bb < ix.batch; ++bb) {
    for (int64_t i = 0; i < ix.m; ++i) {
      const int64_t row = ix.lhs_rows[bb * ix.m + i];
      for (int64_t j = 0; j < ix.n; ++j) {
        const int64_t col = ix.rhs_cols[bb * ix.n + j];
        T acc{};
        for (int64_t kk = 0; kk < ix.k; ++kk) {
          acc = MulAdd<T>(acc, a[row + ix.lhs_k[kk]], b[col + ix.rhs_k[kk]]);
        }
        StoreElement<PT>(data, (bb * ix.m + i) * ix.n + j, acc);
      }
    }
  }
}

// Gathers each batch of the f32 operands into contiguous [m,k] and [k,n]
// buffers and runs the blocked kernel; returns [batch, m, n] floats.
std::vector<float> FastDot(const DotIndexing& ix, const Literal& lhs, const Literal& rhs) {
  const uint8_t* a = lhs.raw_data().data();
  const uint8_t* b = rhs.raw_data().data();
  std::vector<float> lhs_buf(ix.m * ix.k), rhs_buf(ix.k * ix.n), out(ix.batch * ix.m * ix.n);
  for (int64_t bb = 0; bb < ix.batch; ++bb) {
    for (int64_t i = 0; i < ix.m; ++i) {
      const int64_t row = ix.lhs_rows[bb * ix.m + i];
      for (int64_t kk = 0; kk < ix.k; ++kk) lhs_buf[i * ix.k + kk] = F32At(a, row + ix.lhs_k[kk]);
    }
    for (int64_t kk = 0; kk < ix.k; ++kk) {
      const int64_t* cols = ix.rhs_cols.data() + bb * ix.n;
      for (int64_t j = 0; j < ix.n; ++j) rhs_buf[kk * ix.n + j] = F32At(b, cols[j] + ix.rhs_k[kk]);
    }
    MatMulF32(ix.m, ix.k, ix.n, lhs_buf.data(), ix.k, rhs_buf.data(), ix.n,
              out.data() + bb * ix.m * ix.n, ix.n);
  }
  return out;
}

absl::StatusOr<Literal> Dot(const HloInstruction& inst, Operands operands, EvalContext&) {
  return EvaluateDot(*operands[0], *operands[1], inst.attrs<DotAttrs>().dims, inst.shape());
}

absl::StatusOr<Literal> RaggedDot(const HloInstruction&, Operands, EvalContext&) {
  return Unimplemented("ragged-dot in the evaluator");
}

absl::StatusOr<Literal> ScaledDot(const HloInstruction&, Operands, EvalContext&) {
  return Unimplemented("scaled-dot in the evaluator (its scale semantics are unpublished)");
}

}  // namespace

absl::StatusOr<Literal> EvaluateDot(const Literal& lhs, const Literal& rhs,
                                    const DotDimensions& dims, const Shape& result_shape,
                                    bool allow_fast) {
  XLITE_ASSIGN_OR_RETURN(DotIndexing ix, PlanDot(lhs.shape(), rhs.shape(), dims, result_shape));
  const PrimitiveType type = result_shape.element_type();
  if (allow_fast && ComputesInFloat(type)) {
    XLITE_ASSIGN_OR_RETURN(ConvertedOperand l, ConvertedOperand::MakeF32(lhs, type));
    XLITE_ASSIGN_OR_RETURN(ConvertedOperand r, ConvertedOperand::MakeF32(rhs, type));
    return FloatsToLiteral(result_shape, FastDot(ix, l.get(), r.get()));
  }
  XLITE_ASSIGN_OR_RETURN(ConvertedOperand l, ConvertedOperand::Make(lhs, type));
  XLITE_ASSIGN_OR_RETURN(ConvertedOperand r, ConvertedOperand::Make(rhs, type));
  return DispatchArrayType(type, [&](auto tag) -> absl::StatusOr<Literal> {
    constexpr PrimitiveType PT = decltype(tag)::kType;
    Literal out(result_shape);
    GenericDot<PT>(ix, LoadAll<PT>(l.get()), LoadAll<PT>(r.get()), out);
    return out;
  });
}

void RegisterDotOps(OpHandlerTable& table) {
  table.Register(HloOpcode::kDot, Dot);
  table.Register(HloOpcode::kRaggedDot, RaggedDot);
  table.Register(HloOpcode::kScaledDot, ScaledDot);
}

}  // namespace xlite::eval
