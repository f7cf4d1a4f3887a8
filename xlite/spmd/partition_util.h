// Sharding arithmetic the SPMD partitioner needs beyond ir/sharding: the
// per-device tile ranges of a value, shard shapes of arrays and tuples,
// leaf shardings, and the device groups collectives run over (the devices
// that differ only along some tile dims).
#ifndef XLITE_SPMD_PARTITION_UTIL_H_
#define XLITE_SPMD_PARTITION_UTIL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "xlite/ir/shape.h"
#include "xlite/ir/sharding.h"

namespace xlite::spmd {

// The sharding as the partitioner reads it: maximal (device placement) and
// unknown become replicated (every device computes the value), replicated
// tiled forms become Replicated(); tuples element-wise; normal form.
HloSharding ForPartitioning(const HloSharding& sharding);

// Tiled with at least one data dim split in more than one tile.
bool IsSplit(const HloSharding& sharding);

// Tiles along data dim `dim` (1 when not tiled).
int64_t TilesAlong(const HloSharding& sharding, int64_t dim);

// The per-device array of a value of `global` shape under `sharding`: the
// padded tile (ceil division) for tiled shardings, the whole shape otherwise.
Shape ShardShape(const Shape& global, const HloSharding& sharding);

// One sharding per array/token leaf of `shape` (a non-tuple sharding of a
// tuple applies to every leaf).
std::vector<HloSharding> LeafShardings(const HloSharding& sharding, const Shape& shape);
// The sharding of tuple element `index` of `shape`.
HloSharding ElementSharding(const HloSharding& sharding, const Shape& shape, int64_t index);
// A sharding for a tuple of `elements` (each the sharding of one element).
HloSharding TupleShardingOf(const std::vector<HloSharding>& elements,
                            const std::vector<Shape>& element_shapes);

// The padded tile of `device` along `dim`: [start, start + size) with size =
// ceil(dim / tiles); start may lie at or past the dim's end (an empty tile).
struct TileRange {
  int64_t start = 0;
  int64_t size = 0;
};
TileRange TileRangeOf(const HloSharding& sharding, const Shape& global, int64_t dim,
                      int64_t device);

// Index of `device` in the full tile array (data and subgroup dims); empty
// when the sharding is not tiled or the device is absent.
std::vector<int64_t> TileIndexOf(const HloSharding& sharding, int64_t device);

// Groups of devices that share every tile-array index except those of
// `dims` (data dims): within a group, devices ordered row-major by their
// indices along `dims`; groups ordered by the shared indices. Covers devices
// [0, num_devices). A sharding that is not tiled gives singleton groups.
std::vector<std::vector<int64_t>> GroupsAlong(const HloSharding& sharding,
                                              absl::Span<const int64_t> dims, int64_t num_devices);

// The sharding of the full value whose shards are the tiles of `local` under
// the partially manual `manual` (a SPMDFullToShardShape / ShardToFullShape
// pair): the manual subgroup moved into the data dims `local` is smaller in,
// major within each and in dim order. nullopt when the shapes do not say
// how (no manual subgroup, sizes that do not divide).
std::optional<HloSharding> FullSideOfManual(const HloSharding& manual, const Shape& full,
                                            const Shape& local);

// Per device, a label of its manual group: devices that share their
// coordinates along the manual subgroup dims share a label (labels numbered
// by first device). All zero when the sharding has no manual subgroup.
std::vector<int64_t> ManualGroupLabels(const HloSharding& sharding, int64_t num_devices);

// The sharding a value sharded `from` takes to serve a consumer that asks
// for `to`: inside a partially manual region (`from` has manual subgroups),
// replicated means replicated within each manual group. nullopt when the
// two split the devices into different manual groups (a replicated `from`
// reaches any of them by a local slice).
std::optional<HloSharding> ReachableInManualGroups(const HloSharding& from, const HloSharding& to,
                                                   int64_t num_devices);

// Replicated, leaf by leaf for tuples.
HloSharding ReplicatedLike(const Shape& shape);

// True when every group has one member (a collective over them is a no-op).
bool AllSingletons(const std::vector<std::vector<int64_t>>& groups);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_PARTITION_UTIL_H_
