#include "xlite/passes/named_pipelines.h"

namespace xlite {

const std::vector<std::pair<std::string_view, std::string_view>>& NamedPipelines() {
  static const auto* pipelines = new std::vector<std::pair<std::string_view, std::string_view>>{
      // Calls inlined first so the simplifiers see through them; then the
      // simplifications, each of which exposes work for the others (folded
      // selectors make conditionals simplifiable, inlined branches give
      // algsimp and folding more to do), to their fixed point; cse and dce
      // last in the group clean up what the others leave behind.
      // Planned (other helpers): the expanders (e.g. rng, logistic) before the
      // group; dot_decomposer and reshape-mover inside it after algsimp; the
      // while-loop simplifier and loop-invariant code motion inside it after
      // simplify-conditional.
      {"default",
       "call-inliner,"
       "fixed-point(zero_sized_hlo_elimination,algsimp,constant_folding,simplify-conditional,"
       "tuple-simplifier,simplify-sorting,cse,dce)"},
      // SPMD: propagation, partitioning into the per-partition program, and
      // the cleanup of what partitioning leaves (offset tables, reshapes).
      // The spmd passes live in xlite/spmd (RegisterSpmdPasses).
      {"spmd-cleanup", "fixed-point(algsimp,cse,dce)"},
      {"spmd", "sharding-propagation,spmd-partitioner,spmd-cleanup"},
  };
  return *pipelines;
}

std::optional<std::string_view> NamedPipelineSpec(std::string_view name) {
  for (const auto& [n, spec] : NamedPipelines()) {
    if (n == name) return spec;
  }
  return std::nullopt;
}

}  // namespace xlite
