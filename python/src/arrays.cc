#include "arrays.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "errors.h"
#include "xlite/ir/primitive_type.h"
#include "xlite/runtime/npy_io.h"

namespace nb = nanobind;

namespace xlite::python {

std::string DtypeName(PrimitiveType type) { return std::string(runtime::NumpyTypeName(type)); }

namespace {

std::optional<PrimitiveType> TypeOfDtype(const std::string& dtype) {
  for (int i = 0; i < kNumPrimitiveTypes; ++i) {
    const auto type = static_cast<PrimitiveType>(i);
    if (IsArrayType(type) && DtypeName(type) == dtype) return type;
  }
  return std::nullopt;
}

// Moves the array leaves of `value` into `leaves`, depth-first.
void MoveLeaves(Literal value, std::vector<Literal>& leaves) {
  if (!value.shape().IsTuple()) {
    leaves.push_back(std::move(value));
    return;
  }
  for (Literal& element : value.mutable_tuple_elements()) MoveLeaves(std::move(element), leaves);
}

}  // namespace

Literal ToParameterLiteral(const ArrayArgument& argument, const Shape& expected, size_t index) {
  const std::string what = absl::StrCat("argument ", index);
  std::optional<PrimitiveType> type = TypeOfDtype(argument.dtype);
  if (!type) throw XliteError(absl::StrCat(what, ": not supported yet: dtype ", argument.dtype));
  Literal array = ValueOrThrow(Literal::Create(Shape(*type, argument.shape)), what);
  absl::Span<uint8_t> bytes = array.mutable_raw_data();
  if (bytes.size() != argument.bytes.size()) {
    throw XliteError(absl::StrCat(what, ": ", argument.bytes.size(), " bytes for ",
                                  runtime::DescribeArray(array)));
  }
  if (!bytes.empty()) std::memcpy(bytes.data(), argument.bytes.data(), bytes.size());
  return ValueOrThrow(runtime::AdaptArray(runtime::NpyArray{std::move(array)}, expected, what));
}

nb::list ResultLeaves(Literal result) {
  std::vector<Literal> leaves;
  MoveLeaves(std::move(result), leaves);
  nb::list out;
  for (Literal& leaf : leaves) {
    const PrimitiveType type = leaf.shape().element_type();
    if (!leaf.shape().IsArray()) {
      throw XliteError("not supported yet: a result of type " +
                       std::string(PrimitiveTypeName(type)));
    }
    nb::object shape = nb::cast(
        std::vector<int64_t>(leaf.shape().dimensions().begin(), leaf.shape().dimensions().end()));
    auto* owner = new Literal(std::move(leaf));
    nb::capsule release(owner, [](void* p) noexcept { delete static_cast<Literal*>(p); });
    absl::Span<uint8_t> bytes = owner->mutable_raw_data();
    nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>> data(bytes.data(), {bytes.size()}, release);
    out.append(nb::make_tuple(DtypeName(type),
                              std::string(runtime::NumpyTypeName(runtime::NpyStorageType(type))),
                              shape, data));
  }
  return out;
}

}  // namespace xlite::python
