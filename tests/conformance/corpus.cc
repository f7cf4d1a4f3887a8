#include "tests/conformance/corpus.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/base/check.h"
#include "xlite/ir/computation.h"
#include "xlite/text/parser.h"

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

int ForEachVerifiedModule(const std::function<void(HloModule&)>& visit) {
  int visited = 0;
  for (const std::string& path : CorpusFiles()) {
    const std::string text = ReadFileOrDie(path);
    for (const InputChunk& chunk : SplitInputFile(text)) {
      SCOPED_TRACE(path + ":" + std::to_string(chunk.first_line + 1));
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(chunk.text);
      if (!module.ok() || !VerifyModule(**module).ok()) continue;
      visit(**module);
      ++visited;
    }
  }
  return visited;
}

namespace {

double LeafElements(const Shape& shape) {
  if (shape.IsTuple()) {
    double sum = 0;
    for (const Shape& s : shape.tuple_shapes()) sum += LeafElements(s);
    return sum;
  }
  return shape.IsArray() ? static_cast<double>(std::max<int64_t>(shape.ElementCount(), 1)) : 1;
}

}  // namespace

double EstimateCost(const HloModule& module) {
  double cost = 0;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      double out = LeafElements(inst->shape());
      double weight = 1;
      if (inst->opcode() == HloOpcode::kDot) {
        const Shape& lhs = inst->operand(0)->shape();
        for (int64_t d : inst->attrs<DotAttrs>().dims.lhs_contracting) {
          if (d < lhs.rank()) weight *= static_cast<double>(lhs.dimensions(d));
        }
      } else if (inst->opcode() == HloOpcode::kConvolution && inst->operand_count() == 2) {
        const Shape& kernel = inst->operand(1)->shape();
        int64_t out_feature = inst->attrs<ConvolutionAttrs>().dims.kernel_output_feature;
        weight = LeafElements(kernel) /
                 static_cast<double>(std::max<int64_t>(1, kernel.dimensions(out_feature)));
      }
      cost += out * std::max(weight, 1.0);
    }
  }
  return cost;
}

}  // namespace xlite::conformance
