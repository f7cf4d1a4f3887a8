#include "xlite/passes/named_pipelines.h"

namespace xlite {

const std::vector<std::pair<std::string_view, std::string_view>>& NamedPipelines() {
  static const auto* pipelines = new std::vector<std::pair<std::string_view, std::string_view>>{
      // Cleanups that only ever shrink the module, to their fixed point.
      {"default", "fixed-point(tuple-simplifier,cse,dce)"},
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
