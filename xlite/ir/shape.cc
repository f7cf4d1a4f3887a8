#include "xlite/ir/shape.h"

#include <algorithm>
#include <charconv>
#include <mutex>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "xlite/base/check.h"
#include "xlite/base/status.h"

namespace xlite {
namespace {

// Writes `v` at `p` (room for 20 characters), returning the end. Most
// dimension numbers are one digit, so that case skips to_chars.
char* WriteInt(char* p, int64_t v) {
  if (v >= 0 && v < 10) {
    *p = static_cast<char>('0' + v);
    return p + 1;
  }
  return std::to_chars(p, p + 20, v).ptr;
}

void AppendInt(std::string* out, int64_t v) {
  char buf[20];
  out->append(buf, WriteInt(buf, v));
}

constexpr size_t kMaxIntChars = 20;

void AppendIntList(std::string* out, absl::Span<const int64_t> values) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != 0) out->push_back(',');
    AppendInt(out, values[i]);
  }
}

char DimLevelLetter(DimLevelType t) {
  switch (t) {
    case DimLevelType::kDense:
      return 'D';
    case DimLevelType::kCompressed:
      return 'C';
    case DimLevelType::kSingleton:
      return 'S';
    case DimLevelType::kLooseCompressed:
      return 'H';
  }
  return 'D';
}

const LayoutExtras& DefaultExtras() {
  static const LayoutExtras* const kDefault = new LayoutExtras();
  return *kDefault;
}

// Interned extras-free layouts. Entries are never freed: the set of distinct
// minor_to_major orders in a process is small.
const Layout* InternLayoutLocked(Layout layout);

struct InternedLayoutHash {
  using is_transparent = void;
  size_t operator()(const Layout* l) const {
    return absl::HashOf(absl::Span<const int64_t>(l->minor_to_major));
  }
};
struct InternedLayoutEq {
  using is_transparent = void;
  bool operator()(const Layout* a, const Layout* b) const {
    return a->minor_to_major == b->minor_to_major;
  }
};

const Layout* InternLayout(Layout layout) {
  // A dump uses a handful of layouts over and over: a per-thread
  // direct-mapped cache of interned ones (never freed) skips the lock and the
  // set lookup for all but the first use of each.
  constexpr int kCacheBits = 6;
  thread_local const Layout* cache[1 << kCacheBits] = {};
  uint64_t h = layout.minor_to_major.size();
  for (int64_t d : layout.minor_to_major) h = h * 31 + static_cast<uint64_t>(d);
  const Layout*& slot = cache[(h * 0x9e3779b97f4a7c15ull) >> (64 - kCacheBits)];
  if (slot != nullptr && slot->minor_to_major == layout.minor_to_major) return slot;
  slot = InternLayoutLocked(std::move(layout));
  return slot;
}

const Layout* InternLayoutLocked(Layout layout) {
  static std::mutex* const mu = new std::mutex();
  static auto* const set =
      new absl::flat_hash_set<const Layout*, InternedLayoutHash, InternedLayoutEq>();
  std::lock_guard<std::mutex> lock(*mu);
  auto it = set->find(&layout);
  if (it != set->end()) return *it;
  const Layout* owned = new Layout(std::move(layout));
  set->insert(owned);
  return owned;
}

const std::vector<Shape>& EmptyTuple() {
  static const std::vector<Shape>* const kEmpty = new std::vector<Shape>();
  return *kEmpty;
}

}  // namespace

bool LayoutExtras::operator==(const LayoutExtras& other) const {
  bool physical_equal =
      physical_shape == other.physical_shape ||
      (physical_shape && other.physical_shape && *physical_shape == *other.physical_shape);
  return dim_levels == other.dim_levels && tiles == other.tiles &&
         tail_padding_alignment_in_elements == other.tail_padding_alignment_in_elements &&
         index_primitive_type == other.index_primitive_type &&
         pointer_primitive_type == other.pointer_primitive_type &&
         element_size_in_bits == other.element_size_in_bits && memory_space == other.memory_space &&
         split_configs == other.split_configs && physical_equal &&
         dynamic_shape_metadata_prefix_bytes == other.dynamic_shape_metadata_prefix_bytes;
}

Layout::Layout(const Layout& other)
    : minor_to_major(other.minor_to_major),
      extras_(other.extras_ ? std::make_unique<LayoutExtras>(*other.extras_) : nullptr) {}

Layout& Layout::operator=(const Layout& other) {
  if (this != &other) {
    minor_to_major = other.minor_to_major;
    extras_ = other.extras_ ? std::make_unique<LayoutExtras>(*other.extras_) : nullptr;
  }
  return *this;
}

bool Layout::operator==(const Layout& other) const {
  return minor_to_major == other.minor_to_major && extras() == other.extras();
}

Layout Layout::Default(int64_t rank) {
  Layout layout;
  layout.minor_to_major.resize(rank);
  for (int64_t i = 0; i < rank; ++i) layout.minor_to_major[i] = rank - 1 - i;
  return layout;
}

const LayoutExtras& Layout::extras() const { return extras_ ? *extras_ : DefaultExtras(); }

LayoutExtras* Layout::mutable_extras() {
  if (!extras_) extras_ = std::make_unique<LayoutExtras>();
  return extras_.get();
}

void Layout::AppendTo(std::string* out) const {
  out->push_back('{');
  AppendIntList(out, minor_to_major);
  if (extras_ == nullptr) {
    out->push_back('}');
    return;
  }
  const LayoutExtras& e = *extras_;
  bool colon = false;
  auto begin_extra = [&](const char* tag) {
    if (!colon) out->push_back(':');
    colon = true;
    out->append(tag);
  };
  if (!e.dim_levels.empty()) {
    begin_extra("D(");
    for (size_t i = 0; i < e.dim_levels.size(); ++i) {
      if (i != 0) out->push_back(',');
      out->push_back(DimLevelLetter(e.dim_levels[i].type));
      if (!e.dim_levels[i].unique) out->push_back('+');
      if (!e.dim_levels[i].ordered) out->push_back('~');
    }
    out->push_back(')');
  }
  if (!e.tiles.empty()) {
    begin_extra("T");
    for (const Tile& tile : e.tiles) {
      out->push_back('(');
      for (size_t i = 0; i < tile.dimensions.size(); ++i) {
        if (i != 0) out->push_back(',');
        if (tile.dimensions[i] == Tile::kCombineDimension) {
          out->push_back('*');
        } else {
          AppendInt(out, tile.dimensions[i]);
        }
      }
      out->push_back(')');
    }
  }
  auto append_tagged_int = [&](const char* tag, int64_t v) {
    begin_extra(tag);
    AppendInt(out, v);
    out->push_back(')');
  };
  auto append_tagged_type = [&](const char* tag, PrimitiveType t) {
    begin_extra(tag);
    out->append(IsInteger(t) ? PrimitiveTypeName(t) : std::string_view("invalid"));
    out->push_back(')');
  };
  if (e.tail_padding_alignment_in_elements != 1) {
    append_tagged_int("L(", e.tail_padding_alignment_in_elements);
  }
  if (e.index_primitive_type != PrimitiveType::PRIMITIVE_TYPE_INVALID) {
    append_tagged_type("#(", e.index_primitive_type);
  }
  if (e.pointer_primitive_type != PrimitiveType::PRIMITIVE_TYPE_INVALID) {
    append_tagged_type("*(", e.pointer_primitive_type);
  }
  if (e.element_size_in_bits != 0) append_tagged_int("E(", e.element_size_in_bits);
  if (e.memory_space != 0) append_tagged_int("S(", e.memory_space);
  if (!e.split_configs.empty()) {
    begin_extra("SC");
    for (const SplitConfig& sc : e.split_configs) {
      out->push_back('(');
      AppendInt(out, sc.dimension);
      out->push_back(':');
      AppendIntList(out, sc.split_indices);
      out->push_back(')');
    }
  }
  if (e.physical_shape) {
    begin_extra("P(");
    e.physical_shape->AppendTo(out, /*print_layout=*/true);
    out->push_back(')');
  }
  if (e.dynamic_shape_metadata_prefix_bytes > 0) {
    append_tagged_int("M(", e.dynamic_shape_metadata_prefix_bytes);
  }
  out->push_back('}');
}

std::string Layout::ToString() const {
  std::string out;
  AppendTo(&out);
  return out;
}

// ------------------------------------------------------------------ Shape

Shape::Shape(PrimitiveType type, absl::Span<const int64_t> dims)
    : element_type_(type), dims_(dims.begin(), dims.end()) {}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape s;
  s.element_type_ = PrimitiveType::TUPLE;
  s.rare()->tuple = std::move(elements);
  return s;
}

Shape::Shape(const Shape& other)
    : element_type_(other.element_type_),
      owns_layout_(other.owns_layout_),
      is_buffer_(other.is_buffer_),
      dims_(other.dims_),
      layout_(other.owns_layout_ ? new Layout(*other.layout_) : other.layout_),
      rare_(other.rare_ ? std::make_unique<Rare>(*other.rare_) : nullptr) {}

Shape& Shape::operator=(const Shape& other) {
  if (this != &other) {
    Shape copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Shape::Shape(Shape&& other) noexcept
    : element_type_(other.element_type_),
      owns_layout_(other.owns_layout_),
      is_buffer_(other.is_buffer_),
      dims_(std::move(other.dims_)),
      layout_(other.layout_),
      rare_(std::move(other.rare_)) {
  other.layout_ = nullptr;
  other.owns_layout_ = false;
}

Shape& Shape::operator=(Shape&& other) noexcept {
  if (this != &other) {
    ResetLayout();
    element_type_ = other.element_type_;
    owns_layout_ = other.owns_layout_;
    is_buffer_ = other.is_buffer_;
    dims_ = std::move(other.dims_);
    layout_ = other.layout_;
    rare_ = std::move(other.rare_);
    other.layout_ = nullptr;
    other.owns_layout_ = false;
  }
  return *this;
}

Shape::~Shape() { ResetLayout(); }

void Shape::ResetLayout() {
  if (owns_layout_) delete layout_;
  layout_ = nullptr;
  owns_layout_ = false;
}

Shape::Rare* Shape::rare() {
  if (!rare_) rare_ = std::make_unique<Rare>();
  return rare_.get();
}

const std::vector<Shape>& Shape::tuple_shapes() const {
  return rare_ ? rare_->tuple : EmptyTuple();
}

void Shape::set_dimensions(absl::Span<const int64_t> dims) {
  dims_.assign(dims.begin(), dims.end());
  if (rare_) rare_->dynamic.clear();
}

void Shape::set_dynamic_dimension(int64_t i, bool dynamic) {
  XLITE_CHECK(i >= 0 && i < rank());
  if (!dynamic && !is_dynamic_dimension(i)) return;
  std::vector<bool>& bits = rare()->dynamic;
  if (bits.empty()) bits.assign(dims_.size(), false);
  bits[i] = dynamic;
}

bool Shape::is_static() const {
  if (IsTuple()) {
    for (const Shape& s : tuple_shapes()) {
      if (!s.is_static()) return false;
    }
    return true;
  }
  for (int64_t i = 0; i < rank(); ++i) {
    if (is_dynamic_dimension(i) || is_unbounded_dimension(i)) return false;
  }
  return true;
}

int64_t Shape::ElementCount() const {
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (d == kUnboundedSize) return -1;
    n *= d;
  }
  return n;
}

int64_t Shape::ByteSizeOf() const {
  if (IsTuple()) {
    int64_t total = 0;
    for (const Shape& s : tuple_shapes()) total += s.ByteSizeOf();
    return total;
  }
  if (!IsArray()) return 0;
  int64_t count = ElementCount();
  if (count < 0) return 0;
  int64_t packed_bits = has_layout() ? layout().extras().element_size_in_bits : 0;
  if (packed_bits > 0 && packed_bits < 8) return (count * packed_bits + 7) / 8;
  return count * StorageBytes(element_type_);
}

Layout* Shape::mutable_layout() {
  if (!owns_layout_) {
    Layout* owned = layout_ ? new Layout(*layout_) : new Layout(Layout::Default(rank()));
    layout_ = owned;
    owns_layout_ = true;
  }
  return const_cast<Layout*>(layout_);
}

void Shape::set_layout(Layout layout) {
  ResetLayout();
  if (layout.has_extras()) {
    layout_ = new Layout(std::move(layout));
    owns_layout_ = true;
  } else {
    layout_ = InternLayout(std::move(layout));
  }
}

int64_t Shape::LeafCount() const {
  if (!IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : tuple_shapes()) n += s.LeafCount();
  return n;
}

namespace {

bool SameDynamicBits(const Shape& a, const Shape& b) {
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (a.is_dynamic_dimension(i) != b.is_dynamic_dimension(i)) return false;
  }
  return true;
}

// What a shape comparison looks at beyond element types, tuple structure and
// dimension sizes.
enum class Strictness { kAll, kNoLayouts, kNoLayoutsNorDynamic };

bool ShapesEqual(const Shape& a, const Shape& b, Strictness strictness) {
  if (a.element_type() != b.element_type()) return false;
  if (a.IsTuple()) {
    if (a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!ShapesEqual(a.tuple_shapes(i), b.tuple_shapes(i), strictness)) return false;
    }
    return true;
  }
  if (!(a.dimensions() == b.dimensions())) return false;
  if (strictness == Strictness::kNoLayoutsNorDynamic) return true;
  if (!SameDynamicBits(a, b)) return false;
  if (strictness == Strictness::kNoLayouts) return true;
  if (a.is_buffer() != b.is_buffer() || a.has_layout() != b.has_layout()) return false;
  return !a.has_layout() || &a.layout() == &b.layout() || a.layout() == b.layout();
}

}  // namespace

bool Shape::operator==(const Shape& other) const {
  return ShapesEqual(*this, other, Strictness::kAll);
}

bool Shape::Compatible(const Shape& other) const {
  return ShapesEqual(*this, other, Strictness::kNoLayouts);
}

bool Shape::CompatibleIgnoringDynamic(const Shape& other) const {
  return ShapesEqual(*this, other, Strictness::kNoLayoutsNorDynamic);
}

bool Shape::SameElementTypeAndDimensions(const Shape& other) const {
  return element_type_ == other.element_type_ && dimensions() == other.dimensions();
}

void Shape::AppendTo(std::string* out, bool print_layout) const {
  if (IsTuple()) {
    out->push_back('(');
    const std::vector<Shape>& elements = tuple_shapes();
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i != 0) {
        out->append(", ");
        // XLA marks every fifth element of long tuples.
        if (i % 5 == 0) {
          out->append("/*index=");
          AppendInt(out, static_cast<int64_t>(i));
          out->append("*/");
        }
      }
      elements[i].AppendTo(out, print_layout);
    }
    out->push_back(')');
    return;
  }
  if (is_buffer_) {  // rare: print the held array through a plain copy
    Shape array(*this);
    array.is_buffer_ = false;
    out->append("b(");
    array.AppendTo(out, print_layout);
    out->push_back(')');
    return;
  }
  // The printer's hot path: write through a pointer into a buffer sized for
  // the worst case (on the stack for all but huge ranks), then append once.
  const bool simple_layout = print_layout && has_layout() && IsArray() && !layout_->has_extras();
  std::string_view name = PrimitiveTypeName(element_type_);
  const size_t bound = name.size() + 4 + dims_.size() * (2 * kMaxIntChars + 4);
  char stack_buffer[512];
  std::unique_ptr<char[]> heap_buffer;
  char* begin = stack_buffer;
  if (bound > sizeof(stack_buffer)) {
    heap_buffer = std::make_unique<char[]>(bound);
    begin = heap_buffer.get();
  }
  char* p = std::copy(name.begin(), name.end(), begin);
  *p++ = '[';
  for (int64_t i = 0; i < rank(); ++i) {
    if (i != 0) *p++ = ',';
    if (dims_[i] == kUnboundedSize) {
      *p++ = '?';
      continue;
    }
    if (is_dynamic_dimension(i)) {
      *p++ = '<';
      *p++ = '=';
    }
    p = WriteInt(p, dims_[i]);
  }
  *p++ = ']';
  // A scalar's empty layout `{}` is left out, as XLA prints it.
  if (simple_layout && !dims_.empty()) {
    *p++ = '{';
    const DimVector& m2m = layout_->minor_to_major;
    for (size_t i = 0; i < m2m.size(); ++i) {
      if (i != 0) *p++ = ',';
      p = WriteInt(p, m2m[i]);
    }
    *p++ = '}';
  }
  out->append(begin, p);
  if (!print_layout || !has_layout() || !IsArray() || simple_layout) return;
  const size_t layout_start = out->size();
  layout_->AppendTo(out);
  if (dims_.empty() && out->size() - layout_start == 2) out->resize(layout_start);
}

std::string Shape::ToString(bool print_layout) const {
  std::string out;
  AppendTo(&out, print_layout);
  return out;
}

const Shape* ShapeAtIndex(const Shape& shape, absl::Span<const int64_t> index) {
  const Shape* s = &shape;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= s->tuple_size()) return nullptr;
    s = &s->tuple_shapes(i);
  }
  return s;
}

namespace {

// Multiplies without overflowing; false when the product does not fit.
bool CheckedMultiply(int64_t a, int64_t b, int64_t* product) {
  return !__builtin_mul_overflow(a, b, product);
}

absl::Status ShapeError(const Shape& shape, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("invalid shape ", shape.ToString(), ": ", what));
}

absl::Status ValidateArrayDimensions(const Shape& shape) {
  int64_t count = 1;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    int64_t d = shape.dimensions(i);
    if (d == Shape::kUnboundedSize) {
      if (!shape.is_dynamic_dimension(i)) {
        return ShapeError(shape, absl::StrCat("unbounded dimension ", i, " is not dynamic"));
      }
      continue;
    }
    if (d < 0) return ShapeError(shape, absl::StrCat("dimension ", i, " is negative (", d, ")"));
    if (!CheckedMultiply(count, d, &count)) {
      return ShapeError(shape, "the element count overflows int64");
    }
  }
  int64_t bytes = 0;
  if (!CheckedMultiply(count, std::max(StorageBytes(shape.element_type()), 1), &bytes)) {
    return ShapeError(shape, "the byte size overflows int64");
  }
  if (!shape.has_layout()) return absl::OkStatus();
  const DimVector& minor_to_major = shape.layout().minor_to_major;
  if (static_cast<int64_t>(minor_to_major.size()) != shape.rank()) {
    return ShapeError(shape, absl::StrCat("the layout has ", minor_to_major.size(),
                                          " dimensions but the shape has rank ", shape.rank()));
  }
  std::vector<bool> seen(minor_to_major.size(), false);
  for (int64_t d : minor_to_major) {
    if (d < 0 || d >= shape.rank() || seen[d]) {
      return ShapeError(shape, "the layout is not a permutation of the dimensions");
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateShape(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      XLITE_RETURN_IF_ERROR(ValidateShape(element));
    }
    return absl::OkStatus();
  }
  if (shape.IsToken() || shape.IsOpaque()) {
    if (shape.rank() != 0) return ShapeError(shape, "a token or opaque shape has no dimensions");
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return ShapeError(shape, "invalid element type");
  return ValidateArrayDimensions(shape);
}

int64_t CheckedStorageBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t total = 0;
    for (const Shape& element : shape.tuple_shapes()) {
      int64_t bytes = CheckedStorageBytes(element);
      if (bytes < 0 || __builtin_add_overflow(total, bytes, &total)) return -1;
    }
    return total;
  }
  if (!shape.IsArray()) return 0;
  int64_t count = 1;
  for (int64_t d : shape.dimensions()) {
    if (d < 0 || !CheckedMultiply(count, d, &count)) return -1;
  }
  int64_t bytes = 0;
  return CheckedMultiply(count, StorageBytes(shape.element_type()), &bytes) ? bytes : -1;
}

}  // namespace xlite
