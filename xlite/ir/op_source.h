// Where in the user's program an instruction came from: the innermost frame
// of its metadata's stack_frame_id (JAX dumps: the FileNames/FileLocations/
// StackFrames block), or its source_file/source_line (older dumps), or its
// caller's.
#ifndef XLITE_IR_OP_SOURCE_H_
#define XLITE_IR_OP_SOURCE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "xlite/ir/instruction.h"
#include "xlite/ir/metadata.h"
#include "xlite/ir/module.h"

namespace xlite {

struct OpSource {
  std::string file;
  int64_t line = 0;
  std::string function;  // empty where the dump does not name it
};

// The source of `metadata` in `module`; nullopt where it names none (or a
// frame id outside the module's stack-frame index).
std::optional<OpSource> SourceOf(const HloModule& module, const OpMetadata& metadata);

// "file:line" ("" without a source).
std::string SourceLine(const HloModule& module, const OpMetadata& metadata);

// Source lines of a module's instructions, where an instruction without a
// source of its own takes that of the one instruction calling its
// computation (JAX's nested jit: the frame is on the call, not in the
// callee), through any depth.
class SourceLines {
 public:
  explicit SourceLines(const HloModule& module);
  std::string Of(const HloInstruction& inst) const;

 private:
  const HloModule& module_;
  // The only caller of each computation called from exactly one place.
  absl::flat_hash_map<const HloComputation*, const HloInstruction*> only_caller_;
};

}  // namespace xlite

#endif  // XLITE_IR_OP_SOURCE_H_
