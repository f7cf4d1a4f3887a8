// Summary numbers of a module for `xlite stats`: topology (replicas,
// partitions), opcode histogram, the entry's parameters (names, shardings)
// and outputs with their sizes, aliasing, constants, and collectives by
// opcode.
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
  std::string name;      // parameters: the instruction's name
  std::string sharding;  // as printed (`{devices=...}`), "" without one
};

// An input_output_alias entry or a buffer donor (no output) in the text's
// notation: "{0}", "{}".
struct AliasStats {
  std::string output_index;  // "" for a buffer donor
  int64_t parameter = 0;
  std::string parameter_index;
  bool must_alias = false;
};

struct ModuleStats {
  std::string name;
  int64_t replica_count = 1, num_partitions = 1;
  int64_t computations = 0;
  int64_t instructions = 0;  // over every computation, fusion bodies included
  std::vector<ShapeBytes> parameters;
  int64_t parameter_bytes = 0;
  // The entry result's tuple elements, or the result itself when not a tuple.
  std::vector<ShapeBytes> outputs;
  int64_t output_bytes = 0;
  std::vector<AliasStats> aliases;
  std::vector<AliasStats> buffer_donors;
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
