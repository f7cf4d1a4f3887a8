// Where things were written in HLO text: line and column (1-based, as error
// messages print them) of byte offsets, and the position of each instruction
// of a parsed module, which the parser records when ParseOptions::positions
// asks for it, so that later checks (the verifier) point at the instruction's
// own line instead of the module's.
#ifndef XLITE_TEXT_SOURCE_POSITIONS_H_
#define XLITE_TEXT_SOURCE_POSITIONS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/container/flat_hash_map.h"

namespace xlite {

class HloInstruction;

struct SourcePosition {
  int64_t line = 1;
  int64_t column = 1;
};

// Positions of offsets into one text. Asked in increasing order, each costs
// only the bytes since the previous one (an earlier offset counts again from
// the start). `\n`, `\r\n` and a lone `\r` each end a line.
class LineCounter {
 public:
  explicit LineCounter(std::string_view text) : text_(text) {}
  // Offsets past the end are taken as the end.
  SourcePosition At(size_t offset);

 private:
  std::string_view text_;
  size_t offset_ = 0;
  size_t line_start_ = 0;
  int64_t line_ = 1;
};

// Where each instruction of one parsed module starts (its name), lines
// counted in the whole file (ParseOptions::line_offset included). Keyed by
// the instruction's address: valid while the module is as it was parsed.
class SourcePositions {
 public:
  void Record(const HloInstruction* instruction, SourcePosition position) {
    positions_[instruction] = position;
  }
  // Nothing for an instruction the parser did not create.
  std::optional<SourcePosition> Find(const HloInstruction* instruction) const;

 private:
  absl::flat_hash_map<const HloInstruction*, SourcePosition> positions_;
};

}  // namespace xlite

#endif  // XLITE_TEXT_SOURCE_POSITIONS_H_
