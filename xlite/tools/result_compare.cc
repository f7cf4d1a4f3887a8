#include "xlite/tools/result_compare.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/ir/primitive_type.h"

namespace xlite::tools {
namespace {

// The multi-index of row-major element `linear` of `dims`, as "[i,j,k]".
std::string IndexText(absl::Span<const int64_t> dims, int64_t linear) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = dims[d] == 0 ? 0 : linear % dims[d];
    linear = dims[d] == 0 ? 0 : linear / dims[d];
  }
  return absl::StrCat("[", absl::StrJoin(index, ","), "]");
}

struct Errors {
  double max_abs = 0;
  double max_rel = 0;
  int64_t mismatches = 0;
  std::optional<int64_t> first;  // the first element outside the tolerance
};

bool SameSpecial(std::complex<double> got, std::complex<double> want) {
  auto special = [](double x) { return std::isnan(x) || std::isinf(x); };
  for (auto [g, w] : {std::pair{got.real(), want.real()}, std::pair{got.imag(), want.imag()}}) {
    if (!special(g) && !special(w)) continue;
    if (std::isnan(g) != std::isnan(w) || (std::isinf(g) && g != w) || (std::isinf(w) && g != w)) {
      return false;
    }
  }
  return true;
}

Errors CompareElements(const Literal& got, const Literal& want, const Tolerance& tolerance) {
  Errors errors;
  const PrimitiveType type = got.shape().element_type();
  const bool exact = !IsFloat(type) && !IsComplex(type);
  for (int64_t i = 0; i < got.element_count(); ++i) {
    bool ok;
    if (exact) {
      ok = got.GetBits(i) == want.GetBits(i);
      const double diff =
          std::abs(static_cast<double>(got.GetInt64(i)) - static_cast<double>(want.GetInt64(i)));
      errors.max_abs = std::max(errors.max_abs, diff);
    } else {
      const std::complex<double> g = got.GetComplex(i), w = want.GetComplex(i);
      const bool finite = std::isfinite(std::abs(g)) && std::isfinite(std::abs(w));
      if (finite) {
        const double diff = std::abs(g - w);
        errors.max_abs = std::max(errors.max_abs, diff);
        if (w != std::complex<double>(0))
          errors.max_rel = std::max(errors.max_rel, diff / std::abs(w));
        ok = diff <= tolerance.atol + tolerance.rtol * std::abs(w);
      } else {
        ok = SameSpecial(g, w);
      }
    }
    if (!ok) {
      ++errors.mismatches;
      if (!errors.first) errors.first = i;
    }
  }
  return errors;
}

std::string ElementText(const Literal& literal, int64_t i) {
  const PrimitiveType type = literal.shape().element_type();
  if (IsComplex(type)) {
    const std::complex<double> c = literal.GetComplex(i);
    return absl::StrFormat("(%.9g,%.9g)", c.real(), c.imag());
  }
  if (IsFloat(type)) return absl::StrFormat("%.9g", literal.GetDouble(i));
  return absl::StrCat(literal.GetInt64(i));
}

}  // namespace

absl::StatusOr<std::vector<LeafComparison>> CompareLeaves(
    absl::Span<const runtime::NamedArray> got, absl::Span<const runtime::NamedArray> want,
    const Tolerance& tolerance) {
  std::vector<LeafComparison> out;
  for (const runtime::NamedArray& leaf : got) {
    auto reference = std::find_if(want.begin(), want.end(), [&](const runtime::NamedArray& w) {
      return w.name == leaf.name;
    });
    if (reference == want.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the reference has no array ", leaf.name, " (the result's ",
                       runtime::DescribeArray(leaf.array.value), ")"));
    }
    if (reference->array.value.shape().dimensions() != leaf.array.value.shape().dimensions()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the reference ", leaf.name, " is ", runtime::DescribeArray(reference->array),
          ", the result ", runtime::DescribeArray(leaf.array.value)));
    }
    XLITE_ASSIGN_OR_RETURN(Literal expected,
                           runtime::AdaptArray(reference->array, leaf.array.value.shape(),
                                               absl::StrCat("reference ", leaf.name)));
    const Errors errors = CompareElements(leaf.array.value, expected, tolerance);
    LeafComparison comparison;
    comparison.name = leaf.name;
    comparison.matches = errors.mismatches == 0;
    comparison.text = absl::StrFormat("%s: %s, max abs error %.3g, max rel error %.3g", leaf.name,
                                      comparison.matches ? "matches" : "MISMATCH", errors.max_abs,
                                      errors.max_rel);
    if (errors.first) {
      const int64_t i = *errors.first;
      absl::StrAppendFormat(&comparison.text,
                            "; %d of %d elements differ, first at %s: got %s, want %s",
                            errors.mismatches, leaf.array.value.element_count(),
                            IndexText(leaf.array.value.shape().dimensions(), i),
                            ElementText(leaf.array.value, i), ElementText(expected, i));
    }
    out.push_back(std::move(comparison));
  }
  return out;
}

}  // namespace xlite::tools
