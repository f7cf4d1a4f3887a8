// Typed access to literal elements for the evaluator: each array element type
// maps to the native type ops compute in (narrow floats compute in float and
// round once per store, as XLA's CPU backend does), and DispatchArrayType
// calls a generic lambda with that mapping.
#ifndef XLITE_EVAL_ELEMENT_TYPES_H_
#define XLITE_EVAL_ELEMENT_TYPES_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "absl/status/statusor.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/ir/float_format.h"
#include "xlite/ir/literal.h"

namespace xlite::eval {

// Native compute type of an element type (void for token, tuple, opaque).
template <PrimitiveType PT, typename = void>
struct NativeOf {
  using type = void;
};
template <PrimitiveType PT>
struct NativeOf<PT, std::enable_if_t<PT == PrimitiveType::PRED>> {
  using type = bool;
};

constexpr bool IsNarrowFloat(PrimitiveType t) {
  return t != PrimitiveType::F32 && t != PrimitiveType::F64 &&
         (t == PrimitiveType::F16 || t == PrimitiveType::BF16 ||
          (t >= PrimitiveType::F8E5M2 && t <= PrimitiveType::F4E2M1FN));
}

template <PrimitiveType PT>
struct IntNative {
  static constexpr int kBits = PT == PrimitiveType::S64 || PT == PrimitiveType::U64   ? 64
                               : PT == PrimitiveType::S32 || PT == PrimitiveType::U32 ? 32
                               : PT == PrimitiveType::S16 || PT == PrimitiveType::U16 ? 16
                                                                                      : 8;
  static constexpr bool kSigned = PT >= PrimitiveType::S1 && PT <= PrimitiveType::S64;
  using type = std::conditional_t<
      kSigned,
      std::conditional_t<kBits == 64, int64_t,
                         std::conditional_t<kBits == 32, int32_t,
                                            std::conditional_t<kBits == 16, int16_t, int8_t>>>,
      std::conditional_t<kBits == 64, uint64_t,
                         std::conditional_t<kBits == 32, uint32_t,
                                            std::conditional_t<kBits == 16, uint16_t, uint8_t>>>>;
};
template <PrimitiveType PT>
struct NativeOf<PT, std::enable_if_t<(PT >= PrimitiveType::S1 && PT <= PrimitiveType::U64)>> {
  using type = typename IntNative<PT>::type;
};
template <PrimitiveType PT>
struct NativeOf<PT, std::enable_if_t<IsNarrowFloat(PT) || PT == PrimitiveType::F32>> {
  using type = float;
};
template <>
struct NativeOf<PrimitiveType::F64> {
  using type = double;
};
template <>
struct NativeOf<PrimitiveType::C64> {
  using type = std::complex<float>;
};
template <>
struct NativeOf<PrimitiveType::C128> {
  using type = std::complex<double>;
};

template <PrimitiveType PT>
using NativeT = typename NativeOf<PT>::type;

// Width in bits of the sub-byte integer types (0 for the others).
constexpr int SubByteBits(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::S1:
    case PrimitiveType::U1:
      return 1;
    case PrimitiveType::S2:
    case PrimitiveType::U2:
      return 2;
    case PrimitiveType::S4:
    case PrimitiveType::U4:
      return 4;
    default:
      return 0;
  }
}

// Reads element `i` of storage `data` (the layout Literal uses) as NativeT<PT>.
template <PrimitiveType PT>
inline NativeT<PT> LoadElement(const uint8_t* data, int64_t i) {
  using T = NativeT<PT>;
  if constexpr (PT == PrimitiveType::PRED) {
    return data[i] != 0;
  } else if constexpr (SubByteBits(PT) > 0) {
    constexpr int kBits = SubByteBits(PT);
    uint8_t raw = data[i] & ((1u << kBits) - 1);
    if constexpr (std::is_signed_v<T>) {
      uint8_t sign = 1u << (kBits - 1);
      return static_cast<T>(static_cast<int8_t>(raw ^ sign) - static_cast<int8_t>(sign));
    } else {
      return static_cast<T>(raw);
    }
  } else if constexpr (PT == PrimitiveType::BF16) {
    uint16_t bits;
    std::memcpy(&bits, data + 2 * i, 2);
    uint32_t wide = uint32_t{bits} << 16;
    float f;
    std::memcpy(&f, &wide, 4);
    return f;
  } else if constexpr (IsNarrowFloat(PT)) {
    constexpr int kBytes = PT == PrimitiveType::F16 ? 2 : 1;
    uint64_t bits = 0;
    std::memcpy(&bits, data + kBytes * i, kBytes);
    return static_cast<float>(DecodeFloat(bits, PT));
  } else {
    T v;
    std::memcpy(&v, data + sizeof(T) * i, sizeof(T));
    return v;
  }
}

// Writes `v` as element `i`: narrow floats round to nearest even, sub-byte
// integers keep their low bits, pred stores 0/1.
template <PrimitiveType PT>
inline void StoreElement(uint8_t* data, int64_t i, NativeT<PT> v) {
  using T = NativeT<PT>;
  if constexpr (PT == PrimitiveType::PRED) {
    data[i] = v ? 1 : 0;
  } else if constexpr (SubByteBits(PT) > 0) {
    data[i] = static_cast<uint8_t>(v) & ((1u << SubByteBits(PT)) - 1);
  } else if constexpr (IsNarrowFloat(PT)) {
    constexpr int kBytes = PT == PrimitiveType::F16 || PT == PrimitiveType::BF16 ? 2 : 1;
    uint64_t bits = EncodeFloat(static_cast<double>(v), PT);
    std::memcpy(data + kBytes * i, &bits, kBytes);
  } else {
    std::memcpy(data + sizeof(T) * i, &v, sizeof(T));
  }
}

template <PrimitiveType PT>
inline NativeT<PT> LoadElement(const Literal& l, int64_t i) {
  return LoadElement<PT>(l.raw_data().data(), i);
}
template <PrimitiveType PT>
inline void StoreElement(Literal& l, int64_t i, NativeT<PT> v) {
  StoreElement<PT>(l.mutable_raw_data().data(), i, v);
}

// The compile-time element type handed to DispatchArrayType's callback.
template <PrimitiveType PT>
struct TypeTag {
  static constexpr PrimitiveType kType = PT;
  using Native = NativeT<PT>;
};

// Calls fn(TypeTag<PT>{}) for the array element type `t`; returns fn's
// result. `t` must be an array type (token, tuple and opaque are refused
// with an error, so fn must return absl::Status or absl::StatusOr<...>).
template <typename Fn>
auto DispatchArrayType(PrimitiveType t, Fn&& fn) -> decltype(fn(TypeTag<PrimitiveType::F32>{})) {
  switch (t) {
#define XLITE_EVAL_CASE(e, name, bits, kind)                                                  \
  case PrimitiveType::e:                                                                      \
    if constexpr (TypeKind::kind != TypeKind::kToken && TypeKind::kind != TypeKind::kTuple && \
                  TypeKind::kind != TypeKind::kOpaque) {                                      \
      return fn(TypeTag<PrimitiveType::e>{});                                                 \
    }                                                                                         \
    break;
    XLITE_PRIMITIVE_TYPES(XLITE_EVAL_CASE)
#undef XLITE_EVAL_CASE
    default:
      break;
  }
  return InvalidArgument("expected an array element type, got ", AsAbsl(PrimitiveTypeName(t)));
}

}  // namespace xlite::eval

#endif  // XLITE_EVAL_ELEMENT_TYPES_H_
