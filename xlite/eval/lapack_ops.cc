// The LAPACK custom-calls of JAX's CPU lowering (xlite/ir/lapack/lapack_targets.h)
// through LAPACKE and CBLAS, with jaxlib's typed-FFI conventions: results
// that alias the input start as its copy, `info` is LAPACK's per matrix, and
// geev reports -4 for a matrix with non-finite entries. Literals are logical
// row-major, so every call passes LAPACK_ROW_MAJOR: LAPACKE transposes to
// and from the column-major layout JAX's operand_layout names. Built only
// when CMake finds LAPACKE (else lapack_unavailable.cc registers the names).
#include <complex>
// LAPACK's complex types are the evaluator's (lapack.h's way to say so).
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>
// After lapacke.h, whose complex types (std::complex) OpenBLAS then keeps.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/eval/custom_call_registry.h"
#include "xlite/ir/lapack/lapack_targets.h"

namespace xlite::eval {
namespace {

static_assert(sizeof(lapack_int) == sizeof(int32_t), "LAPACK integers must be 32-bit");

using Operands = absl::Span<const Literal* const>;
template <typename T>
using RealT = decltype(std::real(T{}));
template <typename T>
constexpr bool kIsComplex = !std::is_same_v<T, RealT<T>>;

// LAPACKE_<s|d|c|z><name>(...) for T: `real_name` for f32/f64, `complex_name`
// for c64/c128 (orgqr/ungqr, syevd/heevd, sytrd/hetrd).
#define XLITE_LAPACKE(T, real_name, complex_name, ...)             \
  [&]() -> lapack_int {                                            \
    if constexpr (std::is_same_v<T, float>) {                      \
      return LAPACKE_s##real_name(__VA_ARGS__);                    \
    } else if constexpr (std::is_same_v<T, double>) {              \
      return LAPACKE_d##real_name(__VA_ARGS__);                    \
    } else if constexpr (std::is_same_v<T, std::complex<float>>) { \
      return LAPACKE_c##complex_name(__VA_ARGS__);                 \
    } else {                                                       \
      return LAPACKE_z##complex_name(__VA_ARGS__);                 \
    }                                                              \
  }()

// One evaluation: the operands, the results being filled and the matrix
// sizes; results are addressed matrix by matrix (batch index `b`).
struct Call {
  const LapackTarget& target;
  const FfiAttributes& attrs;
  Operands operands;
  std::vector<Literal> results;
  int64_t batch = 1, m = 0, n = 0;

  template <typename U>
  U* Result(size_t i, int64_t b) {
    Literal& l = results[i];
    return reinterpret_cast<U*>(l.mutable_raw_data().data()) + b * (l.element_count() / batch);
  }
  template <typename U>
  const U* Operand(size_t i, int64_t b) const {
    const Literal& l = *operands[i];
    return reinterpret_cast<const U*>(l.raw_data().data()) + b * (l.element_count() / batch);
  }
  int64_t Minor(size_t result, int64_t from_end) const {
    const Shape& s = results[result].shape();
    return s.dimensions(s.rank() - from_end);
  }
  void SetInfo(size_t i, int64_t b, lapack_int info) { results[i].Set<int32_t>(b, info); }
  // Validated by LapackResultShapes.
  char Char(const char* name) const { return static_cast<char>(attrs.at(name)); }
  int32_t Int(const char* name) const { return static_cast<int32_t>(attrs.at(name)); }
};

// A leading dimension LAPACKE accepts for `cols` columns.
lapack_int Ld(int64_t cols) { return static_cast<lapack_int>(std::max<int64_t>(cols, 1)); }

template <typename T>
void Trsm(Call& c) {
  const int64_t m = c.Minor(0, 2), n = c.Minor(0, 1);
  const CBLAS_SIDE side = c.Char("side") == 'L' ? CblasLeft : CblasRight;
  const CBLAS_UPLO uplo = c.Char("uplo") == 'L' ? CblasLower : CblasUpper;
  const char t = c.Char("trans_x");
  const CBLAS_TRANSPOSE trans = t == 'N' ? CblasNoTrans : t == 'T' ? CblasTrans : CblasConjTrans;
  const CBLAS_DIAG diag = c.Char("diag") == 'U' ? CblasUnit : CblasNonUnit;
  const int lda = static_cast<int>(std::max<int64_t>(c.n, 1)), ldb = static_cast<int>(Ld(n));
  const T one(1);
  for (int64_t b = 0; b < c.batch; ++b) {
    const T* a = c.Operand<T>(0, b);
    T* x = c.Result<T>(0, b);
    if constexpr (std::is_same_v<T, float>) {
      cblas_strsm(CblasRowMajor, side, uplo, trans, diag, m, n, one, a, lda, x, ldb);
    } else if constexpr (std::is_same_v<T, double>) {
      cblas_dtrsm(CblasRowMajor, side, uplo, trans, diag, m, n, one, a, lda, x, ldb);
    } else if constexpr (std::is_same_v<T, std::complex<float>>) {
      cblas_ctrsm(CblasRowMajor, side, uplo, trans, diag, m, n, &one, a, lda, x, ldb);
    } else {
      cblas_ztrsm(CblasRowMajor, side, uplo, trans, diag, m, n, &one, a, lda, x, ldb);
    }
  }
}

// geev's real eigenvectors as complex ones: a complex pair (wi[j] > 0) is
// stored as the real and imaginary parts in columns j and j+1.
template <typename R>
void UnpackEigenvectors(int64_t n, const R* wi, const R* v, std::complex<R>* out) {
  for (int64_t j = 0; j < n; ++j) {
    const bool pair = wi[j] > 0 && j + 1 < n;
    for (int64_t i = 0; i < n; ++i) {
      const R re = v[i * n + j], im = pair ? v[i * n + j + 1] : R(0);
      out[i * n + j] = {re, im};
      if (pair) out[i * n + j + 1] = {re, -im};
    }
    if (pair) ++j;
  }
}

template <typename T>
bool AllFinite(const T* data, int64_t size) {
  return std::all_of(data, data + size, [](const T& v) {
    return std::isfinite(std::real(v)) && std::isfinite(std::imag(v));
  });
}

template <typename T>
void Geev(Call& c) {
  using R = RealT<T>;
  const lapack_int n = static_cast<lapack_int>(c.n), ld = Ld(c.n);
  const char jobvl = c.Char("compute_left"), jobvr = c.Char("compute_right");
  const size_t info = c.results.size() - 1;
  std::vector<T> a(c.n * c.n);
  std::vector<R> vl, vr;
  if constexpr (!kIsComplex<T>) {
    vl.resize(a.size());
    vr.resize(a.size());
  }
  for (int64_t b = 0; b < c.batch; ++b) {
    std::copy_n(c.Operand<T>(0, b), a.size(), a.data());
    if (!AllFinite(a.data(), static_cast<int64_t>(a.size()))) {
      c.SetInfo(info, b, -4);
      continue;
    }
    lapack_int status;
    if constexpr (kIsComplex<T>) {
      status = XLITE_LAPACKE(T, geev, geev, LAPACK_ROW_MAJOR, jobvl, jobvr, n, a.data(), ld,
                             c.Result<T>(0, b), c.Result<T>(1, b), ld, c.Result<T>(2, b), ld);
    } else {
      R* wi = c.Result<R>(1, b);
      status = XLITE_LAPACKE(T, geev, geev, LAPACK_ROW_MAJOR, jobvl, jobvr, n, a.data(), ld,
                             c.Result<R>(0, b), wi, vl.data(), ld, vr.data(), ld);
      if (status == 0 && jobvl == 'V')
        UnpackEigenvectors(c.n, wi, vl.data(), c.Result<std::complex<R>>(2, b));
      if (status == 0 && jobvr == 'V')
        UnpackEigenvectors(c.n, wi, vr.data(), c.Result<std::complex<R>>(3, b));
    }
    c.SetInfo(info, b, status);
  }
}

template <typename T>
void Gees(Call& c) {
  const lapack_int n = static_cast<lapack_int>(c.n), ld = Ld(c.n);
  const char jobvs = c.Char("mode");
  const size_t sdim_index = c.results.size() - 2;
  for (int64_t b = 0; b < c.batch; ++b) {
    lapack_int sdim = 0, status;
    if constexpr (kIsComplex<T>) {
      status =
          XLITE_LAPACKE(T, gees, gees, LAPACK_ROW_MAJOR, jobvs, 'N', nullptr, n, c.Result<T>(0, b),
                        ld, &sdim, c.Result<T>(2, b), c.Result<T>(1, b), ld);
    } else {
      status =
          XLITE_LAPACKE(T, gees, gees, LAPACK_ROW_MAJOR, jobvs, 'N', nullptr, n, c.Result<T>(0, b),
                        ld, &sdim, c.Result<T>(2, b), c.Result<T>(3, b), c.Result<T>(1, b), ld);
    }
    c.SetInfo(sdim_index, b, sdim);
    c.SetInfo(sdim_index + 1, b, status);
  }
}

template <typename T>
void Svd(Call& c) {
  using R = RealT<T>;
  const lapack_int m = static_cast<lapack_int>(c.m), n = static_cast<lapack_int>(c.n);
  const char mode = c.Char("mode");
  const lapack_int ldu = Ld(c.Minor(2, 1)), ldvt = Ld(c.Minor(3, 1));
  std::vector<R> superb(std::max<int64_t>(std::min(c.m, c.n), 2));
  for (int64_t b = 0; b < c.batch; ++b) {
    T* a = c.Result<T>(0, b);
    R* s = c.Result<R>(1, b);
    T* u = c.Result<T>(2, b);
    T* vt = c.Result<T>(3, b);
    lapack_int status = c.target.routine == LapackRoutine::kGesdd
                            ? XLITE_LAPACKE(T, gesdd, gesdd, LAPACK_ROW_MAJOR, mode, m, n, a, Ld(n),
                                            s, u, ldu, vt, ldvt)
                            : XLITE_LAPACKE(T, gesvd, gesvd, LAPACK_ROW_MAJOR, mode, mode, m, n, a,
                                            Ld(n), s, u, ldu, vt, ldvt, superb.data());
    c.SetInfo(4, b, status);
  }
}

template <typename T>
void Run(Call& c) {
  using R = RealT<T>;
  const lapack_int m = static_cast<lapack_int>(c.m), n = static_cast<lapack_int>(c.n);
  const lapack_int ld = Ld(c.n);
  const int64_t k = std::min(c.m, c.n);
  for (int64_t b = 0; b < c.batch; ++b) {
    T* a = c.Result<T>(0, b);
    switch (c.target.routine) {
      case LapackRoutine::kPotrf:
        c.SetInfo(1, b, XLITE_LAPACKE(T, potrf, potrf, LAPACK_ROW_MAJOR, c.Char("uplo"), n, a, ld));
        break;
      case LapackRoutine::kGetrf:
        c.SetInfo(2, b,
                  XLITE_LAPACKE(T, getrf, getrf, LAPACK_ROW_MAJOR, m, n, a, ld,
                                c.Result<lapack_int>(1, b)));
        break;
      case LapackRoutine::kGeqrf:
        if (k > 0) XLITE_LAPACKE(T, geqrf, geqrf, LAPACK_ROW_MAJOR, m, n, a, ld, c.Result<T>(1, b));
        break;
      case LapackRoutine::kOrgqr: {
        const lapack_int reflectors = static_cast<lapack_int>(
            c.operands[1]->shape().dimensions(c.operands[1]->shape().rank() - 1));
        if (c.n > 0) {
          XLITE_LAPACKE(T, orgqr, ungqr, LAPACK_ROW_MAJOR, m, n, reflectors, a, ld,
                        c.Operand<T>(1, b));
        }
        break;
      }
      case LapackRoutine::kSyevd:
        c.SetInfo(2, b,
                  XLITE_LAPACKE(T, syevd, heevd, LAPACK_ROW_MAJOR, c.Char("mode"), c.Char("uplo"),
                                n, a, ld, c.Result<R>(1, b)));
        break;
      case LapackRoutine::kGehrd:
        c.SetInfo(2, b,
                  XLITE_LAPACKE(T, gehrd, gehrd, LAPACK_ROW_MAJOR, n, c.Int("low"), c.Int("high"),
                                a, ld, c.Result<T>(1, b)));
        break;
      case LapackRoutine::kSytrd:
        c.SetInfo(4, b,
                  XLITE_LAPACKE(T, sytrd, hetrd, LAPACK_ROW_MAJOR, c.Char("uplo"), n, a, ld,
                                c.Result<R>(1, b), c.Result<R>(2, b), c.Result<T>(3, b)));
        break;
      default:
        return;
    }
  }
}

template <typename T>
void Dispatch(Call& c) {
  switch (c.target.routine) {
    case LapackRoutine::kTrsm:
      return Trsm<T>(c);
    case LapackRoutine::kGeev:
      return Geev<T>(c);
    case LapackRoutine::kGees:
      return Gees<T>(c);
    case LapackRoutine::kGesdd:
    case LapackRoutine::kGesvd:
      return Svd<T>(c);
    default:
      return Run<T>(c);
  }
}

// The result literals, zeroed; the one that aliases an operand (jaxlib's
// CopyIfDiffBuffer) starts as that operand's copy.
std::vector<Literal> MakeResults(const LapackTarget& target, const std::vector<Shape>& shapes,
                                 Operands operands) {
  std::vector<Literal> results;
  for (const Shape& shape : shapes) results.emplace_back(shape);
  const bool in_place = target.routine != LapackRoutine::kGeev;
  const Literal& source = target.routine == LapackRoutine::kTrsm ? *operands[1] : *operands[0];
  if (in_place && results[0].raw_data().size() == source.raw_data().size()) {
    std::memcpy(results[0].mutable_raw_data().data(), source.raw_data().data(),
                source.raw_data().size());
  }
  return results;
}

absl::Status CheckResultShape(const HloInstruction& inst, const std::vector<Shape>& expected) {
  const Shape& shape = inst.shape();
  auto same = [](const Shape& a, const Shape& b) {
    return a.IsArray() && a.element_type() == b.element_type() && a.dimensions() == b.dimensions();
  };
  bool ok;
  if (expected.size() == 1) {
    ok = same(shape, expected[0]);
  } else {
    ok = shape.IsTuple() && shape.tuple_size() == static_cast<int64_t>(expected.size());
    for (size_t i = 0; ok && i < expected.size(); ++i)
      ok = same(shape.tuple_shapes(i), expected[i]);
  }
  if (ok) return absl::OkStatus();
  std::vector<std::string> names;
  for (const Shape& s : expected) names.push_back(s.ToString());
  return InvalidArgument("result ", shape.ToString(), " is not the convention's (",
                         absl::StrJoin(names, ", "), ")");
}

absl::StatusOr<Literal> Evaluate(const LapackTarget& target, const HloInstruction& inst,
                                 Operands operands) {
  XLITE_ASSIGN_OR_RETURN(FfiAttributes attrs, ParseFfiAttributes(inst.backend_config()));
  std::vector<const Shape*> shapes;
  for (const Literal* operand : operands) shapes.push_back(&operand->shape());
  XLITE_ASSIGN_OR_RETURN(std::vector<Shape> expected,
                         LapackResultShapes(target, shapes, attrs, inst.shape()));
  XLITE_RETURN_IF_ERROR(CheckResultShape(inst, expected));
  const Shape& a = operands[0]->shape();
  Call c{target, attrs, operands, MakeResults(target, expected, operands)};
  for (int64_t d = 0; d < a.rank() - 2; ++d) c.batch *= a.dimensions(d);
  c.m = a.dimensions(a.rank() - 2);
  c.n = a.dimensions(a.rank() - 1);
  switch (target.type) {
    case PrimitiveType::F32:
      Dispatch<float>(c);
      break;
    case PrimitiveType::F64:
      Dispatch<double>(c);
      break;
    case PrimitiveType::C64:
      Dispatch<std::complex<float>>(c);
      break;
    default:
      Dispatch<std::complex<double>>(c);
      break;
  }
  if (expected.size() == 1) return std::move(c.results[0]);
  return Literal::Tuple(std::move(c.results));
}

}  // namespace

void RegisterLapackCustomCalls(CustomCallRegistry& registry) {
  // jaxlib calls LAPACK itself, without LAPACKE's scan for NaN arguments.
  LAPACKE_set_nancheck(0);
  for (const std::string& name : LapackTargetNames()) {
    const LapackTarget& target = *FindLapackTarget(name);
    registry.Register(name,
                      [&target, name](const HloInstruction& inst, Operands operands,
                                      EvalContext&) -> absl::StatusOr<Literal> {
                        absl::StatusOr<Literal> result = Evaluate(target, inst, operands);
                        if (result.ok()) return result;
                        return absl::Status(result.status().code(),
                                            absl::StrCat("custom-call \"", name,
                                                         "\": ", result.status().message()));
                      });
  }
}

}  // namespace xlite::eval
