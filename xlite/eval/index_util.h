// Row-major index arithmetic shared by the evaluator's handlers: strides,
// linear <-> multi-dimensional indices, and an odometer over a shape.
#ifndef XLITE_EVAL_INDEX_UTIL_H_
#define XLITE_EVAL_INDEX_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace xlite::eval {

// Row-major strides in elements (the last dimension has stride 1).
inline std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

inline int64_t LinearIndex(absl::Span<const int64_t> index, absl::Span<const int64_t> strides) {
  int64_t linear = 0;
  for (size_t i = 0; i < index.size(); ++i) linear += index[i] * strides[i];
  return linear;
}

inline std::vector<int64_t> MultiIndex(int64_t linear, absl::Span<const int64_t> dims) {
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
    if (dims[i] == 0) return index;
    index[i] = linear % dims[i];
    linear /= dims[i];
  }
  return index;
}

// Advances `index` to the next row-major position within `dims`; false once
// it wraps past the last one.
inline bool NextIndex(absl::Span<int64_t> index, absl::Span<const int64_t> dims) {
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
    if (++index[i] < dims[i]) return true;
    index[i] = 0;
  }
  return false;
}

// Calls fn(index) for every index of `dims` in row-major order (once for a
// scalar, never when a dimension is 0).
template <typename Fn>
void ForEachIndex(absl::Span<const int64_t> dims, Fn&& fn) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  std::vector<int64_t> index(dims.size(), 0);
  do {
    fn(absl::Span<const int64_t>(index));
  } while (NextIndex(absl::MakeSpan(index), dims));
}

}  // namespace xlite::eval

#endif  // XLITE_EVAL_INDEX_UTIL_H_
