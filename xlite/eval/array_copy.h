// Element-type-agnostic moves of array elements for the data-movement,
// gather and scatter handlers: a box of elements addressed by per-dimension
// strides (negative and zero allowed) is walked as runs and copied as bytes,
// so one walker serves every element type, sub-byte and complex included.
#ifndef XLITE_EVAL_ARRAY_COPY_H_
#define XLITE_EVAL_ARRAY_COPY_H_

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/ir/literal.h"

namespace xlite::eval {

// A box of `sizes` elements seen from two arrays A and B: element `idx` of
// the box is A's element a_offset + sum(idx * a_strides) and B's likewise.
struct StridedBox {
  absl::InlinedVector<int64_t, 6> sizes, a_strides, b_strides;
  int64_t a_offset = 0, b_offset = 0;

  StridedBox(absl::Span<const int64_t> sizes, int64_t a_offset, absl::Span<const int64_t> a_strides,
             int64_t b_offset, absl::Span<const int64_t> b_strides);
  bool empty() const;
};

// Calls fn(a, b, n) for runs of n elements that are consecutive in both A and
// B (starting at elements a and b), in row-major order of the box. Size-1
// dimensions are dropped and dimensions contiguous in both arrays merged, so
// whole rows become one run.
template <typename Fn>
void ForEachRun(const StridedBox& box, Fn&& fn) {
  if (box.empty()) return;
  // Simplify: drop size-1 dims, then merge a dim into the next one when it is
  // exactly the next one's extent in both arrays.
  absl::InlinedVector<int64_t, 6> sizes, as, bs;
  for (size_t d = 0; d < box.sizes.size(); ++d) {
    if (box.sizes[d] == 1) continue;
    if (!sizes.empty() && as.back() == box.a_strides[d] * box.sizes[d] &&
        bs.back() == box.b_strides[d] * box.sizes[d]) {
      sizes.back() *= box.sizes[d];
      as.back() = box.a_strides[d];
      bs.back() = box.b_strides[d];
      continue;
    }
    sizes.push_back(box.sizes[d]);
    as.push_back(box.a_strides[d]);
    bs.push_back(box.b_strides[d]);
  }
  int64_t rank = static_cast<int64_t>(sizes.size());
  int64_t run = 1;
  if (rank > 0 && as.back() == 1 && bs.back() == 1) {
    run = sizes.back();
    --rank;
  }
  absl::InlinedVector<int64_t, 6> index(rank, 0);
  int64_t a = box.a_offset, b = box.b_offset;
  while (true) {
    fn(a, b, run);
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      a += as[d];
      b += bs[d];
      if (++index[d] < sizes[d]) break;
      a -= as[d] * sizes[d];
      b -= bs[d] * sizes[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Copies the box's elements from `src` (B) into `dst` (A); both literals must
// have the same element storage width.
void CopyBox(Literal& dst, const Literal& src, const StridedBox& box);

// dst[i] = src[j] (same element storage width).
void CopyElementAt(Literal& dst, int64_t i, const Literal& src, int64_t j);

// Sets every element of `dst` to the scalar `value` (same element type).
void FillWith(Literal& dst, const Literal& value);

// `src`'s elements under `shape` (same element count and storage width).
absl::StatusOr<Literal> WithShape(const Literal& src, const Shape& shape);

// Row-major strides of a literal's dimensions.
std::vector<int64_t> StridesOf(const Shape& shape);

// Every element of an integer literal as int64 (u64 values above INT64_MAX
// saturate, so clamping treats them as huge). Non-integers are refused.
absl::StatusOr<std::vector<int64_t>> IndexValues(const Literal& indices);

}  // namespace xlite::eval

#endif  // XLITE_EVAL_ARRAY_COPY_H_
