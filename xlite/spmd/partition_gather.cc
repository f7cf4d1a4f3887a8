// Vocabulary-parallel gather, as XLA partitions an operand split along the
// dims a gather indexes with slice size 1: instead of gathering the
// operand, each device looks the (clamped) indices up in its own shard,
// shifted by the shard's offset, zeroes the rows it does not hold, and one
// all-reduce (add) over the split dims sums the pieces. Chosen when the
// result moves fewer bytes than gathering the operand would.
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "xlite/ir/sharding_transforms.h"
#include "xlite/spmd/partition_util.h"
#include "xlite/spmd/partitioner_internal.h"

namespace xlite::spmd {
namespace {

// One split operand dim the gather indexes: its index component and the
// per-partition start and size of the local shard along it.
struct IndexedDim {
  int64_t dim = 0;
  int64_t component = 0;
  std::vector<int64_t> starts;
  int64_t size = 0;
};

std::optional<std::vector<IndexedDim>> IndexedSplitDims(const HloInstruction& inst,
                                                        const HloSharding& sharding,
                                                        int64_t partitions) {
  const GatherAttrs& a = inst.attrs<GatherAttrs>();
  const GatherDimensions& dn = a.dims;
  const Shape& in = inst.operand(0)->shape();
  std::vector<IndexedDim> dims;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (TilesAlong(sharding, d) <= 1) continue;
    auto at = std::find(dn.start_index_map.begin(), dn.start_index_map.end(), d);
    const bool batching =
        std::find(dn.operand_batching_dims.begin(), dn.operand_batching_dims.end(), d) !=
        dn.operand_batching_dims.end();
    if (a.slice_sizes[d] != 1 || at == dn.start_index_map.end() || batching) return std::nullopt;
    IndexedDim x{d, at - dn.start_index_map.begin(), {}, ShardShape(in, sharding).dimensions(d)};
    for (int64_t p = 0; p < partitions; ++p) {
      x.starts.push_back(TileRangeOf(sharding, in, d, p).start);
    }
    dims.push_back(std::move(x));
  }
  if (dims.empty()) return std::nullopt;
  return dims;
}

}  // namespace

std::optional<absl::StatusOr<PValue>> PartitionGatherByMasking(const HloInstruction& inst,
                                                               PartitionState& s) {
  const PValue& operand = s.Value(inst.operand(0));
  const PrimitiveType type = inst.shape().element_type();
  const Shape& index_shape = inst.operand(1)->shape();
  if (!inst.shape().IsArray() || type == PrimitiveType::PRED || !IsSplit(operand.sharding) ||
      operand.sharding.IsManualSubgroup() || !IsInteger(index_shape.element_type())) {
    return std::nullopt;
  }
  std::optional<std::vector<IndexedDim>> dims =
      IndexedSplitDims(inst, operand.sharding, s.num_partitions());
  if (!dims) return std::nullopt;
  std::vector<int64_t> split;
  for (const IndexedDim& d : *dims) split.push_back(d.dim);
  const HloSharding whole = ForPartitioning(PartiallyReplicateDims(operand.sharding, split));
  if (IsSplit(whole)) return std::nullopt;  // other split dims: the rule-based handler
  if (inst.shape().ByteSizeOf() >= s.ReshardBytes(operand, whole)) return std::nullopt;

  absl::StatusOr<HloInstruction*> indices =
      s.OperandAs(inst, 1, HloSharding::Replicated(), "gather indices");
  if (!indices.ok()) return absl::StatusOr<PValue>(indices.status());
  PartitionBuilder& b = s.b();
  InstructionMaker& m = b.maker();
  HloComputation& c = s.c();
  const int64_t vector_dim = inst.attrs<GatherAttrs>().dims.index_vector_dim;
  const bool implicit = vector_dim == index_shape.rank();
  // The indices without their vector dim (one per looked-up row).
  Shape row_shape = index_shape;
  std::vector<int64_t> row_dims;
  for (int64_t d = 0; d < index_shape.rank(); ++d) {
    if (d != vector_dim) row_dims.push_back(index_shape.dimensions(d));
  }
  row_shape.set_dimensions(row_dims);
  row_shape.clear_layout();
  std::vector<int64_t> row_to_index;
  for (int64_t d = 0; d < index_shape.rank(); ++d) {
    if (d != vector_dim) row_to_index.push_back(d);
  }
  const PrimitiveType itype = index_shape.element_type();
  HloInstruction* shifted = *indices;
  HloInstruction* held = nullptr;
  for (const IndexedDim& d : *dims) {
    HloInstruction* component = *indices;
    if (!implicit) {
      auto attrs = std::make_unique<SliceAttrs>();
      for (int64_t e = 0; e < index_shape.rank(); ++e) {
        attrs->starts.push_back(e == vector_dim ? d.component : 0);
        attrs->limits.push_back(e == vector_dim ? d.component + 1 : index_shape.dimensions(e));
        attrs->strides.push_back(1);
      }
      Shape one = index_shape;
      one.set_dimension(vector_dim, 1);
      one.clear_layout();
      component =
          m.Reshape(c, m.Add(c, HloOpcode::kSlice, one, {component}, std::move(attrs)), row_shape);
    }
    // XLA clamps a start index into the operand; then it names one shard.
    const int64_t limit = inst.operand(0)->shape().dimensions(d.dim) - 1;
    HloInstruction* clamped = m.Add(
        c, HloOpcode::kClamp, row_shape,
        {m.Splat(c, row_shape, 0), component, m.Splat(c, row_shape, static_cast<double>(limit))});
    HloInstruction* start =
        m.Broadcast(c, m.Convert(c, b.Offset(c, d.starts), itype), row_shape, {});
    HloInstruction* end =
        m.Binary(c, HloOpcode::kAdd, start, m.Splat(c, row_shape, static_cast<double>(d.size)));
    HloInstruction* inside =
        m.Binary(c, HloOpcode::kAnd, m.Compare(c, clamped, start, ComparisonDirection::kGe),
                 m.Compare(c, clamped, end, ComparisonDirection::kLt));
    held = held == nullptr ? inside : m.Binary(c, HloOpcode::kAnd, held, inside);
    HloInstruction* local_index = m.Binary(c, HloOpcode::kSubtract, clamped, start);
    if (implicit) {
      shifted = local_index;
      continue;
    }
    // Put the local index into component `d.component` of every vector.
    Shape iota_shape = index_shape;
    iota_shape.set_element_type(PrimitiveType::S32);
    auto iota_attrs = std::make_unique<IntAttrs>();
    iota_attrs->value = vector_dim;
    HloInstruction* iota = m.Add(c, HloOpcode::kIota, iota_shape, {}, std::move(iota_attrs));
    HloInstruction* here =
        m.Compare(c, iota, m.Splat(c, iota_shape, static_cast<double>(d.component)),
                  ComparisonDirection::kEq);
    shifted = m.Select(c, here, m.Broadcast(c, local_index, index_shape, row_to_index), shifted);
  }
  HloInstruction* gathered = s.Clone(inst, {operand.local, shifted}, inst.shape());
  // Result dims that are not offset dims follow the index rows in order.
  const std::vector<int64_t>& offset_dims = inst.attrs<GatherAttrs>().dims.offset_dims;
  std::vector<int64_t> row_dims_in_result;
  for (int64_t d = 0; d < inst.shape().rank(); ++d) {
    if (std::find(offset_dims.begin(), offset_dims.end(), d) == offset_dims.end()) {
      row_dims_in_result.push_back(d);
    }
  }
  Shape pred_result = inst.shape();
  pred_result.set_element_type(PrimitiveType::PRED);
  HloInstruction* keep = m.Broadcast(c, held, pred_result, row_dims_in_result);
  HloInstruction* masked = m.Select(c, keep, gathered, m.Splat(c, inst.shape(), 0));
  const HloSharding replicated = HloSharding::Replicated();
  Cause cause{inst.operand(0), operand.sharding, &inst, replicated,
              "gather looked up in each shard (split indexed dims)"};
  HloInstruction* summed =
      b.AllReduce(c, masked, GroupsAlong(operand.sharding, split, s.num_partitions()),
                  b.Reducer(ReductionKind::kAdd, type), cause);
  return absl::StatusOr<PValue>(PValue{summed, replicated, inst.shape()});
}

}  // namespace xlite::spmd
