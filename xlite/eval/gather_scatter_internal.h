// Index-vector bookkeeping shared by gather and scatter: where the index
// vector at each batch position of the indices points into the operand,
// including the batching dimensions that pair operand and indices dims.
#ifndef XLITE_EVAL_GATHER_SCATTER_INTERNAL_H_
#define XLITE_EVAL_GATHER_SCATTER_INTERNAL_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/ir/literal.h"

namespace xlite::eval {

class IndexMapping {
 public:
  // `index_to_operand` is start_index_map / scatter_dims_to_operand_dims;
  // an index_vector_dim equal to the indices' rank means index vectors of
  // one element.
  static absl::StatusOr<IndexMapping> Make(const Literal& indices, int64_t index_vector_dim,
                                           absl::Span<const int64_t> index_to_operand,
                                           absl::Span<const int64_t> operand_batching_dims,
                                           absl::Span<const int64_t> indices_batching_dims,
                                           int64_t operand_rank);

  // The indices' dimensions other than index_vector_dim, in order: the
  // positions of the index vectors.
  absl::Span<const int64_t> batch_sizes() const { return batch_sizes_; }

  // The operand position the index vector at `batch` points at: its values
  // in their mapped dimensions, the batch position in batching dimensions,
  // 0 elsewhere. Not clamped.
  void OperandStart(absl::Span<const int64_t> batch, absl::Span<int64_t> start) const;

 private:
  std::vector<int64_t> values_;
  std::vector<int64_t> batch_sizes_, batch_strides_;
  int64_t vector_stride_ = 0;
  std::vector<int64_t> index_to_operand_;
  // (operand dimension, position in batch_sizes) of each batching pair.
  std::vector<std::pair<int64_t, int64_t>> batching_;
};

// The dimensions [0, rank) in neither `a` nor `b`, ascending.
std::vector<int64_t> DimsNotIn(int64_t rank, absl::Span<const int64_t> a,
                               absl::Span<const int64_t> b = {});

}  // namespace xlite::eval

#endif  // XLITE_EVAL_GATHER_SCATTER_INTERNAL_H_
