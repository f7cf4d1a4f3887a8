// Flops of JAX's LAPACK custom-calls (cost_formulas.h). Direct
// factorizations count LAPACK Working Note 41's multiplications and
// additions (a complex multiplication is 6 real flops, an addition 2); the
// iterative eigen- and singular-value solvers, which have no exact count,
// take Golub & Van Loan's estimates (Matrix Computations, 4th ed.: symmetric
// QR 4n^3/3 or 9n^3 with vectors, Golub-Reinsch SVD, Francis QR 10n^3 or
// 25n^3 with the Schur vectors), times 4 for complex.
#include <algorithm>
#include <optional>

#include "xlite/analysis/cost_formulas.h"
#include "xlite/ir/lapack/lapack_targets.h"

namespace xlite::cost_internal {
namespace {

struct Counts {
  double muls = 0, adds = 0;
};

Counts Potrf(double n) { return {n * n * n / 6 + n * n / 2 + n / 3, n * n * n / 6 - n / 6}; }

// LAWN 41's getrf and geqrf counts for m >= n; the m < n ones swap the roles
// and differ in their lower-order terms.
Counts Getrf(double m, double n) {
  const double p = std::max(m, n), q = std::min(m, n);
  return {p * q * q / 2 - q * q * q / 6 + p * q / 2 - q * q / 2 + 2 * q / 3,
          p * q * q / 2 - q * q * q / 6 - p * q / 2 + q / 6};
}

Counts Geqrf(double m, double n) {
  if (m >= n) {
    return {m * n * n - n * n * n / 3 + m * n + n * n / 2 + 23 * n / 6,
            m * n * n - n * n * n / 3 + n * n / 2 + 5 * n / 6};
  }
  return {n * m * m - m * m * m / 3 + 2 * n * m - m * m / 2 + 23 * m / 6,
          n * m * m - m * m * m / 3 + n * m - m * m / 2 + 5 * m / 6};
}

Counts Orgqr(double m, double n, double k) {
  const double common = 2 * m * n * k - (m + n) * k * k + 2 * k * k * k / 3;
  return {common + 2 * n * k - k * k - 5 * k / 3, common + n * k - m * k + k / 3};
}

// B is m x n; A is m x m on the left, n x n on the right.
Counts Trsm(bool left, double m, double n) {
  const double order = left ? m : n, other = left ? n : m;
  return {other * order * (order + 1) / 2, other * order * (order - 1) / 2};
}

Counts Gehrd(double n) {
  return {std::max(0.0, 5 * n * n * n / 3 + n * n / 2 - 7 * n / 6 - 13),
          std::max(0.0, 5 * n * n * n / 3 - n * n - 2 * n / 3 - 8)};
}

Counts Sytrd(double n) {
  return {std::max(0.0, 2 * n * n * n / 3 + 5 * n * n / 2 - n / 6 - 15),
          std::max(0.0, 2 * n * n * n / 3 + n * n - 8 * n / 3 - 4)};
}

// Golub-Reinsch SVD for m >= n (the transpose otherwise).
double SvdEstimate(double m, double n, char mode) {
  const double p = std::max(m, n), q = std::min(m, n);
  if (mode == 'N') return 4 * p * q * q - 4 * q * q * q / 3;
  if (mode == 'S') return 14 * p * q * q + 8 * q * q * q;
  return 4 * p * p * q + 8 * p * q * q + 9 * q * q * q;
}

char Mode(const FfiAttributes& attrs, const char* name) {
  auto it = attrs.find(name);
  return it == attrs.end() ? 'V' : static_cast<char>(it->second);
}

}  // namespace

double LapackFlops(const HloInstruction& call, const LapackTarget& target) {
  const Shape& a = call.operand(0)->shape();
  if (!a.IsArray() || a.rank() < 2) return 0;
  double batch = 1;
  for (int64_t d = 0; d < a.rank() - 2; ++d) batch *= static_cast<double>(a.dimensions(d));
  const double m = static_cast<double>(a.dimensions(a.rank() - 2));
  const double n = static_cast<double>(a.dimensions(a.rank() - 1));
  const FfiAttributes attrs = ParseFfiAttributes(call.backend_config()).value_or(FfiAttributes());
  const bool complex = IsComplex(target.type);
  std::optional<Counts> counts;
  double estimate = 0;
  switch (target.routine) {
    case LapackRoutine::kPotrf:
      counts = Potrf(n);
      break;
    case LapackRoutine::kTrsm: {
      const Shape& b = call.operand(1)->shape();
      if (!b.IsArray() || b.rank() < 2) return 0;
      counts = Trsm(Mode(attrs, "side") != 'R', static_cast<double>(b.dimensions(b.rank() - 2)),
                    static_cast<double>(b.dimensions(b.rank() - 1)));
      break;
    }
    case LapackRoutine::kGetrf:
      counts = Getrf(m, n);
      break;
    case LapackRoutine::kGeqrf:
      counts = Geqrf(m, n);
      break;
    case LapackRoutine::kOrgqr: {
      const Shape& tau = call.operand(1)->shape();
      if (!tau.IsArray() || tau.rank() < 1) return 0;
      counts = Orgqr(m, n, static_cast<double>(tau.dimensions(tau.rank() - 1)));
      break;
    }
    case LapackRoutine::kGehrd:
      counts = Gehrd(n);
      break;
    case LapackRoutine::kSytrd:
      counts = Sytrd(n);
      break;
    case LapackRoutine::kSyevd:
      estimate = Mode(attrs, "mode") == 'N' ? 4 * n * n * n / 3 : 9 * n * n * n;
      break;
    case LapackRoutine::kGesdd:
    case LapackRoutine::kGesvd:
      estimate = SvdEstimate(m, n, Mode(attrs, "mode"));
      break;
    case LapackRoutine::kGeev: {
      const bool vectors =
          Mode(attrs, "compute_left") == 'V' || Mode(attrs, "compute_right") == 'V';
      estimate = (vectors ? 25 : 10) * n * n * n;
      break;
    }
    case LapackRoutine::kGees:
      estimate = (Mode(attrs, "mode") == 'V' ? 25 : 10) * n * n * n;
      break;
  }
  const double per_matrix =
      counts ? (complex ? 6 * counts->muls + 2 * counts->adds : counts->muls + counts->adds)
             : (complex ? 4 : 1) * estimate;
  return batch * per_matrix;
}

}  // namespace xlite::cost_internal
