// Printer of canonical XLA-style HLO text: `%` names, bare operand names,
// layouts as held in the shapes, attributes in XLA's order, full constants
// (or `{...}` when the constant was elided in the input).
// Printing is a fixed point: parse(print(m)) prints the same text.
#ifndef XLITE_TEXT_PRINTER_H_
#define XLITE_TEXT_PRINTER_H_

#include <cstdint>
#include <string>

#include "absl/types/span.h"
#include "xlite/ir/module.h"

namespace xlite {

struct PrintOptions {
  // Write `f32[] %x` for each operand instead of `%x` (XLA's older dumps).
  bool print_operand_shapes = false;
  // Write metadata={...}; off gives shorter text for diffing.
  bool print_metadata = true;
  // Write backend_config=...
  bool print_backend_config = true;
  // Write an async chain whose computation is one instruction over its
  // parameters in XLA's sugar form (`custom-call-start(...)` with the
  // instruction's attributes, the computation not printed), as XLA does by
  // default. The names of that computation and its instructions are then
  // not in the text; off prints every async chain explicitly (lossless).
  // PrintComputation and PrintInstruction always print explicitly.
  bool async_sugar = true;
  // `%` before names (a name that would not read back bare keeps it anyway).
  bool print_percent = true;
  // Computation signatures `(a: f32[2]) -> f32[2]`.
  bool print_program_shape = true;
  // control-predecessors={...}
  bool print_control_dependencies = true;
  // `/*index=5*/` before every fifth operand.
  bool print_index_annotations = true;
};

// XLA's HloPrintOptions::ShortParsable(): bare names, no signatures,
// metadata, backend_config, control dependencies or index comments; still
// parseable, but metadata, backend_config and control edges are dropped.
PrintOptions ShortParsablePrintOptions();

std::string PrintModule(const HloModule& module, const PrintOptions& options = {});
void AppendModule(const HloModule& module, const PrintOptions& options, std::string* out);
std::string PrintComputation(const HloComputation& computation, const PrintOptions& options = {});
// One instruction line without indentation or trailing newline.
std::string PrintInstruction(const HloInstruction& instruction, const PrintOptions& options = {});
std::string PrintSharding(const HloSharding& sharding);
// A shape index as input_output_alias writes it: `{}`, `{0}`, `{1,2}`.
std::string PrintShapeIndex(absl::Span<const int64_t> index);
// A literal's value text as it appears inside `constant(...)`, e.g. `{1, 2}`.
std::string PrintLiteralValue(const Literal& literal);

}  // namespace xlite

#endif  // XLITE_TEXT_PRINTER_H_
