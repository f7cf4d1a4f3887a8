// Agreement of two results within a tolerance, for the differential tests
// (passes against the evaluator, the cpu backend against the evaluator):
// integers, pred and tokens exactly; floats within a number of units in the
// last place of their own type or a relative bound; NaN equal to NaN and -0
// equal to +0; complex per part.
#ifndef XLITE_TESTS_DIFFERENTIAL_LITERAL_COMPARE_H_
#define XLITE_TESTS_DIFFERENTIAL_LITERAL_COMPARE_H_

#include <cstdint>
#include <string>

#include "xlite/ir/literal.h"

namespace xlite::testing {

struct Tolerance {
  int64_t max_ulps = 0;
  // Also agree when |got - want| <= relative * max(1, |want|) (0: off).
  double relative = 0;
};

// "" when `got` agrees with `want`, else the first difference.
std::string CompareLiterals(const Literal& want, const Literal& got, const Tolerance& tolerance);

}  // namespace xlite::testing

#endif  // XLITE_TESTS_DIFFERENTIAL_LITERAL_COMPARE_H_
