// gather and scatter: every dimension-number rule (sorted, unique, in range,
// disjoint; batching dimensions; index_vector_dim == rank meaning an implicit
// trailing index vector of size 1) and the result shapes.
#include <algorithm>
#include <numeric>

#include "xlite/inference/shape_inference_internal.h"

namespace xlite::inference {
namespace {

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

absl::Status Disjoint(absl::Span<const int64_t> a, absl::string_view a_name,
                      absl::Span<const int64_t> b, absl::string_view b_name) {
  for (int64_t x : a) {
    if (Contains(b, x)) {
      return InvalidArgument(a_name, " and ", b_name, " share dimension ", x);
    }
  }
  return absl::OkStatus();
}

// Checks the indices operand and returns the size of its index vector.
absl::StatusOr<int64_t> IndexVectorSize(const Shape& indices, int64_t index_vector_dim) {
  XLITE_RETURN_IF_ERROR(ExpectArray(indices, "indices"));
  if (!IsInteger(indices.element_type())) {
    return InvalidArgument("indices must be integers, got ", Str(indices));
  }
  if (index_vector_dim < 0 || index_vector_dim > indices.rank()) {
    return InvalidArgument("index_vector_dim ", index_vector_dim, " is out of range [0, ",
                           indices.rank(), "] for ", Str(indices));
  }
  return index_vector_dim == indices.rank() ? 1 : indices.dimensions(index_vector_dim);
}

// The indices' batch dimensions (all but index_vector_dim), in order.
DimVector IndexBatchDims(const Shape& indices, int64_t index_vector_dim) {
  DimVector dims;
  for (int64_t i = 0; i < indices.rank(); ++i) {
    if (i != index_vector_dim) dims.push_back(indices.dimensions(i));
  }
  return dims;
}

absl::Status CheckIndicesBatchingDims(absl::Span<const int64_t> dims, const Shape& indices,
                                      int64_t index_vector_dim, size_t operand_batching_count) {
  XLITE_RETURN_IF_ERROR(CheckDimensionList(dims, indices.rank(), "indices batching dims", false));
  if (Contains(dims, index_vector_dim)) {
    return InvalidArgument("indices batching dims must not contain index_vector_dim ",
                           index_vector_dim);
  }
  if (dims.size() != operand_batching_count) {
    return InvalidArgument("operand and indices batching dims must have equal counts, got ",
                           operand_batching_count, " and ", dims.size());
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferGather(const HloInstruction& inst) {
  const Shape& operand = OperandShape(inst, 0);
  const Shape& indices = OperandShape(inst, 1);
  const auto& a = inst.attrs<GatherAttrs>();
  const GatherDimensions& d = a.dims;
  XLITE_RETURN_IF_ERROR(ExpectArray(operand, "gather operand"));
  XLITE_ASSIGN_OR_RETURN(int64_t index_size, IndexVectorSize(indices, d.index_vector_dim));
  DimVector batch = IndexBatchDims(indices, d.index_vector_dim);
  int64_t out_rank = static_cast<int64_t>(d.offset_dims.size() + batch.size());
  int64_t rank = operand.rank();
  XLITE_RETURN_IF_ERROR(CheckDimensionList(d.offset_dims, out_rank, "offset_dims", true));
  XLITE_RETURN_IF_ERROR(
      CheckDimensionList(d.collapsed_slice_dims, rank, "collapsed_slice_dims", true));
  XLITE_RETURN_IF_ERROR(
      CheckDimensionList(d.operand_batching_dims, rank, "operand_batching_dims", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionList(d.start_index_map, rank, "start_index_map", false));
  XLITE_RETURN_IF_ERROR(Disjoint(d.collapsed_slice_dims, "collapsed_slice_dims",
                                 d.operand_batching_dims, "operand_batching_dims"));
  XLITE_RETURN_IF_ERROR(Disjoint(d.start_index_map, "start_index_map", d.operand_batching_dims,
                                 "operand_batching_dims"));
  XLITE_RETURN_IF_ERROR(CheckIndicesBatchingDims(
      d.start_indices_batching_dims, indices, d.index_vector_dim, d.operand_batching_dims.size()));
  if (static_cast<int64_t>(d.start_index_map.size()) != index_size) {
    return InvalidArgument("start_index_map has ", d.start_index_map.size(),
                           " entries but the index vector has ", index_size);
  }
  if (static_cast<int64_t>(d.offset_dims.size() + d.collapsed_slice_dims.size() +
                           d.operand_batching_dims.size()) != rank) {
    return InvalidArgument(
        "offset_dims, collapsed_slice_dims and operand_batching_dims must "
        "together cover the ",
        rank, " operand dimensions");
  }
  if (static_cast<int64_t>(a.slice_sizes.size()) != rank) {
    return InvalidArgument("slice_sizes {", ListStr(a.slice_sizes),
                           "} must have one entry per dimension of ", Str(operand));
  }
  for (int64_t i = 0; i < rank; ++i) {
    int64_t s = a.slice_sizes[i];
    if (s < 0 || s > operand.dimensions(i)) {
      return InvalidArgument("slice size ", s, " of dimension ", i, " exceeds ", Str(operand));
    }
    if ((Contains(d.collapsed_slice_dims, i) || Contains(d.operand_batching_dims, i)) && s > 1) {
      return InvalidArgument("collapsed or batching dimension ", i,
                             " must have slice size "
                             "at most 1, got ",
                             s);
    }
  }
  DimVector dims(out_rank);
  size_t next_batch = 0;
  int64_t next_slice = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (Contains(d.offset_dims, i)) {
      while (Contains(d.collapsed_slice_dims, next_slice) ||
             Contains(d.operand_batching_dims, next_slice)) {
        ++next_slice;
      }
      dims[i] = a.slice_sizes[next_slice++];
    } else {
      dims[i] = batch[next_batch++];
    }
  }
  return Shape(operand.element_type(), dims);
}

absl::StatusOr<Shape> InferScatter(const HloInstruction& inst) {
  int64_t n = inst.operand_count();
  if (n < 3 || n % 2 == 0) {
    return InvalidArgument("scatter needs N operands, indices and N updates, got ", n, " operands");
  }
  int64_t count = (n - 1) / 2;
  const Shape& operand = OperandShape(inst, 0);
  const Shape& indices = OperandShape(inst, count);
  const ScatterDimensions& d = inst.attrs<ScatterAttrs>().dims;
  XLITE_ASSIGN_OR_RETURN(int64_t index_size, IndexVectorSize(indices, d.index_vector_dim));
  DimVector batch = IndexBatchDims(indices, d.index_vector_dim);
  std::vector<Shape> results, scalars;
  for (int64_t k = 0; k < count; ++k) {
    const Shape& op = OperandShape(inst, k);
    const Shape& updates = OperandShape(inst, count + 1 + k);
    XLITE_RETURN_IF_ERROR(ExpectArray(op, "scatter operand"));
    XLITE_RETURN_IF_ERROR(ExpectArray(updates, "scatter updates"));
    if (!CompatibleDimensions(op, operand)) {
      return InvalidArgument("scatter operands must have identical dimensions, got ", Str(operand),
                             " and ", Str(op));
    }
    if (updates.element_type() != op.element_type()) {
      return InvalidArgument("scatter updates ", Str(updates), " must have the element type of ",
                             Str(op));
    }
    if (k > 0 && !CompatibleDimensions(updates, OperandShape(inst, count + 1))) {
      return InvalidArgument("scatter updates must have identical dimensions");
    }
    results.push_back(op);
    scalars.push_back(Shape::Scalar(op.element_type()));
  }
  const Shape& updates = OperandShape(inst, count + 1);
  int64_t rank = operand.rank();
  XLITE_RETURN_IF_ERROR(
      CheckDimensionList(d.update_window_dims, updates.rank(), "update_window_dims", true));
  XLITE_RETURN_IF_ERROR(
      CheckDimensionList(d.inserted_window_dims, rank, "inserted_window_dims", true));
  XLITE_RETURN_IF_ERROR(
      CheckDimensionList(d.input_batching_dims, rank, "input_batching_dims", true));
  XLITE_RETURN_IF_ERROR(CheckDimensionList(d.scatter_dims_to_operand_dims, rank,
                                           "scatter_dims_to_operand_dims", false));
  XLITE_RETURN_IF_ERROR(Disjoint(d.inserted_window_dims, "inserted_window_dims",
                                 d.input_batching_dims, "input_batching_dims"));
  XLITE_RETURN_IF_ERROR(Disjoint(d.scatter_dims_to_operand_dims, "scatter_dims_to_operand_dims",
                                 d.input_batching_dims, "input_batching_dims"));
  XLITE_RETURN_IF_ERROR(CheckIndicesBatchingDims(d.scatter_indices_batching_dims, indices,
                                                 d.index_vector_dim, d.input_batching_dims.size()));
  if (static_cast<int64_t>(d.scatter_dims_to_operand_dims.size()) != index_size) {
    return InvalidArgument("scatter_dims_to_operand_dims has ",
                           d.scatter_dims_to_operand_dims.size(),
                           " entries but the index vector has ", index_size);
  }
  if (static_cast<int64_t>(d.update_window_dims.size() + d.inserted_window_dims.size() +
                           d.input_batching_dims.size()) != rank) {
    return InvalidArgument(
        "update_window_dims, inserted_window_dims and input_batching_dims "
        "must together cover the ",
        rank, " operand dimensions");
  }
  if (updates.rank() != static_cast<int64_t>(d.update_window_dims.size() + batch.size())) {
    return InvalidArgument("updates ", Str(updates), " must have rank ",
                           d.update_window_dims.size() + batch.size());
  }
  int64_t operand_dim = 0;
  size_t next_batch = 0;
  for (int64_t i = 0; i < updates.rank(); ++i) {
    if (Contains(d.update_window_dims, i)) {
      while (Contains(d.inserted_window_dims, operand_dim) ||
             Contains(d.input_batching_dims, operand_dim)) {
        ++operand_dim;
      }
      if (updates.dimensions(i) > operand.dimensions(operand_dim)) {
        return InvalidArgument("update window dimension ", i, " of ", Str(updates),
                               " exceeds operand dimension ", operand_dim, " of ", Str(operand));
      }
      ++operand_dim;
    } else if (updates.dimensions(i) != batch[next_batch++]) {
      return InvalidArgument("update scatter dimension ", i, " of ", Str(updates),
                             " must match the indices ", Str(indices));
    }
  }
  XLITE_ASSIGN_OR_RETURN(const HloComputation* comp, Called(inst, 0, "to_apply"));
  std::vector<Shape> params = scalars;
  params.insert(params.end(), scalars.begin(), scalars.end());
  Shape result = MaybeTuple(scalars);
  // As XLA, the update computation may compute in another float precision
  // (bf16 data, an f32 adder).
  std::vector<int64_t> all(params.size());
  std::iota(all.begin(), all.end(), 0);
  XLITE_RETURN_IF_ERROR(CheckSignature(comp, "scatter", params, &result, all, /*fp_result=*/true));
  return MaybeTuple(std::move(results));
}

}  // namespace

absl::StatusOr<Shape> InferGatherScatter(const HloInstruction& inst) {
  if (inst.opcode() == HloOpcode::kGather) return InferGather(inst);
  return InferScatter(inst);
}

}  // namespace xlite::inference
