#include "xlite/ir/primitive_type.h"

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

namespace {

// Open-addressing table of the element type names, probed by a hash of the
// length and three characters: one or two string compares per lookup.
class TypeNameTable {
 public:
  TypeNameTable() {
    for (int i = 0; i < kNumPrimitiveTypes; ++i) {
      PrimitiveType t = static_cast<PrimitiveType>(i);
      std::string_view name = kTraits[i].name;
      if (kTraits[i].kind == TypeKind::kTuple || name.empty()) continue;
      size_t slot = Hash(name);
      while (names_[slot].data() != nullptr) slot = (slot + 1) % kSlots;
      names_[slot] = name;
      types_[slot] = t;
    }
  }
  std::optional<PrimitiveType> Find(std::string_view name) const {
    if (name.size() < 2 || name.size() > 13) return std::nullopt;
    for (size_t slot = Hash(name); names_[slot].data() != nullptr; slot = (slot + 1) % kSlots) {
      if (names_[slot] == name) return types_[slot];
    }
    return std::nullopt;
  }

 private:
  static constexpr size_t kSlots = 128;  // over 3x the type count: short probes
  static size_t Hash(std::string_view name) {
    size_t h = name.size() * 131 + static_cast<unsigned char>(name[0]) * 31 +
               static_cast<unsigned char>(name[1]) * 7 + static_cast<unsigned char>(name.back());
    return h % kSlots;
  }
  std::string_view names_[kSlots] = {};
  PrimitiveType types_[kSlots] = {};
};

}  // namespace

std::optional<PrimitiveType> PrimitiveTypeFromName(std::string_view name) {
  static const TypeNameTable* const table = new TypeNameTable();
  return table->Find(name);
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
