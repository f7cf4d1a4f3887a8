// cholesky and triangular-solve, batched over the leading dimensions. Both
// compute in complex<double> (real inputs stay real) and round once when
// storing.
//
// cholesky reads only the selected triangle and writes zeros to the other
// (XLA leaves it implementation-defined). When a pivot is not positive (the
// matrix is not positive definite, or holds NaN) that whole matrix of the
// batch becomes NaN, as JAX reports a failed factorisation.
//
// triangular-solve reads only the selected triangle of `a` (and not its
// diagonal with unit_diagonal); a zero pivot gives inf/NaN, as IEEE division.
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/eval/linalg_internal.h"

namespace xlite::eval {
namespace {

using Operands = absl::Span<const Literal* const>;
using Complex = std::complex<double>;

absl::Status CheckFloating(const char* op, const Shape& shape) {
  PrimitiveType t = shape.element_type();
  if (!shape.IsArray() || !(IsFloat(t) || IsComplex(t))) {
    return InvalidArgument(op, ": needs a floating-point or complex array, got ", shape.ToString());
  }
  return absl::OkStatus();
}

std::vector<Complex> LoadComplex(const Literal& l) {
  std::vector<Complex> out(l.element_count());
  for (int64_t i = 0; i < l.element_count(); ++i) out[i] = l.GetComplex(i);
  return out;
}

Literal StoreComplex(const Shape& shape, const std::vector<Complex>& values) {
  Literal out(shape);
  for (int64_t i = 0; i < out.element_count(); ++i) out.SetComplex(i, values[i]);
  return out;
}

// Factors one n x n matrix `a` (row-major) into the lower factor `l` with
// a = l l^H, reading only the lower triangle; false when a pivot is not
// positive.
bool CholeskyLower(const Complex* a, int64_t n, Complex* l) {
  for (int64_t j = 0; j < n; ++j) {
    double d = a[j * n + j].real();
    for (int64_t k = 0; k < j; ++k) d -= std::norm(l[j * n + k]);
    if (!(d > 0)) return false;
    const double pivot = std::sqrt(d);
    l[j * n + j] = pivot;
    for (int64_t i = j + 1; i < n; ++i) {
      Complex s = a[i * n + j];
      for (int64_t k = 0; k < j; ++k) s -= l[i * n + k] * std::conj(l[j * n + k]);
      l[i * n + j] = s / pivot;
    }
  }
  return true;
}

absl::StatusOr<Literal> Cholesky(const HloInstruction& inst, Operands operands, EvalContext&) {
  const Literal& a = *operands[0];
  const Shape& shape = a.shape();
  XLITE_RETURN_IF_ERROR(CheckFloating("cholesky", shape));
  const int64_t rank = shape.rank();
  if (rank < 2 || shape.dimensions(rank - 1) != shape.dimensions(rank - 2) ||
      !inst.shape().SameElementTypeAndDimensions(shape)) {
    return InvalidArgument(
        "cholesky: needs square matrices [..., n, n] and a result of the same "
        "shape, got ",
        shape.ToString(), " -> ", inst.shape().ToString());
  }
  const bool lower = inst.attrs<IntAttrs>().flag;
  const int64_t n = shape.dimensions(rank - 1);
  const int64_t batch = n == 0 ? 0 : a.element_count() / (n * n);
  std::vector<Complex> values = LoadComplex(a), out(values.size());
  std::vector<Complex> m(n * n), l(n * n);
  for (int64_t b = 0; b < batch; ++b) {
    const Complex* src = values.data() + b * n * n;
    Complex* dst = out.data() + b * n * n;
    // The upper case factors the lower triangle of a^H and returns l^H.
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j <= i; ++j)
        m[i * n + j] = lower ? src[i * n + j] : std::conj(src[j * n + i]);
    }
    std::fill(l.begin(), l.end(), Complex(0));
    if (!CholeskyLower(m.data(), n, l.data())) {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      std::fill(dst, dst + n * n, Complex(nan, IsComplex(shape.element_type()) ? nan : 0));
      continue;
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        if (lower) {
          dst[i * n + j] = l[i * n + j];
        } else {
          dst[j * n + i] = std::conj(l[i * n + j]);
        }
      }
    }
  }
  return StoreComplex(inst.shape(), out);
}

// Solves t x = b in place for x (b: t's size rows of `cols` values,
// row-major), t an n x n triangular matrix, lower or upper.
void SolveLeft(const std::vector<Complex>& t, int64_t n, bool lower, Complex* x, int64_t cols) {
  for (int64_t step = 0; step < n; ++step) {
    const int64_t i = lower ? step : n - 1 - step;
    Complex* row = x + i * cols;
    for (int64_t s = 0; s < step; ++s) {
      const int64_t k = lower ? s : n - 1 - s;
      const Complex f = t[i * n + k];
      const Complex* known = x + k * cols;
      for (int64_t c = 0; c < cols; ++c) row[c] -= f * known[c];
    }
    for (int64_t c = 0; c < cols; ++c) row[c] /= t[i * n + i];
  }
}

absl::StatusOr<Literal> TriangularSolve(const HloInstruction& inst, Operands operands,
                                        EvalContext&) {
  const TriangularSolveAttrs& attrs = inst.attrs<TriangularSolveAttrs>();
  const Literal& a = *operands[0];
  const Literal& b = *operands[1];
  XLITE_RETURN_IF_ERROR(CheckFloating("triangular-solve", a.shape()));
  XLITE_RETURN_IF_ERROR(CheckFloating("triangular-solve", b.shape()));
  const int64_t rank = a.shape().rank();
  bool ok = rank >= 2 && b.shape().rank() == rank &&
            a.shape().element_type() == b.shape().element_type() &&
            inst.shape().SameElementTypeAndDimensions(b.shape());
  for (int64_t d = 0; ok && d < rank - 2; ++d)
    ok = a.shape().dimensions(d) == b.shape().dimensions(d);
  const int64_t n = ok ? a.shape().dimensions(rank - 1) : 0;
  const int64_t rows = ok ? b.shape().dimensions(rank - 2) : 0;
  const int64_t cols = ok ? b.shape().dimensions(rank - 1) : 0;
  if (!ok || a.shape().dimensions(rank - 2) != n || (attrs.left_side ? rows : cols) != n) {
    return InvalidArgument("triangular-solve: a ", a.shape().ToString(), " and b ",
                           b.shape().ToString(), " do not fit (a square [..., n, n], b [..., ",
                           attrs.left_side ? "n, k" : "k, n", "], same batch and type)");
  }
  const int64_t batch = rows * cols == 0 ? 0 : b.element_count() / (rows * cols);
  std::vector<Complex> av = LoadComplex(a), bv = LoadComplex(b);
  const bool transposed = attrs.transpose_a != TransposeA::kNoTranspose;
  const bool conjugate = attrs.transpose_a == TransposeA::kAdjoint;
  // x op(a) = b is op(a)^T x^T = b^T: solve on transposes, so the matrix
  // used is op(a) or op(a)^T, lower when its triangle lies below.
  const bool flip = transposed != !attrs.left_side;
  const bool eff_lower = attrs.lower != flip;
  std::vector<Complex> t(n * n), x(rows * cols);
  for (int64_t bb = 0; bb < batch; ++bb) {
    const Complex* src = av.data() + bb * n * n;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const bool in_triangle = attrs.lower ? i > j : i < j;
        Complex v = i == j ? (attrs.unit_diagonal ? Complex(1) : src[i * n + i])
                           : (in_triangle ? src[i * n + j] : Complex(0));
        (flip ? t[j * n + i] : t[i * n + j]) = conjugate ? std::conj(v) : v;
      }
    }
    Complex* bm = bv.data() + bb * rows * cols;
    if (attrs.left_side) {
      SolveLeft(t, n, eff_lower, bm, cols);
      continue;
    }
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) x[j * rows + i] = bm[i * cols + j];
    }
    SolveLeft(t, n, eff_lower, x.data(), rows);
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) bm[i * cols + j] = x[j * rows + i];
    }
  }
  return StoreComplex(inst.shape(), bv);
}

}  // namespace

void RegisterDecompositionOps(OpHandlerTable& table) {
  table.Register(HloOpcode::kCholesky, Cholesky);
  table.Register(HloOpcode::kTriangularSolve, TriangularSolve);
}

}  // namespace xlite::eval
