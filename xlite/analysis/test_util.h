// Helpers of the xlite/analysis tests: parse HLO text (a parse error fails
// the test) and collect the verifier's messages as one string.
#ifndef XLITE_ANALYSIS_TEST_UTIL_H_
#define XLITE_ANALYSIS_TEST_UTIL_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/text/parser.h"

namespace xlite::testing {

inline std::unique_ptr<HloModule> Parse(std::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << text;
  return module.ok() ? std::move(*module) : nullptr;
}

// The verifier's errors joined by newlines ("" when valid, "parse error"
// when the text does not parse).
inline std::string VerifyErrors(std::string_view text, const VerifyOptions& options = {}) {
  std::unique_ptr<HloModule> module = Parse(text);
  if (module == nullptr) return "parse error";
  return absl::StrJoin(VerifyModuleAll(*module, options), "\n");
}

}  // namespace xlite::testing

#endif  // XLITE_ANALYSIS_TEST_UTIL_H_
