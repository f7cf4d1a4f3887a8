// Reading and writing arrays in numpy's .npy and .npz formats, the exchange
// format of `xlite run`. HLO types numpy lacks (bf16, the f8/f4 kinds, the
// sub-byte integers) travel as raw bits in the unsigned integer of their
// storage width (bf16 -> uint16, f8 -> uint8, s4 -> uint8 low bits).
#ifndef XLITE_RUNTIME_NPY_IO_H_
#define XLITE_RUNTIME_NPY_IO_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/ir/literal.h"

namespace xlite::runtime {

// The element type an array of `type` has in a .npy file: `type` itself when
// numpy has it, else the unsigned integer of the same storage width.
PrimitiveType NpyStorageType(PrimitiveType type);
// numpy's name of a type that has a .npy form ("float32", "uint16"...).
std::string_view NumpyTypeName(PrimitiveType type);

// Parses one .npy file (versions 1.0, 2.0 and 3.0; either byte order; C or
// Fortran order, returned row-major). `name` labels errors.
absl::StatusOr<Literal> ParseNpy(std::string_view bytes, std::string_view name);
// The .npy bytes of an array literal (version 1.0, or 2.0 when the header is
// too long for it), little-endian, C order; types numpy lacks as raw bits.
absl::StatusOr<std::string> SerializeNpy(const Literal& array);

struct NamedArray {
  std::string name;  // the member name without `.npy`
  Literal value;
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
absl::StatusOr<Literal> ReadNpyFile(const std::string& path);
absl::StatusOr<std::vector<NamedArray>> ReadNpzFile(const std::string& path);

// Turns an array read from a file into an argument of shape `expected`:
// the same type and dimensions pass as they are; for a type numpy lacks, its
// raw-bits storage type is reinterpreted (sub-byte values must fit their
// width) and a wider float array is converted with XLA's rounding. Anything
// else is an error naming `what` (e.g. "input 0 (a.npy)").
absl::StatusOr<Literal> AdaptArray(const Literal& array, const Shape& expected,
                                   std::string_view what);

// numpy-style text of an array's type and shape, e.g. "float32[2,3]".
std::string DescribeArray(const Literal& array);

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_NPY_IO_H_
