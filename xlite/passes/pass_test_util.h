// Test helpers for passes: run a pass on a parsed module and check, with the
// reference evaluator, that the module computes the same bits before and
// after on random inputs (runtime/random_inputs, the seeded stream every
// test and `xlite run --random` share).
#ifndef XLITE_PASSES_PASS_TEST_UTIL_H_
#define XLITE_PASSES_PASS_TEST_UTIL_H_

#include <memory>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/eval/evaluator.h"
#include "xlite/passes/pass.h"
#include "xlite/runtime/random_inputs.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite::testing {

// Parses `text`, runs `pass` (expecting `expect_change`), verifies the
// result and requires bit-identical results on a few random inputs. Returns
// the rewritten module for further checks.
inline std::unique_ptr<HloModule> RunPassAndCompare(std::string_view text, HloPass& pass,
                                                    bool expect_change) {
  auto before = ParseHloModule(text);
  auto after = ParseHloModule(text);
  EXPECT_TRUE(before.ok() && after.ok()) << before.status();
  if (!before.ok() || !after.ok()) return nullptr;
  auto changed = pass.Run(**after);
  EXPECT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(changed.value_or(!expect_change), expect_change);
  absl::Status verified = VerifyModule(**after);
  EXPECT_TRUE(verified.ok()) << verified << "\n" << PrintModule(**after);
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::vector<Literal> args = runtime::RandomArguments(**before, seed);
    Evaluator evaluator;
    auto want = evaluator.Run(**before, args);
    auto got = evaluator.Run(**after, args);
    EXPECT_TRUE(want.ok()) << want.status();
    EXPECT_TRUE(got.ok()) << got.status();
    if (want.ok() && got.ok()) {
      EXPECT_TRUE(*want == *got) << "results differ for seed " << seed << "\n"
                                 << PrintModule(**after);
    }
  }
  return std::move(after).value();
}

}  // namespace xlite::testing

#endif  // XLITE_PASSES_PASS_TEST_UTIL_H_
