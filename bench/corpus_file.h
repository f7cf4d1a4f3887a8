// The text of one module of ../shared/corpus/hlo for the benchmarks ("" when
// absent); XLITE_CORPUS_DIR overrides the folder (e.g. from a worktree).
#ifndef XLITE_BENCH_CORPUS_FILE_H_
#define XLITE_BENCH_CORPUS_FILE_H_

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace xlite {

inline std::string ReadCorpus(const char* name) {
  const char* dir = std::getenv("XLITE_CORPUS_DIR");
  const std::string base = dir != nullptr ? dir : XLITE_SOURCE_DIR "/../shared/corpus/hlo";
  std::ifstream file(base + "/" + name, std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  return std::move(contents).str();
}

}  // namespace xlite

#endif  // XLITE_BENCH_CORPUS_FILE_H_
