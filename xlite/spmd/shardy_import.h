// Shardy import: turns what JAX 0.10 (Shardy) writes into the GSPMD form
// propagation and the partitioner read. `xla.sdy.sharding` frontend
// attributes (over the module's `xla.sdy.meshes`) become the instructions'
// shardings, with their open dims kept free for propagation (the Shardy
// annotation wins over an HLO `sharding=` written beside it);
// `xla.sdy.FuncResultSharding` becomes a `Sharding` constraint; each
// shard_map (`xla.sdy.GlobalToLocalShape` -> call of
// `xla.sdy.manual_computation_body` -> `xla.sdy.LocalToGlobalShape`) becomes
// Sharding + SPMDFullToShardShape, the body inlined, and Sharding +
// SPMDShardToFullShape, fully or partially manual over its manual axes (plus
// those of the shard_maps around it).
#ifndef XLITE_SPMD_SHARDY_IMPORT_H_
#define XLITE_SPMD_SHARDY_IMPORT_H_

#include "absl/status/statusor.h"
#include "xlite/ir/module.h"

namespace xlite::spmd {

// True when the module changed. A module without `xla.sdy.*` annotations is
// left as it is; running it twice changes nothing the second time.
absl::StatusOr<bool> ImportShardy(HloModule& module);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_SHARDY_IMPORT_H_
