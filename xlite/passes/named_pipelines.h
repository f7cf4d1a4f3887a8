// Pipelines known by name (`--pipeline=default`), each written as a pipeline
// spec (see pipeline.h), so that what a pipeline runs is readable in one line.
#ifndef XLITE_PASSES_NAMED_PIPELINES_H_
#define XLITE_PASSES_NAMED_PIPELINES_H_

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace xlite {

// (name, spec) of every named pipeline.
const std::vector<std::pair<std::string_view, std::string_view>>& NamedPipelines();
// The spec of the pipeline called `name`, if there is one.
std::optional<std::string_view> NamedPipelineSpec(std::string_view name);

}  // namespace xlite

#endif  // XLITE_PASSES_NAMED_PIPELINES_H_
