// Shardy's attribute syntax as JAX 0.10 writes it into HLO frontend
// attributes: the module's `xla.sdy.meshes` dictionary (`{mesh =
// #sdy.mesh<["x"=2, "y"=4]>}`), `#sdy.sharding<@mesh, [{"x"}, {?}]>` and
// `#sdy.sharding_per_value<[...]>`, and `#sdy<manual_axes{"x"}>`, read into
// the IR's NamedSharding (open dims kept; dim priorities `pN` are read and
// dropped: xlite's propagation has no priorities).
#ifndef XLITE_SPMD_SHARDY_SYNTAX_H_
#define XLITE_SPMD_SHARDY_SYNTAX_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/ir/named_sharding.h"

namespace xlite::spmd {

using SdyMeshes = std::map<std::string, Mesh, std::less<>>;

// The meshes of an `xla.sdy.meshes` value, by name.
absl::StatusOr<SdyMeshes> ParseSdyMeshes(std::string_view text);

// One sharding per value: `#sdy.sharding<...>` gives one,
// `#sdy.sharding_per_value<[<...>, ...]>` one per listed value. Mesh names
// are looked up in `meshes`; an unknown one is an error.
absl::StatusOr<std::vector<NamedSharding>> ParseSdyShardings(std::string_view text,
                                                             const SdyMeshes& meshes);

// The axis names of `#sdy<manual_axes{"x", "y"}>`.
absl::StatusOr<std::vector<std::string>> ParseSdyManualAxes(std::string_view text);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_SHARDY_SYNTAX_H_
