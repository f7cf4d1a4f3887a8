#include "xlite/ir/primitive_type.h"

#include "absl/container/flat_hash_map.h"

namespace xlite {
namespace {

struct TypeTraits {
  std::string_view name;
  int bits;
  TypeKind kind;
};

constexpr TypeTraits kTraits[] = {
#define XLITE_PT_TRAITS(e, name, bits, kind) {name, bits, TypeKind::kind},
    XLITE_PRIMITIVE_TYPES(XLITE_PT_TRAITS)
#undef XLITE_PT_TRAITS
    {"invalid", 0, TypeKind::kInvalid}};

}  // namespace

std::string_view PrimitiveTypeName(PrimitiveType type) {
  return kTraits[static_cast<int>(type)].name;
}

std::optional<PrimitiveType> PrimitiveTypeFromName(std::string_view name) {
  static const auto* by_name = [] {
    auto* m = new absl::flat_hash_map<std::string_view, PrimitiveType>();
    for (int i = 0; i < kNumPrimitiveTypes; ++i) {
      if (kTraits[i].kind == TypeKind::kTuple) continue;
      (*m)[kTraits[i].name] = static_cast<PrimitiveType>(i);
    }
    return m;
  }();
  auto it = by_name->find(name);
  if (it == by_name->end()) return std::nullopt;
  return it->second;
}

int BitWidth(PrimitiveType type) { return kTraits[static_cast<int>(type)].bits; }
TypeKind KindOf(PrimitiveType type) { return kTraits[static_cast<int>(type)].kind; }

int StorageBytes(PrimitiveType type) {
  int bits = BitWidth(type);
  return bits < 8 ? (bits == 0 ? 0 : 1) : bits / 8;
}

PrimitiveType ComplexComponentType(PrimitiveType t) {
  if (t == PrimitiveType::C64) return PrimitiveType::F32;
  if (t == PrimitiveType::C128) return PrimitiveType::F64;
  return PrimitiveType::PRIMITIVE_TYPE_INVALID;
}

}  // namespace xlite
