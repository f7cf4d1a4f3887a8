// Linear algebra: dot, ragged-dot, scaled-dot, fft, triangular-solve,
// cholesky and the batch-norm family.
#include <algorithm>

#include "xlite/inference/shape_inference.h"
#include "xlite/inference/shape_inference_internal.h"

namespace xlite::inference {
namespace {

using O = HloOpcode;

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The element type of a dot-like result: the declared one (XLA's "preferred
// element type"). Operand types may differ (real dumps mix e.g. bf16 with s4
// weights), so only complex-with-real is refused.
absl::StatusOr<PrimitiveType> DotResultType(const HloInstruction& inst, const Shape& lhs,
                                            const Shape& rhs) {
  PrimitiveType a = lhs.element_type(), b = rhs.element_type();
  if (IsComplex(a) != IsComplex(b)) {
    return InvalidArgument(OpcodeName(inst.opcode()), " cannot mix complex and real operands, got ",
                           Str(lhs), " and ", Str(rhs));
  }
  return inst.shape().IsArray() ? inst.shape().element_type() : a;
}

// `sparsity` (a sparse dot's): a compressed operand stores n of every m
// elements of its sparse contracting dimension, so that dimension's size times
// m/n must match the other operand's.
absl::Status CheckDotOperandDims(const DotDimensions& d, const Shape& lhs, const Shape& rhs,
                                 absl::Span<const SparsityDescriptor> sparsity = {}) {
  XLITE_RETURN_IF_ERROR(ExpectArray(lhs, "lhs"));
  XLITE_RETURN_IF_ERROR(ExpectArray(rhs, "rhs"));
  std::vector<int64_t> lhs_all = d.lhs_batch, rhs_all = d.rhs_batch;
  lhs_all.insert(lhs_all.end(), d.lhs_contracting.begin(), d.lhs_contracting.end());
  rhs_all.insert(rhs_all.end(), d.rhs_contracting.begin(), d.rhs_contracting.end());
  XLITE_RETURN_IF_ERROR(
      CheckDimensionList(lhs_all, lhs.rank(), "lhs batch and contracting dims", false));
  XLITE_RETURN_IF_ERROR(
      CheckDimensionList(rhs_all, rhs.rank(), "rhs batch and contracting dims", false));
  if (d.lhs_batch.size() != d.rhs_batch.size() ||
      d.lhs_contracting.size() != d.rhs_contracting.size()) {
    return InvalidArgument("lhs and rhs must have as many batch and contracting dims, got ",
                           d.lhs_batch.size(), "/", d.rhs_batch.size(), " batch and ",
                           d.lhs_contracting.size(), "/", d.rhs_contracting.size(), " contracting");
  }
  for (size_t i = 0; i < d.lhs_batch.size(); ++i) {
    if (lhs.dimensions(d.lhs_batch[i]) != rhs.dimensions(d.rhs_batch[i])) {
      return InvalidArgument("batch dimension sizes differ: ", Str(lhs), " and ", Str(rhs));
    }
  }
  for (size_t i = 0; i < d.lhs_contracting.size(); ++i) {
    int64_t lhs_size = lhs.dimensions(d.lhs_contracting[i]);
    int64_t rhs_size = rhs.dimensions(d.rhs_contracting[i]);
    bool sparse = false, overflow = false;
    for (const SparsityDescriptor& s : sparsity) {
      const bool lhs_sparse = s.operand == 0 && s.dimension == d.lhs_contracting[i];
      const bool rhs_sparse = s.operand == 1 && s.dimension == d.rhs_contracting[i];
      if (!lhs_sparse && !rhs_sparse) continue;
      sparse = true;
      overflow |= __builtin_mul_overflow(lhs_size, lhs_sparse ? s.m : s.n, &lhs_size);
      overflow |= __builtin_mul_overflow(rhs_size, lhs_sparse ? s.n : s.m, &rhs_size);
    }
    if (overflow) return InvalidArgument("sparse contracting dimension sizes overflow int64");
    if (lhs_size != rhs_size) {
      return InvalidArgument(sparse ? "sparse contracting dimension sizes do not match the "
                                      "n:m ratio of sparsity=: "
                                    : "contracting dimension sizes differ: ",
                             Str(lhs), " and ", Str(rhs));
    }
  }
  return absl::OkStatus();
}

// The u16 metadata of a sparse operand, as XLA lays it out: the operand's
// shape with its sparse dimension holding ceil(log2 m) bits for each of the n
// kept values of a group, as many whole groups per 16-bit element as fit.
Shape SparseDotMetadataShape(const Shape& operand, const SparsityDescriptor& s) {
  int64_t bits_per_value = 0;
  while ((int64_t{1} << bits_per_value) < s.m && bits_per_value < 62) ++bits_per_value;
  const int64_t bits_per_group = s.n > 16 ? 17 : s.n * bits_per_value;
  const int64_t groups_per_element =
      bits_per_group >= 16 ? 1 : (16 + bits_per_group - 1) / bits_per_group;
  const int64_t size = operand.dimensions(s.dimension);
  const int64_t groups = size / s.n + (size % s.n != 0 ? 1 : 0);
  DimVector dims(operand.dimensions().begin(), operand.dimensions().end());
  dims[s.dimension] = groups / groups_per_element + (groups % groups_per_element != 0 ? 1 : 0);
  return Shape(PrimitiveType::U16, dims);
}

// A sparse dot's descriptors: each on a contracting dimension of its own
// operand (lhs or rhs, at most one each), with 1 <= n < m.
absl::Status CheckSparsityDescriptors(const DotDimensions& d,
                                      absl::Span<const SparsityDescriptor> sparsity) {
  for (size_t i = 0; i < sparsity.size(); ++i) {
    const SparsityDescriptor& s = sparsity[i];
    if (s.operand != 0 && s.operand != 1) {
      return InvalidArgument("a sparsity descriptor names operand ", s.operand,
                             " (only lhs and rhs can be sparse)");
    }
    for (size_t j = 0; j < i; ++j) {
      if (sparsity[j].operand == s.operand) {
        return InvalidArgument("two sparsity descriptors for operand ", s.operand);
      }
    }
    if (s.n < 1 || s.m <= s.n) {
      return InvalidArgument("structured sparsity ", s.n, ":", s.m, " needs 1 <= n < m");
    }
    const std::vector<int64_t>& contracting =
        s.operand == 0 ? d.lhs_contracting : d.rhs_contracting;
    if (!Contains(contracting, s.dimension)) {
      return InvalidArgument("the sparse dimension ", s.dimension, " of operand ", s.operand,
                             " must be one of its contracting dimensions ", ListStr(contracting));
    }
  }
  return absl::OkStatus();
}

// The metadata operands of a sparse dot (after lhs and rhs, one per
// descriptor, in the descriptors' order).
absl::Status CheckSparseMetadata(const HloInstruction& inst,
                                 absl::Span<const SparsityDescriptor> sparsity) {
  for (size_t i = 0; i < sparsity.size(); ++i) {
    const int64_t meta_index = 2 + static_cast<int64_t>(i);
    const Shape& meta = OperandShape(inst, meta_index);
    const Shape expected =
        SparseDotMetadataShape(OperandShape(inst, sparsity[i].operand), sparsity[i]);
    if (!ShapesCompatible(meta, expected)) {
      return InvalidArgument("sparse dot metadata operand ", meta_index, " must be ", Str(expected),
                             ", got ", Str(meta));
    }
  }
  return absl::OkStatus();
}

// [batch..., lhs free..., rhs free...]; rhs dims in `rhs_skip` are dropped.
DimVector DotDims(const DotDimensions& d, const Shape& lhs, const Shape& rhs,
                  absl::Span<const int64_t> rhs_skip) {
  DimVector dims;
  for (int64_t b : d.lhs_batch) dims.push_back(lhs.dimensions(b));
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    if (!Contains(d.lhs_batch, i) && !Contains(d.lhs_contracting, i)) {
      dims.push_back(lhs.dimensions(i));
    }
  }
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (!Contains(d.rhs_batch, i) && !Contains(d.rhs_contracting, i) && !Contains(rhs_skip, i)) {
      dims.push_back(rhs.dimensions(i));
    }
  }
  return dims;
}

absl::StatusOr<Shape> InferDot(const HloInstruction& inst) {
  const Shape& lhs = OperandShape(inst, 0);
  const Shape& rhs = OperandShape(inst, 1);
  const DotAttrs& a = inst.attrs<DotAttrs>();
  XLITE_RETURN_IF_ERROR(CheckSparsityDescriptors(a.dims, a.sparsity));
  XLITE_RETURN_IF_ERROR(CheckDotOperandDims(a.dims, lhs, rhs, a.sparsity));
  XLITE_RETURN_IF_ERROR(CheckSparseMetadata(inst, a.sparsity));
  XLITE_ASSIGN_OR_RETURN(PrimitiveType t, DotResultType(inst, lhs, rhs));
  return Shape(t, DotDims(a.dims, lhs, rhs, {}));
}

// ragged-dot, the three modes by where lhs's ragged dimension lies:
// non-contracting ([m,k] x [g,k,n] -> [m,n], rhs group dim dropped),
// contracting ([m,k] x [k,n] -> [g,m,n]) and batch (an ordinary dot).
absl::StatusOr<Shape> InferRaggedDot(const HloInstruction& inst) {
  const Shape& lhs = OperandShape(inst, 0);
  const Shape& rhs = OperandShape(inst, 1);
  const Shape& groups = OperandShape(inst, 2);
  const auto& a = inst.attrs<DotAttrs>();
  const DotDimensions& d = a.dims;
  XLITE_RETURN_IF_ERROR(CheckDotOperandDims(d, lhs, rhs));
  if (!groups.IsArray() || !IsInteger(groups.element_type()) || groups.rank() < 1) {
    return InvalidArgument("group_sizes must be an integer array, got ", Str(groups));
  }
  if (a.ragged.lhs_ragged.size() != 1) {
    return InvalidArgument("ragged-dot needs exactly one lhs_ragged_dims entry");
  }
  int64_t ragged = a.ragged.lhs_ragged[0];
  if (ragged < 0 || ragged >= lhs.rank()) {
    return InvalidArgument("lhs_ragged_dims ", ragged, " is out of range for ", Str(lhs));
  }
  int64_t g = groups.dimensions(groups.rank() - 1);
  XLITE_ASSIGN_OR_RETURN(PrimitiveType t, DotResultType(inst, lhs, rhs));
  const std::vector<int64_t>& group_dims = a.ragged.rhs_group;
  XLITE_RETURN_IF_ERROR(CheckDimensionList(group_dims, rhs.rank(), "rhs_group_dims", true));
  if (Contains(d.lhs_contracting, ragged) || Contains(d.lhs_batch, ragged)) {
    DimVector dims = DotDims(d, lhs, rhs, {});
    if (Contains(d.lhs_contracting, ragged)) dims.insert(dims.begin(), g);
    return Shape(t, dims);
  }
  if (group_dims.size() != 1 || rhs.dimensions(group_dims[0]) != g) {
    return InvalidArgument(
        "ragged-dot with a non-contracting ragged dimension needs one rhs "
        "group dimension of size ",
        g, ", got ", Str(rhs));
  }
  return Shape(t, DotDims(d, lhs, rhs, group_dims));
}

// scaled-dot(lhs, rhs, lhs_scale, rhs_scale) (block-scaled matmul; scale
// semantics unpublished): the result is dot(lhs, rhs); each scale must be a
// scalar or have its operand's rank with dimensions dividing the operand's.
absl::StatusOr<Shape> InferScaledDot(const HloInstruction& inst) {
  const Shape& lhs = OperandShape(inst, 0);
  const Shape& rhs = OperandShape(inst, 1);
  const DotDimensions& d = inst.attrs<DotAttrs>().dims;
  XLITE_RETURN_IF_ERROR(CheckDotOperandDims(d, lhs, rhs));
  for (int64_t k : {2, 3}) {
    const Shape& scale = OperandShape(inst, k);
    const Shape& data = OperandShape(inst, k - 2);
    XLITE_RETURN_IF_ERROR(ExpectArray(scale, "scale"));
    bool ok = scale.rank() == data.rank() || scale.rank() == 0;
    for (int64_t i = 0; ok && i < scale.rank(); ++i) {
      ok = scale.dimensions(i) > 0 && data.dimensions(i) % scale.dimensions(i) == 0;
    }
    if (!ok) {
      return InvalidArgument("scale ", Str(scale), " must block operand ", Str(data));
    }
  }
  return Shape(inst.shape().IsArray() ? inst.shape().element_type() : lhs.element_type(),
               DotDims(d, lhs, rhs, {}));
}

absl::StatusOr<Shape> InferFft(const HloInstruction& inst) {
  const Shape& x = OperandShape(inst, 0);
  const auto& a = inst.attrs<FftAttrs>();
  XLITE_RETURN_IF_ERROR(ExpectArray(x, "fft operand"));
  int64_t n = static_cast<int64_t>(a.length.size());
  if (n < 1 || n > 3 || n > x.rank()) {
    return InvalidArgument("fft_length {", ListStr(a.length),
                           "} must have 1 to 3 entries, at "
                           "most the rank of ",
                           Str(x));
  }
  PrimitiveType t = x.element_type();
  DimVector dims(x.dimensions().begin(), x.dimensions().end());
  int64_t last = x.rank() - 1;
  auto check_inner = [&](bool last_is_half) -> absl::Status {
    for (int64_t i = 0; i < n; ++i) {
      int64_t dim = x.rank() - n + i;
      int64_t want = a.length[i];
      if (dim == last && last_is_half) want = want / 2 + 1;
      if (x.dimensions(dim) != want) {
        return InvalidArgument("fft_length {", ListStr(a.length), "} does not match ", Str(x));
      }
    }
    return absl::OkStatus();
  };
  switch (a.type) {
    case FftType::kFft:
    case FftType::kIfft:
      if (!IsComplex(t)) return InvalidArgument("FFT/IFFT needs a complex operand, got ", Str(x));
      XLITE_RETURN_IF_ERROR(check_inner(false));
      return Shape(t, dims);
    case FftType::kRfft:
      if (t != PrimitiveType::F32 && t != PrimitiveType::F64) {
        return InvalidArgument("RFFT needs an f32 or f64 operand, got ", Str(x));
      }
      XLITE_RETURN_IF_ERROR(check_inner(false));
      dims[last] = a.length.back() / 2 + 1;
      return Shape(t == PrimitiveType::F32 ? PrimitiveType::C64 : PrimitiveType::C128, dims);
    case FftType::kIrfft:
      if (!IsComplex(t)) return InvalidArgument("IRFFT needs a complex operand, got ", Str(x));
      XLITE_RETURN_IF_ERROR(check_inner(true));
      dims[last] = a.length.back();
      return Shape(ComplexComponentType(t), dims);
  }
  return InvalidArgument("unknown fft type");
}

absl::Status ExpectSquareMatrices(const Shape& a, absl::string_view what) {
  XLITE_RETURN_IF_ERROR(ExpectArray(a, what));
  if (a.rank() < 2 || a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
    return InvalidArgument(what, " must be square matrices [..., n, n], got ", Str(a));
  }
  if (!IsFloat(a.element_type()) && !IsComplex(a.element_type())) {
    return InvalidArgument(what, " must be float or complex, got ", Str(a));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferTriangularSolve(const HloInstruction& inst) {
  const Shape& a = OperandShape(inst, 0);
  const Shape& b = OperandShape(inst, 1);
  XLITE_RETURN_IF_ERROR(ExpectSquareMatrices(a, "triangular-solve a"));
  XLITE_RETURN_IF_ERROR(ExpectArray(b, "triangular-solve b"));
  if (b.rank() != a.rank() || b.element_type() != a.element_type()) {
    return InvalidArgument("b ", Str(b), " must have the rank and type of a ", Str(a));
  }
  for (int64_t i = 0; i + 2 < a.rank(); ++i) {
    if (a.dimensions(i) != b.dimensions(i)) {
      return InvalidArgument("batch dimensions of ", Str(a), " and ", Str(b), " differ");
    }
  }
  bool left = inst.attrs<TriangularSolveAttrs>().left_side;
  int64_t n = a.dimensions(a.rank() - 1);
  int64_t bn = b.dimensions(b.rank() - (left ? 2 : 1));
  if (n != bn) {
    return InvalidArgument("a ", Str(a), " and b ", Str(b), " disagree on the solved dimension");
  }
  return b;
}

absl::StatusOr<Shape> InferBatchNorm(const HloInstruction& inst) {
  const Shape& x = OperandShape(inst, 0);
  XLITE_RETURN_IF_ERROR(ExpectArray(x, "batch-norm operand"));
  if (!IsFloat(x.element_type())) {
    return InvalidArgument("batch-norm operand must be float, got ", Str(x));
  }
  int64_t f = inst.attrs<BatchNormAttrs>().feature_index;
  if (f < 0 || f >= x.rank()) {
    return InvalidArgument("feature_index ", f, " is out of range for ", Str(x));
  }
  Shape vec(x.element_type(), {x.dimensions(f)});
  bool grad = inst.opcode() == O::kBatchNormGrad;
  for (int64_t k = 1; k < inst.operand_count(); ++k) {
    const Shape& s = OperandShape(inst, k);
    const Shape& want = grad && k == 4 ? x : vec;
    if (!Compatible(s, want)) {
      return InvalidArgument("batch-norm operand ", k, " must be ", Str(want), ", got ", Str(s));
    }
  }
  if (inst.opcode() == O::kBatchNormInference) return x;
  return Shape::Tuple({x, vec, vec});
}

}  // namespace

absl::StatusOr<Shape> InferLinalg(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case O::kDot:
      return InferDot(inst);
    case O::kRaggedDot:
      return InferRaggedDot(inst);
    case O::kScaledDot:
      return InferScaledDot(inst);
    case O::kFft:
      return InferFft(inst);
    case O::kTriangularSolve:
      return InferTriangularSolve(inst);
    case O::kCholesky:
      XLITE_RETURN_IF_ERROR(ExpectSquareMatrices(OperandShape(inst, 0), "cholesky operand"));
      return OperandShape(inst, 0);
    default:
      return InferBatchNorm(inst);
  }
}

}  // namespace xlite::inference
