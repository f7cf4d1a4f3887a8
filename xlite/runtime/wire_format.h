// A compact byte form of literals (shape, then the dense element bytes) and
// of the integers and strings around them, for runtimes that move values
// between processes (the MPI communicator). Both ends are the same build, so
// the form is native-endian and carries no version.
#ifndef XLITE_RUNTIME_WIRE_FORMAT_H_
#define XLITE_RUNTIME_WIRE_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "xlite/ir/literal.h"

namespace xlite::runtime {

// Appends to a byte string.
class WireWriter {
 public:
  void PutU64(uint64_t v);
  void PutString(std::string_view s);
  // Shape (element type, dimensions, dynamic marks, minor_to_major, tuple
  // elements) and data. Layout extras (tiles, memory spaces) do not travel.
  void PutLiteral(const Literal& literal);

  std::string& bytes() { return bytes_; }

 private:
  void PutShape(const Shape& shape);
  void PutData(const Literal& literal);  // the leaves' bytes, depth-first
  std::string bytes_;
};

// Reads what a WireWriter wrote, in the same order; every read checks the
// bounds, so a truncated or corrupt message is an error, not a crash.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}
  absl::StatusOr<uint64_t> GetU64();
  absl::StatusOr<std::string> GetString();
  absl::StatusOr<Literal> GetLiteral();
  bool done() const { return offset_ == bytes_.size(); }

 private:
  absl::StatusOr<Shape> GetShape(int depth);
  absl::StatusOr<Literal> GetLiteralOf(const Shape& shape);
  absl::StatusOr<std::string_view> GetBytes(size_t n);
  std::string_view bytes_;
  size_t offset_ = 0;
};

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_WIRE_FORMAT_H_
