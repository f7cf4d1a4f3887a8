// Parser of the HLO text format (as XLA dumps it): modules with or without
// the `HloModule` header, every opcode and attribute of ../shared/spec/HLO.md.
// Errors read `file:line:col: error: message`, then the line and a caret.
#ifndef XLITE_TEXT_PARSER_H_
#define XLITE_TEXT_PARSER_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/ir/module.h"
#include "xlite/text/source_positions.h"

namespace xlite {

struct ParseOptions {
  // Name used in error positions (a path, or "<stdin>").
  std::string_view filename = "<input>";
  // Added to every reported line number (for a chunk of a split file).
  int64_t line_offset = 0;
  // When set, receives where each instruction was written (for errors found
  // after parsing, such as the verifier's).
  SourcePositions* positions = nullptr;
};

// Parses one module. Structural errors (undefined names, bad attribute values,
// wrong literal sizes) are parse errors; shape rules are the verifier's job,
// except for a result shape the text leaves out (dot, convolution, reduce,
// gather, conditional, ...): xlite/inference derives it from the operands,
// attributes and called computations, and its error is reported at the
// instruction. Opcodes that must declare their shape (CanOmitResultShape in
// xlite/ir/opcode.h is false) are an error.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(std::string_view text,
                                                          const ParseOptions& options = {});

// Parses a sharding attribute value such as `{devices=[2,1]0,1}`.
absl::StatusOr<HloSharding> ParseSharding(std::string_view text);
// Parses a shape such as `f32[2,<=3]{1,0:T(8,128)}` or a tuple shape.
absl::StatusOr<Shape> ParseShape(std::string_view text);

// `--split-input-file`: the pieces of `text` between lines that are exactly
// `// -----` (surrounding blanks allowed), each with the 0-based line number
// where it starts.
struct InputChunk {
  std::string_view text;
  int64_t first_line = 0;
};
std::vector<InputChunk> SplitInputFile(std::string_view text);

}  // namespace xlite

#endif  // XLITE_TEXT_PARSER_H_
