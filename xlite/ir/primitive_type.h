// Every HLO element type with one traits table: its text name, bit width and
// kind. The X-macro below is the only list of types.
#ifndef XLITE_IR_PRIMITIVE_TYPE_H_
#define XLITE_IR_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace xlite {

enum class TypeKind : uint8_t {
  kPred,
  kSignedInt,
  kUnsignedInt,
  kFloat,
  kComplex,
  kToken,
  kTuple,
  kOpaque,
  kInvalid
};

// X(enumerator, text name, bit width, kind)
#define XLITE_PRIMITIVE_TYPES(X)               \
  X(PRED, "pred", 8, kPred)                    \
  X(S1, "s1", 1, kSignedInt)                   \
  X(S2, "s2", 2, kSignedInt)                   \
  X(S4, "s4", 4, kSignedInt)                   \
  X(S8, "s8", 8, kSignedInt)                   \
  X(S16, "s16", 16, kSignedInt)                \
  X(S32, "s32", 32, kSignedInt)                \
  X(S64, "s64", 64, kSignedInt)                \
  X(U1, "u1", 1, kUnsignedInt)                 \
  X(U2, "u2", 2, kUnsignedInt)                 \
  X(U4, "u4", 4, kUnsignedInt)                 \
  X(U8, "u8", 8, kUnsignedInt)                 \
  X(U16, "u16", 16, kUnsignedInt)              \
  X(U32, "u32", 32, kUnsignedInt)              \
  X(U64, "u64", 64, kUnsignedInt)              \
  X(F16, "f16", 16, kFloat)                    \
  X(BF16, "bf16", 16, kFloat)                  \
  X(F32, "f32", 32, kFloat)                    \
  X(F64, "f64", 64, kFloat)                    \
  X(F8E5M2, "f8e5m2", 8, kFloat)               \
  X(F8E4M3, "f8e4m3", 8, kFloat)               \
  X(F8E4M3FN, "f8e4m3fn", 8, kFloat)           \
  X(F8E4M3B11FNUZ, "f8e4m3b11fnuz", 8, kFloat) \
  X(F8E3M4, "f8e3m4", 8, kFloat)               \
  X(F8E5M2FNUZ, "f8e5m2fnuz", 8, kFloat)       \
  X(F8E4M3FNUZ, "f8e4m3fnuz", 8, kFloat)       \
  X(F8E8M0FNU, "f8e8m0fnu", 8, kFloat)         \
  X(F4E2M1FN, "f4e2m1fn", 4, kFloat)           \
  X(C64, "c64", 64, kComplex)                  \
  X(C128, "c128", 128, kComplex)               \
  X(TOKEN, "token", 0, kToken)                 \
  X(TUPLE, "tuple", 0, kTuple)                 \
  X(OPAQUE_TYPE, "opaque", 0, kOpaque)

enum class PrimitiveType : uint8_t {
#define XLITE_PT_ENUM(e, name, bits, kind) e,
  XLITE_PRIMITIVE_TYPES(XLITE_PT_ENUM)
#undef XLITE_PT_ENUM
      PRIMITIVE_TYPE_INVALID
};

inline constexpr int kNumPrimitiveTypes = static_cast<int>(PrimitiveType::PRIMITIVE_TYPE_INVALID);

std::string_view PrimitiveTypeName(PrimitiveType type);
// The type whose text name is `name` ("f32", "opaque"...), if any. "tuple" is
// not a type token in HLO text, so it is not returned here.
std::optional<PrimitiveType> PrimitiveTypeFromName(std::string_view name);
int BitWidth(PrimitiveType type);
TypeKind KindOf(PrimitiveType type);
// Bytes one element occupies in a dense Literal: sub-byte types take a byte.
int StorageBytes(PrimitiveType type);

inline bool IsFloat(PrimitiveType t) { return KindOf(t) == TypeKind::kFloat; }
inline bool IsComplex(PrimitiveType t) { return KindOf(t) == TypeKind::kComplex; }
inline bool IsSignedInt(PrimitiveType t) { return KindOf(t) == TypeKind::kSignedInt; }
inline bool IsUnsignedInt(PrimitiveType t) { return KindOf(t) == TypeKind::kUnsignedInt; }
inline bool IsInteger(PrimitiveType t) { return IsSignedInt(t) || IsUnsignedInt(t); }
inline bool IsPred(PrimitiveType t) { return t == PrimitiveType::PRED; }
// Types an array shape may have (everything but token, tuple and opaque).
inline bool IsArrayType(PrimitiveType t) {
  TypeKind k = KindOf(t);
  return k != TypeKind::kToken && k != TypeKind::kTuple && k != TypeKind::kOpaque &&
         k != TypeKind::kInvalid;
}
// The real component type of a complex type (c64 -> f32, c128 -> f64).
PrimitiveType ComplexComponentType(PrimitiveType t);

}  // namespace xlite

#endif  // XLITE_IR_PRIMITIVE_TYPE_H_
