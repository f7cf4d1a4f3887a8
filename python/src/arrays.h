// numpy arrays <-> Literals. Python hands each array over as its dtype name,
// its shape and its bytes (a flat uint8 view); results come back the same
// way, the bytes owned by the Literal, so no element is converted twice.
#ifndef XLITE_PYTHON_SRC_ARRAYS_H_
#define XLITE_PYTHON_SRC_ARRAYS_H_

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <string>
#include <vector>

#include "xlite/ir/literal.h"
#include "xlite/ir/primitive_type.h"
#include "xlite/ir/shape.h"

namespace xlite::python {

using ByteArray =
    nanobind::ndarray<const uint8_t, nanobind::ndim<1>, nanobind::c_contig, nanobind::device::cpu>;

// numpy's name of `type`, or ml_dtypes' for the types numpy lacks
// (bf16 -> bfloat16, f8e4m3fn -> float8_e4m3fn, s4 -> int4), as
// runtime::NumpyTypeName gives them.
std::string DtypeName(PrimitiveType type);

// One argument as Python passes it: (dtype name, shape, bytes).
struct ArrayArgument {
  std::string dtype;
  std::vector<int64_t> shape;
  ByteArray bytes;
};

// The argument as a literal of `expected` (an entry parameter's shape),
// numpy's raw-bits stand-ins and wider floats adapted as `xlite run` does;
// XliteError naming argument `index` when it does not fit.
Literal ToParameterLiteral(const ArrayArgument& argument, const Shape& expected, size_t index);

// Every array leaf of `result` as (dtype name as numpy or ml_dtypes calls
// it, the numpy dtype of its raw bits, shape, bytes).
nanobind::list ResultLeaves(Literal result);

}  // namespace xlite::python

#endif  // XLITE_PYTHON_SRC_ARRAYS_H_
