// Halo exchange for ops whose result tile reads a window of the input that
// reaches into neighbouring tiles (pad, slice, reduce-window, convolution,
// select-and-scatter), as XLA's partitioner does: each device receives the
// edges of its neighbour tiles (as many tiles away as the window reaches)
// by collective-permute, joins them to its own tile and cuts out the window
// its result tile needs at a per-partition offset.
#ifndef XLITE_SPMD_PARTITION_HALO_H_
#define XLITE_SPMD_PARTITION_HALO_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "xlite/ir/attributes.h"
#include "xlite/spmd/partitioner_internal.h"

namespace xlite::spmd {

// Size 1, stride 1, no padding, dilation or reversal: the op is
// elementwise along the dim.
bool IsTrivialWindow(const WindowDimension& w);

// The input positions [begin, end) some results read; empty when begin >= end.
struct Reach {
  int64_t begin = 0, end = 0;
};

// One split dim of a windowed op, per tile index along `dim`: the window of
// `span` input positions the tile's results are computed from starts at
// begin[t]; reach[t] is what its real results (not the padding of an uneven
// last tile) read, empty for tiles that hold only padding. The input has
// `input` valid positions held in tiles of `input_tile`.
struct DimWindow {
  int64_t dim = 0;
  int64_t input = 0;
  int64_t input_tile = 0;
  int64_t span = 0;
  std::vector<int64_t> begin;
  std::vector<Reach> reach;
};

// The window of an op whose result position r reads the input positions
// [r * stride + offset, r * stride + offset + extent), over `tiles` tiles
// of a result of `result` positions.
DimWindow StridedWindow(int64_t dim, int64_t tiles, int64_t input, int64_t result, int64_t stride,
                        int64_t offset, int64_t extent);

// Where the window of `w` starts in the input, per partition under
// `sharding` (its tile index along w.dim picks it).
std::vector<int64_t> WindowStarts(const DimWindow& w, const HloSharding& sharding,
                                  int64_t partitions);

// True when some reach covers positions outside [0, input) (they must be
// set to the op's padding value).
bool WindowLeavesInput(const DimWindow& w);

// `local` (the input split along w.dim under `sharding`, tiles of
// w.input_tile) turned into this partition's window along w.dim (w.span
// positions): neighbour edges by collective-permute, as many tiles away as
// the reaches need, zero filler where a window passes the ends. Positions
// outside the reaches or the input hold unspecified values.
HloInstruction* ExchangeHalo(PartitionState& s, const HloSharding& sharding, HloInstruction* local,
                             const DimWindow& w, const Cause& cause);

// The window of a windowed op (reduce-window, convolution lhs) on one split
// dim: the input dim, its index in the op's window, its global size, the
// global result size, the window.
struct WindowedDim {
  int64_t dim = 0;
  int64_t window_index = 0;
  int64_t input = 0;
  int64_t result = 0;
  WindowDimension window;
};

// The DimWindow of `dim` under `sharding` once the input is base-dilated
// locally (every tile times base_dilation, the holes after it included).
DimWindow WindowOfDim(const WindowedDim& dim, const HloSharding& sharding);

// `local` (split under `sharding`) as the input of a local op that computes
// this partition's result tile with zero padding and no base dilation on
// every dim of `dims`: base-dilated, halos exchanged, cut, and positions
// outside the input set to `fill` (a scalar of the input's type), which is
// also the value between base-dilated elements.
HloInstruction* WindowedInput(PartitionState& s, const HloSharding& sharding, HloInstruction* local,
                              const std::vector<WindowedDim>& dims, HloInstruction* fill,
                              const Cause& cause);

// True when WindowedInput on `dims` writes `fill` anywhere (base dilation,
// or a window that leaves the input): then `fill` must be the op's
// identity for the result to be exact.
bool WindowedInputNeedsFill(const std::vector<WindowedDim>& dims, const HloSharding& sharding);

// `x` padded along `dim` with the scalar `value`.
HloInstruction* PadDim(PartitionState& s, HloInstruction* x, int64_t dim,
                       const PaddingDimension& padding, HloInstruction* value);

// `size` elements of `x` along `dim` from starts[partition-id] (the whole
// of the other dims).
HloInstruction* CutDim(PartitionState& s, HloInstruction* x, int64_t dim,
                       const std::vector<int64_t>& starts, int64_t size);

// `window` with zero padding and no base dilation on the dims of `dims`.
Window LocalWindow(Window window, const std::vector<WindowedDim>& dims);

// The lhs of convolution `conv` (`local`, split under `sharding`) cut to
// the windows of this partition's result on its split spatial dims, and
// `window` made the local op's; both unchanged when no spatial dim is split
// (partition_windowed.cc).
HloInstruction* ConvolutionInputByHalo(PartitionState& s, const HloInstruction& conv,
                                       const HloSharding& sharding, HloInstruction* local,
                                       Window& window);

// Pad and slice on split dims (partition_halo.cc), for PartitionByHalo.
std::optional<absl::StatusOr<PValue>> PartitionPadOrSliceByHalo(const HloInstruction& inst,
                                                                PartitionState& s);

}  // namespace xlite::spmd

#endif  // XLITE_SPMD_PARTITION_HALO_H_
