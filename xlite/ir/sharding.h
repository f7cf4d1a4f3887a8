// HloSharding: every sharding form of HLO text — replicated, maximal, manual,
// unknown, unreduced, tiled (explicit or iota tile assignment, with
// last_tile_dim_replicate / last_tile_dims subgroups), and tuple — with the
// mapping from devices to tiles. Mesh ("V3") shardings are held in their
// tile-assignment meaning, with the mesh form kept for printing.
#ifndef XLITE_IR_SHARDING_H_
#define XLITE_IR_SHARDING_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/ir/metadata.h"
#include "xlite/ir/shape.h"

namespace xlite {

struct NamedSharding;

// The device array of a tiled sharding: an N-d array of device ids, given
// either explicitly (row-major list) or as iota(prod(reshape)) reshaped to
// `reshape_dims`, transposed by `transpose_perm` and reshaped to `dims`.
class TileAssignment {
 public:
  TileAssignment() = default;
  static TileAssignment Explicit(std::vector<int64_t> dims, std::vector<int64_t> devices);
  static TileAssignment Iota(std::vector<int64_t> dims, std::vector<int64_t> reshape_dims,
                             std::vector<int64_t> transpose_perm);

  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t num_elements() const;  // product of dims
  bool is_iota() const { return is_iota_; }
  const std::vector<int64_t>& reshape_dims() const { return reshape_dims_; }
  const std::vector<int64_t>& transpose_perm() const { return transpose_perm_; }
  const std::vector<int64_t>& explicit_devices() const { return devices_; }

  // Device at a linear (row-major) position of the tile array / all devices in
  // row-major order (materialises iota forms).
  int64_t DeviceAt(int64_t linear_index) const;
  std::vector<int64_t> Devices() const;

  // Same device array, whatever the form it is written in.
  bool operator==(const TileAssignment& other) const;

 private:
  std::vector<int64_t> dims_;
  bool is_iota_ = false;
  std::vector<int64_t> reshape_dims_;
  std::vector<int64_t> transpose_perm_;
  std::vector<int64_t> devices_;
};

// Subgroup kinds of `last_tile_dims={...}` entries.
enum class OpShardingType : uint8_t { kReplicated, kManual, kMaximal, kUnreduced };

// The iota form of `devices` laid out as `dims` when there is one (XLA prints
// that form: `<=[8]`, `<=[2,4]T(1,0)`), else the explicit list.
TileAssignment CanonicalTileAssignment(std::vector<int64_t> dims,
                                       const std::vector<int64_t>& devices);

class HloSharding {
 public:
  enum class Kind : uint8_t {
    kReplicated,
    kMaximal,
    kManual,
    kUnknown,
    kUnreduced,
    kTiled,
    kTuple
  };

  static HloSharding Replicated();
  static HloSharding Manual();
  static HloSharding Unknown();
  static HloSharding Unreduced();
  static HloSharding Maximal(int64_t device);
  static HloSharding Tiled(TileAssignment tiles, bool last_tile_dim_replicate = false,
                           std::vector<OpShardingType> subgroup_types = {});
  static HloSharding Tuple(std::vector<HloSharding> elements);

  Kind kind() const { return kind_; }
  bool IsTuple() const { return kind_ == Kind::kTuple; }
  bool IsTiled() const { return kind_ == Kind::kTiled; }
  int64_t maximal_device() const { return maximal_device_; }
  const TileAssignment& tile_assignment() const { return tiles_; }
  bool replicate_on_last_tile_dim() const { return replicate_on_last_tile_dim_; }
  const std::vector<OpShardingType>& subgroup_types() const { return subgroup_types_; }
  const std::vector<HloSharding>& tuple_elements() const { return tuple_; }
  std::vector<HloSharding>& mutable_tuple_elements() { return tuple_; }

  // Tile-array dims that split data (excludes the replication / subgroup dims).
  int64_t TiledDataRank() const;

  // ---- Semantics (what the partitioner and propagation ask) -------------
  // Every device holds the whole array: kReplicated, or tiled with every data
  // dim 1 and only replicated subgroups.
  bool IsReplicated() const;
  bool IsManual() const { return kind_ == Kind::kManual; }
  // Not split into tiles: replicated, maximal, manual, unknown, unreduced.
  bool IsTileMaximal() const { return kind_ != Kind::kTiled && kind_ != Kind::kTuple; }
  // Tiled with a manual subgroup dim (`last_tile_dims={manual, ...}`).
  bool IsManualSubgroup() const;
  // Tiled with a replicated trailing dim or a replicated subgroup.
  bool HasPartialReplication() const;
  // Number of data tiles: product of the data dims (1 when not tiled).
  int64_t NumTiles() const;
  // The data dims of the tile array (TiledDataRank() of them; empty when not
  // tiled) and the trailing dims by kind: the replication factor (product of
  // replicated trailing dims) and the manual factor.
  std::vector<int64_t> DataTileDims() const;
  int64_t ReplicationFactor() const;
  int64_t ManualFactor() const;
  // Per-dim shard size for an array of `shape`: ceil(dim / tiles). The last
  // shards along a dim may be shorter or empty (see TileBounds).
  std::vector<int64_t> TileShape(const Shape& shape) const;
  // Index of `device` in the tile array (all dims, subgroups included), or
  // nullopt when the sharding is not tiled or the device is absent.
  std::optional<std::vector<int64_t>> TileIndexForDevice(int64_t device) const;
  // Device at a tile-array index (all dims); -1 when out of range.
  int64_t DeviceForTileIndex(absl::Span<const int64_t> index) const;
  // Sets of devices that hold the same data (same data tile and manual
  // group), each in tile-array order, groups ordered by their data tile.
  // Replicated: one group of all `num_devices`; maximal: the one device.
  std::vector<std::vector<int64_t>> ReplicationGroups(int64_t num_devices) const;
  // XLA's canonical form: subgroup dims of size 1 dropped, same-kind
  // subgroups merged, kinds in XLA's order (manual before replicated), a
  // lone replicated subgroup written as last_tile_dim_replicate, all-1 data
  // dims with only replication = Replicated(), with only manual = Manual();
  // tuples element-wise; iota form where the devices have one.
  HloSharding Normalized() const;

  // Shard group (`shard_as N` / `shard_like N`).
  struct ShardGroup {
    bool shard_as = false;  // true: shard_as, false: shard_like
    int64_t id = -1;
    bool operator==(const ShardGroup&) const = default;
  };
  const std::optional<ShardGroup>& shard_group() const { return shard_group_; }
  // A shard group is only written in the tile-assignment form.
  void set_shard_group(ShardGroup g) {
    shard_group_ = g;
    named_.reset();
  }
  void clear_shard_group() { shard_group_.reset(); }
  const std::vector<OpMetadata>& metadata() const { return metadata_; }
  std::vector<OpMetadata>& mutable_metadata() { return metadata_; }

  // The mesh form (named_sharding.h) this sharding was written in, or null:
  // the printer writes it back; every query above answers from the
  // equivalent tile-assignment form. A sharding derived by a transformation
  // has none.
  const NamedSharding* named() const { return named_.get(); }
  void set_named(std::shared_ptr<const NamedSharding> named) { named_ = std::move(named); }

  // The per-dimension [start, limit) of the tile `device` owns for an array
  // of `shape` (the whole shape for replicated/maximal/manual); error when
  // the device does not appear in the tile assignment.
  absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> TileBounds(const Shape& shape,
                                                                      int64_t device) const;

  // Checks the sharding against a shape and a device count: tuple element
  // count equals the leaf count, tile rank fits the shape's rank, device ids
  // in range and unique, maximal device in range. With kAnyDeviceCount (a
  // module that does not say how many devices it has, as XLA's Validate
  // without a count) a tile assignment may name any distinct non-negative
  // devices.
  static constexpr int64_t kAnyDeviceCount = -1;
  absl::Status Validate(const Shape& shape, int64_t num_devices) const;

  // Equality by meaning: both sides Normalized(), the device arrays compared
  // element by element; metadata ignored, shard groups compared.
  bool operator==(const HloSharding& other) const;

 private:
  Kind kind_ = Kind::kReplicated;
  int64_t maximal_device_ = -1;
  TileAssignment tiles_;
  bool replicate_on_last_tile_dim_ = false;
  std::vector<OpShardingType> subgroup_types_;
  std::vector<HloSharding> tuple_;
  std::optional<ShardGroup> shard_group_;
  std::vector<OpMetadata> metadata_;
  std::shared_ptr<const NamedSharding> named_;
};

// The shape an outfeed's sharding describes: as in XLA, a tuple sharding
// covers either the data's leaves alone or the data and the token after it.
Shape OutfeedShardingShape(const HloSharding& sharding, const Shape& data);

// The kinds of a sharding's trailing (non-data) tile dims, one per dim.
std::vector<OpShardingType> TrailingTileTypes(const HloSharding& s);

// Devices of `devices` (row-major over `dims`) with the axes permuted:
// result axis k is source axis perm[k].
std::vector<int64_t> TransposeDevices(const std::vector<int64_t>& devices,
                                      absl::Span<const int64_t> dims,
                                      absl::Span<const int64_t> perm);

// Row-major coordinates of `linear` in an array of `dims`.
std::vector<int64_t> RowMajorCoordinates(int64_t linear, absl::Span<const int64_t> dims);

}  // namespace xlite

#endif  // XLITE_IR_SHARDING_H_
