// Reading and writing arrays in numpy's .npy and .npz formats, the exchange
// format of `xlite run`. HLO types numpy lacks (bf16, the f8/f4 kinds, the
// sub-byte integers) are written under their ml_dtypes names ('bfloat16'),
// which np.load understands once ml_dtypes (or jax) is imported; they are
// read in that form, as numpy saves ml_dtypes arrays (untyped '<V2') or as
// raw bits in the unsigned integer of their storage width.
#ifndef XLITE_RUNTIME_NPY_IO_H_
#define XLITE_RUNTIME_NPY_IO_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/ir/literal.h"

namespace xlite::runtime {

// The unsigned integer of `type`'s storage width when numpy itself lacks
// `type` (bf16 -> u16, s4 -> u8), else `type`: the raw-bits form.
PrimitiveType NpyStorageType(PrimitiveType type);
// numpy's name of a type ("float32", "uint16"), ml_dtypes' for the types
// numpy lacks ("bfloat16", "float8_e4m3fn", "int4"); the HLO name otherwise.
std::string_view NumpyTypeName(PrimitiveType type);

// An array as a file holds it. numpy saves ml_dtypes arrays (bfloat16,
// float8_*, int4...) with a void dtype ('<V2', '|V1') that does not say which
// type the elements are: then `untyped` is set, `value` holds the bytes as
// the unsigned integer of that width, and AdaptArray gives them the type of
// the parameter they are for.
struct NpyArray {
  Literal value;
  bool untyped = false;
};

// Parses one .npy file (versions 1.0, 2.0 and 3.0; either byte order; C or
// Fortran order, returned row-major). `name` labels errors.
absl::StatusOr<NpyArray> ParseNpy(std::string_view bytes, std::string_view name);
// The .npy bytes of an array literal (version 1.0, or 2.0 when the header is
// too long for it), little-endian, C order; types numpy lacks under their
// ml_dtypes name, one element per byte for the sub-byte ones.
absl::StatusOr<std::string> SerializeNpy(const Literal& array);

struct NamedArray {
  std::string name;  // the member name without `.npy`
  NpyArray array;
};

// Parses a .npz archive: every `*.npy` member, stored or deflated, zip64 or
// not, in archive order.
absl::StatusOr<std::vector<NamedArray>> ParseNpz(std::string_view bytes, std::string_view name);
struct NpzWriteOptions {
  // Zip64 records even when sizes fit in 32 bits (numpy writes them for every
  // member; tests use this to cover the large-file path on small data).
  bool force_zip64 = false;
};
// A .npz archive of stored (uncompressed) members `<name>.npy`.
absl::StatusOr<std::string> SerializeNpz(absl::Span<const NamedArray> arrays,
                                         const NpzWriteOptions& options = {});

// File wrappers of the above.
absl::StatusOr<NpyArray> ReadNpyFile(const std::string& path);
absl::StatusOr<std::vector<NamedArray>> ReadNpzFile(const std::string& path);

// Turns an array read from a file into an argument of shape `expected`:
// the same type and dimensions pass as they are; untyped elements of the
// parameter type's byte width take that type; for a type numpy lacks, its
// raw-bits storage type is reinterpreted (sub-byte values must fit their
// width) and a wider float array is converted with XLA's rounding. Anything
// else is an error naming `what` (e.g. "input 0 (a.npy)"), the file's dtype
// and shape and the expected ones.
absl::StatusOr<Literal> AdaptArray(const NpyArray& array, const Shape& expected,
                                   std::string_view what);

// numpy-style text of an array's type and shape, e.g. "float32[2,3]"; an
// untyped array's dtype is numpy's name of it ("void16[4]").
std::string DescribeArray(const Literal& array);
std::string DescribeArray(const NpyArray& array);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_NPY_IO_H_
