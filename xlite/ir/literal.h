// Literal: a shape plus owned data, dense in logical row-major order (layouts
// are metadata for backends), or a tuple of literals. Element storage is the
// type's natural width (sub-byte types take one byte each, low bits; pred one
// byte 0/1; f16/bf16/f8/f4 as raw bits; complex as two floats).
#ifndef XLITE_IR_LITERAL_H_
#define XLITE_IR_LITERAL_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/base/check.h"
#include "xlite/ir/shape.h"

namespace xlite {

class Literal {
 public:
  Literal() = default;
  // A zero-filled literal of `shape` (tuples get zero-filled elements). Its
  // size is computed without overflowing: a shape whose bytes do not fit
  // throws std::length_error, as a too-large std::vector does, and a failed
  // allocation std::bad_alloc. Sizes from user input take Create instead.
  explicit Literal(const Shape& shape);
  // The checked way to allocate a literal whose size comes from user input:
  // the shape is validated (ValidateShape) and running out of memory is a
  // ResourceExhausted error naming the shape and its bytes, never an abort.
  static absl::StatusOr<Literal> Create(const Shape& shape);
  // Create without the zero fill, for a caller that writes every element
  // (a backend's result): the bytes are unspecified until then.
  static absl::StatusOr<Literal> CreateForOverwrite(const Shape& shape);
  static Literal Tuple(std::vector<Literal> elements);

  const Shape& shape() const { return shape_; }
  int64_t element_count() const;  // array literals
  absl::Span<const uint8_t> raw_data() const { return data_; }
  absl::Span<uint8_t> mutable_raw_data() { return absl::MakeSpan(data_); }

  const std::vector<Literal>& tuple_elements() const { return tuple_; }
  std::vector<Literal>& mutable_tuple_elements() { return tuple_; }

  // Typed access to element `i` (linear, row-major). T must have the storage
  // size of the element type (uint16_t for bf16 bits, etc.).
  template <typename T>
  T Get(int64_t i) const {
    XLITE_CHECK(sizeof(T) == static_cast<size_t>(StorageBytes(shape_.element_type())));
    T v;
    std::memcpy(&v, data_.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  template <typename T>
  void Set(int64_t i, T v) {
    XLITE_CHECK(sizeof(T) == static_cast<size_t>(StorageBytes(shape_.element_type())));
    std::memcpy(data_.data() + i * sizeof(T), &v, sizeof(T));
  }

  // Value-level access for any array element type. Integers are sign- or
  // zero-extended by their own signedness; floats decoded exactly; complex
  // GetDouble returns the real part.
  double GetDouble(int64_t i) const;
  int64_t GetInt64(int64_t i) const;  // integers and pred (bit pattern for u64)
  std::complex<double> GetComplex(int64_t i) const;
  // Stores with XLA's convert semantics: RNE for floats, wrap for integers,
  // x != 0 for pred, and doubles into integer types truncate, NaN -> 0,
  // saturate. GetInt64 of a float element converts the same way.
  void SetDouble(int64_t i, double v);
  void SetInt64(int64_t i, int64_t v);
  void SetComplex(int64_t i, std::complex<double> v);
  // The stored bits of element `i` of a non-complex array, unconverted (a
  // float's NaN payload survives them, not GetDouble/SetDouble).
  uint64_t GetBits(int64_t i) const;
  void SetBits(int64_t i, uint64_t bits);

  // Element-wise conversion to another array type with XLA's semantics
  // (float->int truncates, NaN->0, saturates; narrow floats round to nearest
  // even; int->narrow int wraps). Tuples are refused.
  absl::StatusOr<Literal> Convert(PrimitiveType to) const;

  // Same shape (layouts ignored) and identical bytes.
  bool operator==(const Literal& other) const;
  // Data and tuple elements; the shape is left out (== compares it loosely).
  template <typename H>
  friend H AbslHashValue(H h, const Literal& x) {
    return H::combine(std::move(h), x.raw_data(), x.tuple_);
  }

 private:
  // Leaves bytes uninitialised when the vector grows without a value, so
  // that CreateForOverwrite skips the fill (assign(n, 0) still zeroes).
  template <typename T>
  struct UninitializedAllocator : std::allocator<T> {
    template <typename U>
    struct rebind {
      using other = UninitializedAllocator<U>;
    };
    template <typename U>
    void construct(U* p) noexcept {
      ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  };

  Literal(const Shape& shape, bool zero_filled);
  static absl::StatusOr<Literal> CreateChecked(const Shape& shape, bool zero_filled);

  Shape shape_;
  std::vector<uint8_t, UninitializedAllocator<uint8_t>> data_;
  std::vector<Literal> tuple_;
};

}  // namespace xlite

#endif  // XLITE_IR_LITERAL_H_
