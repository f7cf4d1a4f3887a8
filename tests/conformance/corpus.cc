#include "tests/conformance/corpus.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "xlite/base/check.h"

namespace xlite::conformance {

std::string CorpusDir() {
  // A worktree elsewhere than beside shared/ points at the corpus this way.
  if (const char* dir = std::getenv("XLITE_CORPUS_DIR")) return dir;
  return XLITE_SOURCE_DIR "/../shared/corpus/hlo";
}

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(CorpusDir(), error)) {
    if (entry.path().extension() == ".hlo") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  XLITE_CHECK(file.good());
  std::ostringstream text;
  text << file.rdbuf();
  return std::move(text).str();
}

std::string TestNameForPath(const std::string& path) {
  std::string name = std::filesystem::path(path).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

}  // namespace xlite::conformance
