// `xlite run --compare ref.npz` and `--compare-backend B`: each result leaf
// against the reference array of the same name, as run_hlo_module compares
// a run with its reference — per leaf the largest absolute and relative
// error and the first element outside the tolerance.
#ifndef XLITE_TOOLS_RESULT_COMPARE_H_
#define XLITE_TOOLS_RESULT_COMPARE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/runtime/npy_io.h"

namespace xlite::tools {

// An element of a float or complex leaf matches when |got - want| <= atol +
// rtol * |want| (numpy's allclose), NaN matching NaN and an infinity only the
// same infinity; integer and pred leaves match exactly.
struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-6;
};

struct LeafComparison {
  std::string name;
  bool matches = true;
  std::string text;  // one line: the errors, and the first mismatch if any
};

// Compares every leaf of `got` with the `want` array of the same name
// (converted to the leaf's type as `--inputs` converts arguments). A leaf
// without a reference, or one of another shape, is an error naming it.
absl::StatusOr<std::vector<LeafComparison>> CompareLeaves(
    absl::Span<const runtime::NamedArray> got, absl::Span<const runtime::NamedArray> want,
    const Tolerance& tolerance);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_RESULT_COMPARE_H_
