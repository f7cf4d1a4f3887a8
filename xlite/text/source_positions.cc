#include "xlite/text/source_positions.h"

namespace xlite {

SourcePosition LineCounter::At(size_t offset) {
  if (offset > text_.size()) offset = text_.size();
  if (offset < offset_) {
    offset_ = 0;
    line_start_ = 0;
    line_ = 1;
  }
  for (size_t i = offset_; i < offset; ++i) {
    char c = text_[i];
    if (c == '\r' || c == '\n') {
      // The `\n` of `\r\n` ends the line the `\r` already ended.
      if (!(c == '\n' && i > 0 && text_[i - 1] == '\r')) ++line_;
      line_start_ = i + 1;
    }
  }
  offset_ = offset;
  return {line_, static_cast<int64_t>(offset - line_start_) + 1};
}

std::optional<SourcePosition> SourcePositions::Find(const HloInstruction* instruction) const {
  auto it = positions_.find(instruction);
  if (it == positions_.end()) return std::nullopt;
  return it->second;
}

}  // namespace xlite
