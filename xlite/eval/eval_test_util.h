// Test helpers for the evaluator: parse a module, run it, build literals
// from values and read them back.
#ifndef XLITE_EVAL_EVAL_TEST_UTIL_H_
#define XLITE_EVAL_EVAL_TEST_UTIL_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/analysis/verifier.h"
#include "xlite/base/status.h"
#include "xlite/eval/evaluator.h"
#include "xlite/ir/literal.h"
#include "xlite/text/parser.h"

namespace xlite::eval::testing {

// A literal of `shape` (e.g. "f32[2,2]") from values in row-major order,
// stored with Literal::SetDouble (XLA's convert rounding).
inline Literal MakeLiteral(std::string_view shape, const std::vector<double>& values) {
  absl::StatusOr<Shape> parsed = ParseShape(shape);
  XLITE_CHECK(parsed.ok());
  Literal literal(*parsed);
  XLITE_CHECK(literal.element_count() == static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) literal.SetDouble(static_cast<int64_t>(i), values[i]);
  return literal;
}

// Every element as a double (complex: real part).
inline std::vector<double> ToDoubles(const Literal& literal) {
  std::vector<double> out;
  for (int64_t i = 0; i < literal.element_count(); ++i) out.push_back(literal.GetDouble(i));
  return out;
}

// Parses and verifies `text`, then evaluates its entry on `args`.
inline absl::StatusOr<Literal> EvaluateText(std::string_view text, const std::vector<Literal>& args,
                                            EvalOptions options = {}) {
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  XLITE_RETURN_IF_ERROR(VerifyModule(*module));
  Evaluator evaluator(options);
  return evaluator.Run(*module, args);
}

}  // namespace xlite::eval::testing

#endif  // XLITE_EVAL_EVAL_TEST_UTIL_H_
