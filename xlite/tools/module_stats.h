// Summary numbers of a module for `xlite stats`: opcode histogram, sizes of
// the entry's parameters, outputs and constants, and collectives by opcode.
#ifndef XLITE_TOOLS_MODULE_STATS_H_
#define XLITE_TOOLS_MODULE_STATS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xlite/ir/module.h"

namespace xlite::tools {

struct ShapeBytes {
  std::string shape;
  int64_t bytes = 0;
};

struct ModuleStats {
  std::string name;
  int64_t computations = 0;
  int64_t instructions = 0;  // over every computation, fusion bodies included
  std::vector<ShapeBytes> parameters;
  int64_t parameter_bytes = 0;
  // The entry result's tuple elements, or the result itself when not a tuple.
  std::vector<ShapeBytes> outputs;
  int64_t output_bytes = 0;
  int64_t constants = 0;
  int64_t constant_bytes = 0;
  // Sorted by count (descending), then name.
  std::vector<std::pair<std::string_view, int64_t>> opcodes;
  // Collective opcodes only, sorted by name.
  std::vector<std::pair<std::string_view, int64_t>> collectives;
};

ModuleStats ComputeModuleStats(const HloModule& module);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_MODULE_STATS_H_
