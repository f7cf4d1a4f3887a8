// Test-only helpers of the reduction-family tests: the skip for general-path
// tests whose computations need another family's handlers, and readers of
// results.
#ifndef XLITE_EVAL_REDUCTION_TEST_UTIL_H_
#define XLITE_EVAL_REDUCTION_TEST_UTIL_H_

#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xlite/eval/eval_test_util.h"

// General-path tests call arithmetic/compare/select handlers that the
// elementwise family provides; before that is merged the evaluator answers
// "has no rule for ...", and only then does the test skip.
#define XLITE_SKIP_IF_NO_RULE(result)                                                        \
  if (!(result).ok() && absl::StrContains((result).status().message(), "has no rule for")) { \
    GTEST_SKIP() << "needs another family's handler: " << (result).status();                 \
  }

namespace xlite::eval::testing {

// A module's head with `argmax`, a variadic (value, index) reducer keeping
// the first of equal values (needs compare and select handlers).
inline constexpr const char* kArgmaxModuleHead = R"(HloModule m
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  xv = f32[] parameter(2)
  xi = s32[] parameter(3)
  gt = pred[] compare(xv, av), direction=GT
  v = f32[] select(gt, xv, av)
  i = s32[] select(gt, xi, ai)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
)";

// Element i of a tuple result, as doubles.
inline std::vector<double> TupleDoubles(const Literal& tuple, int i) {
  return ToDoubles(tuple.tuple_elements()[i]);
}

}  // namespace xlite::eval::testing

#endif  // XLITE_EVAL_REDUCTION_TEST_UTIL_H_
