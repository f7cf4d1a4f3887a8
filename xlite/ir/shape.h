// Shape and Layout: the value types describing an HLO value — element type,
// dimensions (static, bounded-dynamic `<=N` or unbounded `?`), an optional
// layout with every extra XLA prints, or tuple elements.
#ifndef XLITE_IR_SHAPE_H_
#define XLITE_IR_SHAPE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "xlite/ir/primitive_type.h"

namespace xlite {

class Shape;

using DimVector = absl::InlinedVector<int64_t, 4>;

// One tile of a tiled layout; kCombineDimension is printed `*`.
struct Tile {
  static constexpr int64_t kCombineDimension = INT64_MIN;
  DimVector dimensions;
  bool operator==(const Tile&) const = default;
};

enum class DimLevelType : uint8_t { kDense, kCompressed, kSingleton, kLooseCompressed };

struct DimLevel {
  DimLevelType type = DimLevelType::kDense;
  bool unique = true;   // printed `+` when false
  bool ordered = true;  // printed `~` when false
  bool operator==(const DimLevel&) const = default;
};

struct SplitConfig {
  int64_t dimension = 0;
  std::vector<int64_t> split_indices;
  bool operator==(const SplitConfig&) const = default;
};

// Everything a layout may carry besides minor_to_major (rare in dumps, so it
// lives behind a pointer to keep Shape small).
struct LayoutExtras {
  std::vector<DimLevel> dim_levels;                                              // D(...)
  std::vector<Tile> tiles;                                                       // T(...)(...)
  int64_t tail_padding_alignment_in_elements = 1;                                // L(n)
  PrimitiveType index_primitive_type = PrimitiveType::PRIMITIVE_TYPE_INVALID;    // #(t)
  PrimitiveType pointer_primitive_type = PrimitiveType::PRIMITIVE_TYPE_INVALID;  // *(t)
  int64_t element_size_in_bits = 0;                                              // E(n)
  int64_t memory_space = 0;                                                      // S(n)
  std::vector<SplitConfig> split_configs;                                        // SC(d:i,j)
  std::shared_ptr<const Shape> physical_shape;                                   // P(shape)
  int64_t dynamic_shape_metadata_prefix_bytes = 0;                               // M(n)
  bool operator==(const LayoutExtras& other) const;
};

class Layout {
 public:
  Layout() = default;
  explicit Layout(absl::Span<const int64_t> minor_to_major)
      : minor_to_major(minor_to_major.begin(), minor_to_major.end()) {}
  Layout(const Layout& other);
  Layout& operator=(const Layout& other);
  Layout(Layout&&) noexcept = default;
  Layout& operator=(Layout&&) noexcept = default;
  bool operator==(const Layout& other) const;

  // The default (row-major) layout for a rank: {rank-1, ..., 0}.
  static Layout Default(int64_t rank);

  bool has_extras() const { return extras_ != nullptr; }
  // The extras (a shared all-defaults instance when none are set).
  const LayoutExtras& extras() const;
  LayoutExtras* mutable_extras();  // creates them when absent

  // XLA's text, e.g. `{1,0:T(8,128)(2,1)S(1)}`.
  void AppendTo(std::string* out) const;
  std::string ToString() const;

  DimVector minor_to_major;

 private:
  std::unique_ptr<LayoutExtras> extras_;
};

class Shape {
 public:
  // Dimension value of an unbounded dynamic dimension (`?`).
  static constexpr int64_t kUnboundedSize = INT64_MIN;

  Shape() = default;
  // An array shape (or token/opaque when `type` is one of those, dims empty).
  Shape(PrimitiveType type, absl::Span<const int64_t> dims);
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token() { return Shape(PrimitiveType::TOKEN, {}); }
  static Shape Scalar(PrimitiveType type) { return Shape(type, {}); }

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType t) { element_type_ = t; }

  bool IsTuple() const { return element_type_ == PrimitiveType::TUPLE; }
  bool IsToken() const { return element_type_ == PrimitiveType::TOKEN; }
  bool IsOpaque() const { return element_type_ == PrimitiveType::OPAQUE_TYPE; }
  bool IsArray() const { return IsArrayType(element_type_); }
  bool IsScalar() const { return IsArray() && dims_.empty(); }
  // XLA's buffer type `b(f32[2,4])`: a mutable buffer holding an array. The
  // shape otherwise reads as that array; only ==, AppendTo and the text see it.
  bool is_buffer() const { return is_buffer_; }
  void set_buffer(bool buffer) { is_buffer_ = buffer; }

  // Array accessors.
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  absl::Span<const int64_t> dimensions() const { return dims_; }
  int64_t dimensions(int64_t i) const { return dims_[i]; }
  void set_dimension(int64_t i, int64_t size) { dims_[i] = size; }
  // Replaces the dimensions; dynamic bits are cleared.
  void set_dimensions(absl::Span<const int64_t> dims);
  bool is_dynamic_dimension(int64_t i) const {
    return rare_ != nullptr && !rare_->dynamic.empty() && rare_->dynamic[i];
  }
  void set_dynamic_dimension(int64_t i, bool dynamic);
  bool is_unbounded_dimension(int64_t i) const { return dims_[i] == kUnboundedSize; }
  bool is_static() const;  // no dynamic dimension anywhere (recursively)
  // Product of the dimensions (bounds for dynamic dims; -1 when a dim is
  // unbounded). Arrays only.
  int64_t ElementCount() const;
  // Dense byte size of an array (sub-byte types rounded up per element unless
  // the layout packs them with E(n)); tuples: sum of leaves; token: 0.
  int64_t ByteSizeOf() const;

  bool has_layout() const { return layout_ != nullptr; }
  const Layout& layout() const { return *layout_; }
  // Creates a default layout when absent. Prefer set_layout when building a
  // shape: it shares common layouts instead of allocating one per shape.
  Layout* mutable_layout();
  void set_layout(Layout layout);
  void clear_layout() { ResetLayout(); }

  // Tuple accessors.
  int64_t tuple_size() const { return rare_ ? static_cast<int64_t>(rare_->tuple.size()) : 0; }
  const Shape& tuple_shapes(int64_t i) const { return rare_->tuple[i]; }
  Shape* mutable_tuple_shapes(int64_t i) { return &rare_->tuple[i]; }
  const std::vector<Shape>& tuple_shapes() const;
  std::vector<Shape>* mutable_tuple_shapes() { return &rare()->tuple; }
  // Number of non-tuple leaves (a non-tuple shape has one).
  int64_t LeafCount() const;

  Shape(const Shape& other);
  Shape& operator=(const Shape& other);
  Shape(Shape&& other) noexcept;
  Shape& operator=(Shape&& other) noexcept;
  ~Shape();

  // Equal element types, dimensions, dynamic bits, layouts, buffer marks and
  // tuple elements.
  bool operator==(const Shape& other) const;
  // Same as ==, but layouts and buffer marks are ignored (XLA lets a buffer
  // alias an operand holding the same array).
  bool Compatible(const Shape& other) const;
  // Same as Compatible, but dynamic marks are ignored too (XLA's
  // ShapeUtil::Compatible: `s32[<=3]` matches `s32[3]`).
  bool CompatibleIgnoringDynamic(const Shape& other) const;
  // Same element type and exactly the same dimensions (a `?` equals only `?`;
  // dynamic marks and layouts not compared) — what elementwise ops need.
  bool SameElementTypeAndDimensions(const Shape& other) const;

  // Canonical text, e.g. `f32[2,<=3]{1,0}` or `(f32[], s32[4]{0})`. Layouts are
  // printed when present (a scalar's `{}` is not, as XLA does).
  std::string ToString(bool print_layout = true) const;
  void AppendTo(std::string* out, bool print_layout = true) const;

 private:
  // Tuple elements and dynamic bits are uncommon, so they share one optional
  // allocation; a plain static array shape owns no heap memory beyond >4 dims.
  struct Rare {
    std::vector<Shape> tuple;
    std::vector<bool> dynamic;  // empty when every dim is static
  };
  Rare* rare();
  void ResetLayout();

  PrimitiveType element_type_ = PrimitiveType::PRIMITIVE_TYPE_INVALID;
  // True when layout_ is owned by this shape; otherwise it points at an
  // immutable interned layout shared by every shape with the same one (most
  // dumps use a handful of layouts, so this saves one allocation per shape).
  bool owns_layout_ = false;
  bool is_buffer_ = false;
  DimVector dims_;
  const Layout* layout_ = nullptr;
  std::unique_ptr<Rare> rare_;
};

// XLA's ShapeUtil::ValidateShape, the one shape-limit check the parser, the
// verifier and Literal creation share: a valid element type; every dimension
// non-negative, or `?` marked dynamic; the element count (bounds for dynamic
// dimensions) and the byte size fit int64_t, computed without overflowing; a
// layout, when present, a permutation of the dimensions; tuple elements
// likewise. InvalidArgument naming the shape and what is wrong otherwise.
absl::Status ValidateShape(const Shape& shape);

// The bytes an array or tuple takes as Literal stores it (StorageBytes per
// element, bounds for dynamic dimensions, tuples the sum of their leaves), or
// -1 when that overflows int64_t or a dimension is unbounded or negative.
int64_t CheckedStorageBytes(const Shape& shape);

// The shape at `index` inside a (possibly nested) tuple shape; nullptr when
// the index does not exist.
const Shape* ShapeAtIndex(const Shape& shape, absl::Span<const int64_t> index);

}  // namespace xlite

#endif  // XLITE_IR_SHAPE_H_
