// The LAPACK custom-call targets of JAX's CPU lowering (jaxlib's typed-FFI
// kernels, "lapack_<s|d|c|z><routine>_ffi"): one table of what each target
// is (routine, element type) and of the operands, results and backend_config
// attributes its calling convention fixes. The evaluator, cost analysis and
// sharding propagation all read it.
#ifndef XLITE_IR_LAPACK_LAPACK_TARGETS_H_
#define XLITE_IR_LAPACK_LAPACK_TARGETS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/ir/shape.h"

namespace xlite {

enum class LapackRoutine {
  kPotrf,  // cholesky: (a) -> (factor, info)
  kTrsm,   // triangular solve: (a, b) -> x
  kGetrf,  // lu: (a) -> (lu, pivots, info)
  kGeqrf,  // qr: (a) -> (reflectors, tau)
  kOrgqr,  // householder product (ungqr): (a, tau) -> q
  kSyevd,  // eigh (heevd): (a) -> (vectors, values, info)
  kGesdd,  // svd, divide and conquer: (a) -> (a, s, u, vt, info)
  kGesvd,  // svd, QR iteration: as gesdd
  kGeev,   // eig: (a) -> (wr, wi, vl, vr, info) real, (w, vl, vr, info) complex
  kGees,   // schur: (a) -> (t, vs, wr, wi, sdim, info) real, (t, vs, w, sdim, info)
  kGehrd,  // hessenberg: (a) -> (a, tau, info)
  kSytrd,  // tridiagonal (hetrd): (a) -> (a, d, e, tau, info)
};

struct LapackTarget {
  LapackRoutine routine;
  PrimitiveType type;  // of the matrix operand: f32, f64, c64 or c128
  int64_t operand_count;
};

// nullptr when `target` is not one of the LAPACK targets.
const LapackTarget* FindLapackTarget(std::string_view target);
// Every LAPACK target name, sorted.
std::vector<std::string> LapackTargetNames();
// The routine's LAPACK name for `type` ("potrf", "heevd", "ungqr", ...).
std::string_view LapackRoutineName(LapackRoutine routine, PrimitiveType type);

// The scalar attributes of a typed-FFI backend_config, as JAX prints them:
// `{mode = 86 : ui8, uplo = 76 : ui8}` (character codes are their ASCII).
using FfiAttributes = absl::flat_hash_map<std::string, int64_t>;
absl::StatusOr<FfiAttributes> ParseFfiAttributes(std::string_view backend_config);
// The character attribute `name`, which must be one of `allowed`.
absl::StatusOr<char> FfiCharAttribute(const FfiAttributes& attrs, std::string_view name,
                                      std::string_view allowed);

// The matrix dims every operand and result share: the leading batch dims of
// operand 0 (all but its last two).
int64_t LapackBatchRank(const Shape& operand0);

// The results (element types and dims) the calling convention gives for
// `operands`; an error names what is wrong with the operands or attributes.
// One array for trsm and orgqr, else the tuple's elements in order. Where
// the convention leaves dims free (svd's u and vt in mode N, which LAPACK
// does not reference) they are taken from `declared`, the instruction's shape.
absl::StatusOr<std::vector<Shape>> LapackResultShapes(const LapackTarget& target,
                                                      absl::Span<const Shape* const> operands,
                                                      const FfiAttributes& attrs,
                                                      const Shape& declared);

}  // namespace xlite

#endif  // XLITE_IR_LAPACK_LAPACK_TARGETS_H_
