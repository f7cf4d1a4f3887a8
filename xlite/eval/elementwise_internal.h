// Shared machinery of the elementwise opcode handlers: the compute type of
// each element type (narrow floats in f32, sub-byte integers in 8 bits, so
// each kernel is instantiated for 13 native types only), typed loops over
// literal storage, and the registration entry points of each file.
#ifndef XLITE_EVAL_ELEMENTWISE_INTERNAL_H_
#define XLITE_EVAL_ELEMENTWISE_INTERNAL_H_

#include <array>
#include <complex>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/eval/op_handlers.h"
#include "xlite/ir/literal.h"

namespace xlite::eval {

using Operands = absl::Span<const Literal* const>;

// ------------------------------------------------------------ type classes

template <typename T>
inline constexpr bool kIsComplex = false;
template <typename T>
inline constexpr bool kIsComplex<std::complex<T>> = true;

template <typename T>
concept Pred = std::same_as<T, bool>;
template <typename T>
concept Int = std::integral<T> && !std::same_as<T, bool>;
template <typename T>
concept SInt = Int<T> && std::is_signed_v<T>;
template <typename T>
concept UInt = Int<T> && std::is_unsigned_v<T>;
template <typename T>
concept Real = std::floating_point<T>;
template <typename T>
concept Cplx = kIsComplex<T>;
template <typename T>
concept RealOrCplx = Real<T> || Cplx<T>;
template <typename T>
concept Numeric = Int<T> || Real<T> || Cplx<T>;

// The type narrow arithmetic is promoted to, wide enough that the C++
// integer promotions cannot overflow a signed int.
template <Int T>
using WideUnsigned = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

// ------------------------------------------------------------ compute types

// The type elementwise kernels compute `t` in: narrow floats as f32,
// sub-byte integers in their 8-bit container; every other type is itself.
PrimitiveType ComputeType(PrimitiveType t);

// `l` in its compute type: `l` itself, or a converted copy kept in `storage`.
absl::StatusOr<const Literal*> Widen(const Literal& l, Literal& storage);

// `shape` with its element type replaced by `t` (layout dropped).
Shape WithElementType(const Shape& shape, PrimitiveType t);

// A result computed in ComputeType(declared) brought to `declared` (narrow
// floats round to nearest even once, sub-byte integers wrap).
absl::StatusOr<Literal> Narrow(Literal computed, PrimitiveType declared);

// The element type whose compute type is the native type T.
template <typename T>
constexpr PrimitiveType ComputeTypeOf() {
  using P = PrimitiveType;
  if constexpr (std::is_same_v<T, bool>)
    return P::PRED;
  else if constexpr (std::is_same_v<T, int8_t>)
    return P::S8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return P::S16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return P::S32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return P::S64;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return P::U8;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return P::U16;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return P::U32;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return P::U64;
  else if constexpr (std::is_same_v<T, float>)
    return P::F32;
  else if constexpr (std::is_same_v<T, double>)
    return P::F64;
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return P::C64;
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return P::C128;
  else
    return P::PRIMITIVE_TYPE_INVALID;
}

// Calls fn(std::type_identity<T>{}) for the native type of a compute type
// (see ComputeType); other types give an error.
template <typename Fn>
absl::Status DispatchCompute(PrimitiveType t, Fn&& fn) {
  using P = PrimitiveType;
  switch (t) {
    case P::PRED:
      return fn(std::type_identity<bool>{});
    case P::S8:
      return fn(std::type_identity<int8_t>{});
    case P::S16:
      return fn(std::type_identity<int16_t>{});
    case P::S32:
      return fn(std::type_identity<int32_t>{});
    case P::S64:
      return fn(std::type_identity<int64_t>{});
    case P::U8:
      return fn(std::type_identity<uint8_t>{});
    case P::U16:
      return fn(std::type_identity<uint16_t>{});
    case P::U32:
      return fn(std::type_identity<uint32_t>{});
    case P::U64:
      return fn(std::type_identity<uint64_t>{});
    case P::F32:
      return fn(std::type_identity<float>{});
    case P::F64:
      return fn(std::type_identity<double>{});
    case P::C64:
      return fn(std::type_identity<std::complex<float>>{});
    case P::C128:
      return fn(std::type_identity<std::complex<double>>{});
    default:
      return InvalidArgument("expected an array element type, got ", AsAbsl(PrimitiveTypeName(t)));
  }
}

absl::Status UnsupportedType(const HloInstruction& inst, PrimitiveType t);

// ------------------------------------------------------------ typed loops

// Element i of an operand stored as T, or its only element when the operand
// is a scalar broadcast over the result (step 0).
template <typename T>
struct Reader {
  const uint8_t* data;
  int64_t step;
  T operator[](int64_t i) const {
    T v;
    std::memcpy(&v, data + sizeof(T) * static_cast<size_t>(i * step), sizeof(T));
    return v;
  }
};

template <typename T>
Reader<T> ReadAs(const Literal& l, int64_t result_elements) {
  return {l.raw_data().data(), l.element_count() == result_elements ? 1 : 0};
}

// out[i] = f(in[i]...) for every element of `out`, stored as R.
template <typename R, typename F, typename... Ins>
void MapInto(Literal& out, const F& f, const Ins&... in) {
  uint8_t* dst = out.mutable_raw_data().data();
  const int64_t n = out.element_count();
  for (int64_t i = 0; i < n; ++i) {
    R r = f(in[i]...);
    std::memcpy(dst + sizeof(R) * static_cast<size_t>(i), &r, sizeof(R));
  }
}

template <size_t, typename T>
using Repeat = T;

// Width-aware kernels (shifts, clz, mulhi...) read the operand's true bit
// width from a `bits` member, which RunSameType fills in.
template <typename F>
concept HasBits = requires(F f) {
  f.bits;
};

// Applies kernel `f` to operands already in their compute type T, storing
// into `out` (in the declared type's compute type).
template <typename T, typename F, size_t... I>
absl::Status MapTyped(const HloInstruction& inst, const F& f,
                      const std::array<const Literal*, sizeof...(I)>& wide, Literal& out,
                      PrimitiveType in_type, std::index_sequence<I...>) {
  if constexpr (std::is_invocable_v<const F&, Repeat<I, T>...>) {
    using R = std::invoke_result_t<const F&, Repeat<I, T>...>;
    if (ComputeTypeOf<R>() != out.shape().element_type()) {
      return InvalidArgument("result type ", AsAbsl(PrimitiveTypeName(inst.shape().element_type())),
                             " does not match the operation on ",
                             AsAbsl(PrimitiveTypeName(in_type)));
    }
    const int64_t n = out.element_count();
    MapInto<R>(out, f, ReadAs<T>(*wide[I], n)...);
    return absl::OkStatus();
  } else {
    return UnsupportedType(inst, in_type);
  }
}

// Runs kernel `f` over operands of one element type (scalars broadcast),
// in their compute type, producing the instruction's declared type. The
// kernel's overloads decide which types the opcode accepts.
template <typename F, size_t N>
absl::StatusOr<Literal> RunSameType(const HloInstruction& inst, Operands ops, F f) {
  std::array<Literal, N> storage;
  std::array<const Literal*, N> wide;
  for (size_t i = 0; i < N; ++i) {
    XLITE_ASSIGN_OR_RETURN(wide[i], Widen(*ops[i], storage[i]));
  }
  const PrimitiveType in_type = ops[N - 1]->shape().element_type();
  if constexpr (HasBits<F>) f.bits = BitWidth(in_type);
  const PrimitiveType declared = inst.shape().element_type();
  Literal out(WithElementType(inst.shape(), ComputeType(declared)));
  XLITE_RETURN_IF_ERROR(DispatchCompute(ComputeType(in_type), [&](auto tag) -> absl::Status {
    return MapTyped<typename decltype(tag)::type>(inst, f, wide, out, in_type,
                                                  std::make_index_sequence<N>{});
  }));
  return Narrow(std::move(out), declared);
}

// A handler running kernel type F over the instruction's operands.
template <typename F, size_t N>
absl::StatusOr<Literal> SameTypeHandler(const HloInstruction& inst, Operands ops, EvalContext&) {
  return RunSameType<F, N>(inst, ops, F{});
}

// ------------------------------------------------------------ registration

void RegisterUnaryOps(OpHandlerTable& table);    // elementwise_unary.cc
void RegisterBinaryOps(OpHandlerTable& table);   // elementwise_binary.cc
void RegisterConvertOps(OpHandlerTable& table);  // convert_ops.cc
void RegisterRngOps(OpHandlerTable& table);      // rng_ops.cc
void RegisterMapIotaOps(OpHandlerTable& table);  // map_iota_ops.cc

}  // namespace xlite::eval

#endif  // XLITE_EVAL_ELEMENTWISE_INTERNAL_H_
