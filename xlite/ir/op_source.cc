#include "xlite/ir/op_source.h"

#include <vector>

#include "xlite/ir/computation.h"

namespace xlite {
namespace {

// The element `id` (1-based, as in the text) of `list`, or nullptr.
template <typename T>
const T* AtId(const std::vector<T>& list, int64_t id) {
  if (id < 1 || id > static_cast<int64_t>(list.size())) return nullptr;
  return &list[static_cast<size_t>(id - 1)];
}

}  // namespace

std::optional<OpSource> SourceOf(const HloModule& module, const OpMetadata& metadata) {
  const StackFrameIndex& index = module.stack_frames();
  if (metadata.stack_frame_id > 0) {
    const StackFrameIndex::Frame* frame = AtId(index.frames, metadata.stack_frame_id);
    const StackFrameIndex::FileLocation* location =
        frame == nullptr ? nullptr : AtId(index.file_locations, frame->file_location_id);
    const std::string* file =
        location == nullptr ? nullptr : AtId(index.file_names, location->file_name_id);
    if (file != nullptr) {
      const std::string* function = AtId(index.function_names, location->function_name_id);
      return OpSource{*file, location->line, function == nullptr ? "" : *function};
    }
  }
  if (!metadata.source_file.empty()) {
    return OpSource{metadata.source_file, metadata.source_line, ""};
  }
  return std::nullopt;
}

std::string SourceLine(const HloModule& module, const OpMetadata& metadata) {
  std::optional<OpSource> source = SourceOf(module, metadata);
  if (!source.has_value()) return "";
  return source->file + ":" + std::to_string(source->line);
}

SourceLines::SourceLines(const HloModule& module) : module_(module) {
  absl::flat_hash_map<const HloComputation*, int> calls;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      for (const HloComputation* callee : inst->called_computations()) {
        if (++calls[callee] == 1) only_caller_[callee] = inst.get();
      }
    }
  }
  for (const auto& [callee, count] : calls) {
    if (count > 1) only_caller_.erase(callee);
  }
}

std::string SourceLines::Of(const HloInstruction& inst) const {
  // Bounded by the computations: a caller chain cannot repeat one.
  const HloInstruction* at = &inst;
  for (size_t step = 0; at != nullptr && step <= only_caller_.size(); ++step) {
    std::string line = SourceLine(module_, at->metadata());
    if (!line.empty()) return line;
    auto caller = only_caller_.find(at->parent());
    at = caller == only_caller_.end() ? nullptr : caller->second;
  }
  return "";
}

}  // namespace xlite
