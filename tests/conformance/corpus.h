// Access to the real HLO modules of ../shared/corpus/hlo for the conformance
// tests: listing (empty when the corpus is absent) and reading files.
#ifndef XLITE_TESTS_CONFORMANCE_CORPUS_H_
#define XLITE_TESTS_CONFORMANCE_CORPUS_H_

#include <functional>
#include <string>
#include <vector>

#include "xlite/ir/module.h"

namespace xlite::conformance {

// XLITE_SOURCE_DIR "/../shared/corpus/hlo", or $XLITE_CORPUS_DIR when set.
std::string CorpusDir();
// Paths of every *.hlo in the corpus, sorted; empty when it is absent.
std::vector<std::string> CorpusFiles();
// The whole file; aborts the test binary when it cannot be read (the list
// came from the directory, so a failure is a broken checkout, not input).
std::string ReadFileOrDie(const std::string& path);
// A gtest-safe name for a path: its file stem with [^A-Za-z0-9] as `_`.
std::string TestNameForPath(const std::string& path);

// Calls `visit` on every module of the corpus that parses and verifies (the
// conformance test reports the others), each under a SCOPED_TRACE naming its
// file and line; returns how many it visited.
int ForEachVerifiedModule(const std::function<void(HloModule&)>& visit);

// A static estimate of the evaluator's work on `module` (elements produced,
// dots and convolutions weighted by their reduction size, loop bodies counted
// once): the tests skip modules above their cap.
double EstimateCost(const HloModule& module);

}  // namespace xlite::conformance

#endif  // XLITE_TESTS_CONFORMANCE_CORPUS_H_
