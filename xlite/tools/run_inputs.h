// What `xlite run` and `xlite bench` share before they execute a module: the
// module read, parsed, verified and checked against the memory budget, its
// elided constants, and the entry arguments from .npy/.npz files or a seed.
#ifndef XLITE_TOOLS_RUN_INPUTS_H_
#define XLITE_TOOLS_RUN_INPUTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/ir/literal.h"
#include "xlite/ir/module.h"

namespace xlite::tools {

// A parsed and verified module with the name its errors use.
struct RunnableModule {
  std::string name;
  std::unique_ptr<HloModule> module;
};

// Reads `path` (or stdin for `-`), parses and verifies it, and refuses a
// module that needs more memory than `memory_budget` (default: the available
// memory) or more devices than the process runs (see CheckRunResources).
absl::StatusOr<RunnableModule> LoadRunnableModule(const std::string& path,
                                                  std::optional<int64_t> memory_budget,
                                                  bool one_device_per_process);

// Where the entry arguments come from.
struct ArgumentSource {
  std::vector<std::string> input_files;  // --input: one .npy per parameter
  std::string inputs_npz;                // --inputs: arg0, arg1... in one .npz
  std::optional<uint64_t> seed;          // --random: generated arguments

  bool from_files() const { return !input_files.empty() || !inputs_npz.empty(); }
};

// With a seed, fills the module's elided ({...}) constants from it and
// returns how many; without one, refuses a module that has any.
absl::StatusOr<int64_t> FillOrRefuseElidedConstants(HloModule& module,
                                                    std::optional<uint64_t> seed);

// The entry arguments: read from the files when `source` names any (shapes
// adapted to the parameters, errors naming the file), else generated from its
// seed (0 without one).
absl::StatusOr<std::vector<Literal>> EntryArguments(const HloModule& module,
                                                    const ArgumentSource& source);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_RUN_INPUTS_H_
