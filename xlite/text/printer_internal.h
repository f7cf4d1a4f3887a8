// Pieces of the HLO text printer shared by its files: value syntaxes (int
// lists, strings, literals, shardings) and the per-opcode attribute text.
// Internal to xlite/text; users call printer.h.
#ifndef XLITE_TEXT_PRINTER_INTERNAL_H_
#define XLITE_TEXT_PRINTER_INTERNAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/types/span.h"
#include "xlite/ir/instruction.h"
#include "xlite/ir/literal.h"
#include "xlite/ir/sharding.h"

namespace xlite::printer_internal {

void AppendInt(int64_t v, std::string* out);
// `1,2,3` (no braces).
void AppendIntsJoined(absl::Span<const int64_t> values, std::string* out);
// `<=[4]` or `<=[2,2]T(1,0)`: an iota device list (tile assignments and
// replica groups); the transpose is written only for a multi-dim reshape.
void AppendIotaDevices(absl::Span<const int64_t> reshape, absl::Span<const int64_t> perm,
                       std::string* out);
// `'a'` (or `a` when not `quoted`) and `mesh['a'=2,'b'=4]`.
void AppendMeshAxisName(std::string_view name, bool quoted, std::string* out);
void AppendMeshAxes(const std::vector<MeshAxis>& axes, bool quoted, std::string* out);
// `'x'` or `'x':(2)4`, and a whole mesh: `mesh['a'=2,'b'=4], device_ids=(...)`
// or `maximal_mesh[device_id=N]`.
void AppendMeshAxisRef(const Mesh& mesh, const MeshAxisRef& ref, std::string* out);
void AppendMesh(const Mesh& mesh, std::string* out);
// `{1,2,3}`
void AppendIntList(absl::Span<const int64_t> values, std::string* out);
// `"..."` with C escapes.
void AppendQuoted(std::string_view text, std::string* out);
// Shortest decimal that reads back to the same value of `type` (a float type).
void AppendFloat(double value, PrimitiveType type, std::string* out);
// `name`, with `%` in front when `percent` is set or the bare word would
// read back as something else (a number, inf/nan, an element type, a
// keyword such as ROOT).
void AppendName(std::string_view name, bool percent, std::string* out);
// `{}`, `{1}`, `{0,2}`.
void AppendShapeIndex(absl::Span<const int64_t> index, std::string* out);

void AppendLiteralText(const Literal& literal, std::string* out);
// A custom-call `literal=` value: `shape value`, a tuple as XLA writes it,
// `( shape value, shape value )`.
void AppendShapedLiteralText(const Literal& literal, std::string* out);
void AppendShardingText(const HloSharding& sharding, std::string* out);
void AppendMetadataText(const OpMetadata& metadata, std::string* out);
// `{k="v",...}`
void AppendFrontendAttributesText(const FrontendAttributes& attrs, std::string* out);

// `, attr=value` for every attribute of the instruction's own record, its
// dimensions and its called computations, in XLA's order.
void AppendOpAttributes(const HloInstruction& inst, bool percent, std::string* out);

}  // namespace xlite::printer_internal

#endif  // XLITE_TEXT_PRINTER_INTERNAL_H_
