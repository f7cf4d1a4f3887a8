// gather, and the index-vector mapping gather and scatter share. A gather is
// one dynamic-slice per index vector: its start clamped into the operand,
// the slice copied (collapsed and batching dims dropped) to the output
// position of that index vector.
#include <algorithm>

#include "xlite/base/status.h"
#include "xlite/eval/array_copy.h"
#include "xlite/eval/data_movement_internal.h"
#include "xlite/eval/gather_scatter_internal.h"
#include "xlite/eval/index_util.h"

namespace xlite::eval {

absl::StatusOr<IndexMapping> IndexMapping::Make(const Literal& indices, int64_t index_vector_dim,
                                                absl::Span<const int64_t> index_to_operand,
                                                absl::Span<const int64_t> operand_batching_dims,
                                                absl::Span<const int64_t> indices_batching_dims,
                                                int64_t operand_rank) {
  const Shape& shape = indices.shape();
  int64_t rank = shape.rank();
  if (index_vector_dim < 0 || index_vector_dim > rank) {
    return InvalidArgument("index_vector_dim ", index_vector_dim, " is out of range for ",
                           shape.ToString());
  }
  int64_t vector_size = index_vector_dim == rank ? 1 : shape.dimensions(index_vector_dim);
  if (static_cast<int64_t>(index_to_operand.size()) != vector_size ||
      operand_batching_dims.size() != indices_batching_dims.size()) {
    return InvalidArgument("the index vectors of ", shape.ToString(),
                           " do not match the dimension numbers");
  }
  IndexMapping m;
  XLITE_ASSIGN_OR_RETURN(m.values_, IndexValues(indices));
  std::vector<int64_t> strides = StridesOf(shape);
  std::vector<int64_t> position_of(rank, -1);  // indices dim -> batch position
  for (int64_t d = 0; d < rank; ++d) {
    if (d == index_vector_dim) continue;
    position_of[d] = static_cast<int64_t>(m.batch_sizes_.size());
    m.batch_sizes_.push_back(shape.dimensions(d));
    m.batch_strides_.push_back(strides[d]);
  }
  m.vector_stride_ = index_vector_dim == rank ? 0 : strides[index_vector_dim];
  for (int64_t k : index_to_operand) {
    if (k < 0 || k >= operand_rank) return InvalidArgument("index maps to dimension ", k);
  }
  m.index_to_operand_.assign(index_to_operand.begin(), index_to_operand.end());
  for (size_t i = 0; i < operand_batching_dims.size(); ++i) {
    int64_t d = indices_batching_dims[i];
    if (d < 0 || d >= rank || position_of[d] < 0 || operand_batching_dims[i] < 0 ||
        operand_batching_dims[i] >= operand_rank) {
      return InvalidArgument("batching dimension pair (", operand_batching_dims[i], ", ", d,
                             ") is out of range");
    }
    m.batching_.emplace_back(operand_batching_dims[i], position_of[d]);
  }
  return m;
}

void IndexMapping::OperandStart(absl::Span<const int64_t> batch, absl::Span<int64_t> start) const {
  std::fill(start.begin(), start.end(), 0);
  int64_t base = LinearIndex(batch, batch_strides_);
  for (size_t i = 0; i < index_to_operand_.size(); ++i) {
    start[index_to_operand_[i]] = values_[base + static_cast<int64_t>(i) * vector_stride_];
  }
  for (const auto& [operand_dim, position] : batching_) start[operand_dim] = batch[position];
}

std::vector<int64_t> DimsNotIn(int64_t rank, absl::Span<const int64_t> a,
                               absl::Span<const int64_t> b) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() &&
        std::find(b.begin(), b.end(), d) == b.end()) {
      dims.push_back(d);
    }
  }
  return dims;
}

namespace {

absl::StatusOr<Literal> Gather(const HloInstruction& inst, Operands ops, EvalContext&) {
  const Literal& x = *ops[0];
  const Shape& shape = inst.shape();
  const auto& attrs = inst.attrs<GatherAttrs>();
  const GatherDimensions& d = attrs.dims;
  int64_t rank = x.shape().rank();
  XLITE_ASSIGN_OR_RETURN(
      IndexMapping mapping,
      IndexMapping::Make(*ops[1], d.index_vector_dim, d.start_index_map, d.operand_batching_dims,
                         d.start_indices_batching_dims, rank));
  // Slice dims kept in the output, in order, pair with offset_dims; the
  // other output dims are the index vectors' batch positions, in order.
  std::vector<int64_t> window_dims =
      DimsNotIn(rank, d.collapsed_slice_dims, d.operand_batching_dims);
  std::vector<int64_t> batch_out_dims = DimsNotIn(shape.rank(), d.offset_dims);
  if (window_dims.size() != d.offset_dims.size() ||
      batch_out_dims.size() != mapping.batch_sizes().size() ||
      static_cast<int64_t>(attrs.slice_sizes.size()) != rank) {
    return InvalidArgument("gather dimension numbers do not match the shapes");
  }
  std::vector<int64_t> x_strides = StridesOf(x.shape()), out_strides = StridesOf(shape);
  std::vector<int64_t> sizes, src, dst;
  for (size_t j = 0; j < window_dims.size(); ++j) {
    sizes.push_back(attrs.slice_sizes[window_dims[j]]);
    src.push_back(x_strides[window_dims[j]]);
    dst.push_back(out_strides[d.offset_dims[j]]);
  }
  Literal out(shape);
  std::vector<int64_t> start(rank);
  ForEachIndex(mapping.batch_sizes(), [&](absl::Span<const int64_t> batch) {
    mapping.OperandStart(batch, absl::MakeSpan(start));
    for (int64_t k : d.start_index_map) {
      int64_t last = std::max<int64_t>(0, x.shape().dimensions(k) - attrs.slice_sizes[k]);
      start[k] = std::clamp<int64_t>(start[k], 0, last);
    }
    int64_t dst_offset = 0;
    for (size_t g = 0; g < batch.size(); ++g) {
      dst_offset += batch[g] * out_strides[batch_out_dims[g]];
    }
    CopyBox(out, x, StridedBox(sizes, dst_offset, dst, LinearIndex(start, x_strides), src));
  });
  return out;
}

}  // namespace

void RegisterGatherScatterOps(OpHandlerTable& table) {
  table.Register(HloOpcode::kGather, Gather);
  RegisterScatterOps(table);
}

}  // namespace xlite::eval
