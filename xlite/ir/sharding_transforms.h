// Sharding transformations over factors: a tensor dim is a list of factors
// (major to minor), and a sharding moves from one tensor to another through
// the factors they share (transpose, reshape split/merge, dropped or added
// dims, partial replication); plus the merge of two compatible shardings.
// Sharding propagation (xlite/spmd) expresses every op through these.
#ifndef XLITE_IR_SHARDING_TRANSFORMS_H_
#define XLITE_IR_SHARDING_TRANSFORMS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "xlite/ir/sharding.h"

namespace xlite {

// How two tensors' dims are built from shared factors. `factor_sizes[f]` is
// the size of factor f; it matters only in dims made of several factors
// (reshape), where a dim's tiles must split exactly over its factors.
struct FactorMapping {
  std::vector<int64_t> factor_sizes;
  std::vector<std::vector<int64_t>> source_dims;  // per source dim: factor ids
  std::vector<std::vector<int64_t>> target_dims;  // per target dim: factor ids
};

// The sharding of the target tensor implied by `source` on the source
// tensor: a factor's tiles carry over; tiles of factors the target lacks (or
// cannot represent, e.g. an uneven split merged into a larger dim) become
// partial replication; replicated and manual subgroups are kept. Untiled
// shardings (replicated, manual, maximal) are returned as they are. Result
// in normal form (HloSharding::Normalized).
HloSharding ProjectSharding(const HloSharding& source, const FactorMapping& mapping);

// Target dim k is source dim perm[k].
HloSharding TransposeSharding(const HloSharding& sharding, absl::Span<const int64_t> perm);
// The sharding of a reverse's result from its operand's (and back): the tile
// order flips along the reversed `dims` (XLA's ReverseSharding), so a device
// holds the mirror of the shard it held. Exact when the dims divide evenly.
HloSharding ReverseTileOrder(const HloSharding& sharding, absl::Span<const int64_t> dims);
// The tiles of `dims` become replication (XLA's
// PartiallyReplicateTiledShardingOnDims).
HloSharding PartiallyReplicateDims(const HloSharding& sharding, absl::Span<const int64_t> dims);
// Replicates every data dim except `keep` (subgroups kept).
HloSharding PartiallyReplicateAllDimsExcept(const HloSharding& sharding,
                                            absl::Span<const int64_t> keep);
// Removes data `dims` (their tiles become replication) / inserts untiled
// data dims at the sorted result positions `dims`.
HloSharding RemoveDims(const HloSharding& sharding, absl::Span<const int64_t> dims);
HloSharding InsertDims(const HloSharding& sharding, absl::Span<const int64_t> dims);

// Factors shared by a reshape from `from` to `to` dims: equal-size pieces
// found by gcd splits; pieces that do not line up are factors of one side
// only.
FactorMapping ReshapeFactors(absl::Span<const int64_t> from, absl::Span<const int64_t> to);
// The sharding of a reshape's result from its operand's (or the reverse).
HloSharding ReshapeSharding(const HloSharding& sharding, absl::Span<const int64_t> from,
                            absl::Span<const int64_t> to);

// Both shardings at once, when they agree (XLA's MergeShardingIfCompatible):
// per data dim equal tiles or one side 1, every device's tile the same on
// both sides where both split, the same manual groups. nullopt otherwise.
std::optional<HloSharding> MergeShardings(const HloSharding& a, const HloSharding& b);

// XLA's IsShardingMoreSpecific: more data tiles, or tiled over untiled, or a
// device over replicated; manual is never more specific; tuples element-wise.
bool IsMoreSpecific(const HloSharding& a, const HloSharding& b);

}  // namespace xlite

#endif  // XLITE_IR_SHARDING_TRANSFORMS_H_
