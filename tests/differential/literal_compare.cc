#include "tests/differential/literal_compare.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xlite/ir/float_format.h"
#include "xlite/ir/float_ulp.h"
#include "xlite/runtime/array_summary.h"

namespace xlite::testing {
namespace {

bool FloatsAgree(double a, double b, PrimitiveType type, const Tolerance& tolerance) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  if (std::fabs(a - b) <= tolerance.relative * std::max(1.0, std::fabs(a))) return true;
  return UlpDistance(EncodeFloat(a, type), EncodeFloat(b, type), type) <= tolerance.max_ulps;
}

}  // namespace

std::string CompareLiterals(const Literal& want, const Literal& got, const Tolerance& tolerance) {
  std::vector<const Literal*> a = runtime::Leaves(want), b = runtime::Leaves(got);
  if (a.size() != b.size()) return "different tuple structure";
  for (size_t leaf = 0; leaf < a.size(); ++leaf) {
    const Shape& shape = a[leaf]->shape();
    if (!shape.IsArray()) continue;
    if (shape.element_type() != b[leaf]->shape().element_type() ||
        shape.dimensions() != b[leaf]->shape().dimensions()) {
      return absl::StrCat("leaf ", leaf, ": different shape");
    }
    PrimitiveType type = shape.element_type();
    for (int64_t i = 0; i < a[leaf]->element_count(); ++i) {
      bool same;
      if (IsFloat(type)) {
        same = FloatsAgree(a[leaf]->GetDouble(i), b[leaf]->GetDouble(i), type, tolerance);
      } else if (IsComplex(type)) {
        std::complex<double> x = a[leaf]->GetComplex(i), y = b[leaf]->GetComplex(i);
        PrimitiveType part = type == PrimitiveType::C64 ? PrimitiveType::F32 : PrimitiveType::F64;
        same = FloatsAgree(x.real(), y.real(), part, tolerance) &&
               FloatsAgree(x.imag(), y.imag(), part, tolerance);
      } else {
        same = a[leaf]->GetInt64(i) == b[leaf]->GetInt64(i);
      }
      if (!same) {
        return absl::StrCat(
            "leaf ", leaf, " element ", i, ": ",
            IsInteger(type) || type == PrimitiveType::PRED
                ? absl::StrCat(a[leaf]->GetInt64(i), " vs ", b[leaf]->GetInt64(i))
                : absl::StrCat(a[leaf]->GetDouble(i), " vs ", b[leaf]->GetDouble(i)));
      }
    }
  }
  return "";
}

}  // namespace xlite::testing
