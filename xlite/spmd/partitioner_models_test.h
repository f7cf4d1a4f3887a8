// The hand-annotated models of the partitioner's differential test
// (partitioner_test.cc): each a module text with $N for the partition
// count and the partition counts it runs on.
#ifndef XLITE_SPMD_PARTITIONER_MODELS_TEST_H_
#define XLITE_SPMD_PARTITIONER_MODELS_TEST_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/types/span.h"

namespace xlite::spmd {

struct Model {
  const char* name;
  const char* text;  // $N: the partition count
  std::vector<int64_t> partitions;
};

// Every model: the table of partitioner_models_test.cc, then the windowed
// ops' (WindowedModels, partitioner_windowed_models_test.cc).
absl::Span<const Model> PartitionerModels();
absl::Span<const Model> WindowedModels();

// The model called `name` (it must exist).
const Model& ModelNamed(std::string_view name);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_PARTITIONER_MODELS_TEST_H_
