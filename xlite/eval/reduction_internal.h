// Helpers private to the reduction-family handlers (reduce, reduce-window,
// select-and-scatter, sort, topk, batch norm): the per-file registration
// functions and the unpacking of array-or-tuple results.
#ifndef XLITE_EVAL_REDUCTION_INTERNAL_H_
#define XLITE_EVAL_REDUCTION_INTERNAL_H_

#include <vector>

#include "xlite/eval/op_handlers.h"
#include "xlite/ir/literal.h"

namespace xlite::eval {

void RegisterReduceOps(OpHandlerTable& table);        // reduce_ops.cc
void RegisterReduceWindowOps(OpHandlerTable& table);  // reduce_window_ops.cc
void RegisterSortOps(OpHandlerTable& table);          // sort_ops.cc
void RegisterBatchNormOps(OpHandlerTable& table);     // batch_norm_ops.cc

// Elements start, start + stride, ... (size of them) of a row-major array:
// one line along a dimension, or adjacent dimensions walked as one.
struct Line {
  int64_t start = 0;
  int64_t stride = 1;
  int64_t size = 0;
};

// Zero-filled arrays for a result of `shape`: the tuple's elements, or the
// one array.
inline std::vector<Literal> MakeResultArrays(const Shape& shape) {
  std::vector<Literal> arrays;
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) arrays.emplace_back(element);
  } else {
    arrays.emplace_back(shape);
  }
  return arrays;
}

// The arrays back as a value of `shape` (a tuple of them, or the one array).
inline Literal PackResultArrays(const Shape& shape, std::vector<Literal> arrays) {
  if (shape.IsTuple()) return Literal::Tuple(std::move(arrays));
  return std::move(arrays[0]);
}

// Copies element `from_index` of `from` into element `to_index` of `to`,
// converting (XLA's convert rules) when the element types differ.
void CopyElement(const Literal& from, int64_t from_index, Literal& to, int64_t to_index);

inline std::vector<Literal*> Pointers(std::vector<Literal>& arrays) {
  std::vector<Literal*> pointers;
  for (Literal& l : arrays) pointers.push_back(&l);
  return pointers;
}

}  // namespace xlite::eval

#endif  // XLITE_EVAL_REDUCTION_INTERNAL_H_
