#include "xlite/ir/attribute_names.h"

namespace xlite {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Each table is indexed by the enumerator's value, so its order must follow
// the enum declaration in attributes.h / sharding.h.
constexpr std::string_view kDirections[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
constexpr std::string_view kComparisonTypes[] = {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
constexpr std::string_view kFusionKinds[] = {"kLoop", "kInput", "kOutput", "kCustom"};
constexpr std::string_view kFftTypes[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
constexpr std::string_view kDistributions[] = {"rng_uniform", "rng_normal"};
constexpr std::string_view kAlgorithms[] = {"rng_default", "rng_three_fry", "rng_philox"};
constexpr std::string_view kApiVersions[] = {"ORIGINAL", "STATUS_RETURNING",
                                             "STATUS_RETURNING_UNIFIED", "TYPED_FFI"};
constexpr std::string_view kSchedules[] = {"NONE", "LATEST", "EARLIEST"};
constexpr std::string_view kPrecisions[] = {"default", "high", "highest", "packed_nibble"};
constexpr std::string_view kTransposes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
constexpr std::string_view kPaddingTypes[] = {"PADDING_VALID", "PADDING_SAME"};
constexpr std::string_view kSubgroupTypes[] = {"replicated", "manual", "maximal", "unreduced"};

}  // namespace

#define XLITE_ENUM_SPELLING(Enum, table, prefix, ignore_case)            \
  template <>                                                            \
  const EnumSpelling& SpellingOf<Enum>() {                               \
    static constexpr EnumSpelling kSpelling{table, prefix, ignore_case}; \
    return kSpelling;                                                    \
  }

XLITE_ENUM_SPELLING(ComparisonDirection, kDirections, "", false)
XLITE_ENUM_SPELLING(ComparisonType, kComparisonTypes, "", false)
XLITE_ENUM_SPELLING(FusionKind, kFusionKinds, "", false)
XLITE_ENUM_SPELLING(FftType, kFftTypes, "", false)
XLITE_ENUM_SPELLING(RandomDistribution, kDistributions, "", false)
XLITE_ENUM_SPELLING(RandomAlgorithm, kAlgorithms, "", false)
XLITE_ENUM_SPELLING(CustomCallApiVersion, kApiVersions, "API_VERSION_", true)
XLITE_ENUM_SPELLING(CustomCallSchedule, kSchedules, "SCHEDULE_", true)
XLITE_ENUM_SPELLING(Precision, kPrecisions, "", true)
XLITE_ENUM_SPELLING(TransposeA, kTransposes, "", false)
XLITE_ENUM_SPELLING(PaddingType, kPaddingTypes, "", false)
XLITE_ENUM_SPELLING(OpShardingType, kSubgroupTypes, "", false)

#undef XLITE_ENUM_SPELLING

int FindEnumName(const EnumSpelling& spelling, std::string_view text) {
  const std::string_view prefix = spelling.prefix;
  if (spelling.ignore_case && text.size() > prefix.size() &&
      EqualsIgnoreCase(text.substr(0, prefix.size()), prefix)) {
    text.remove_prefix(prefix.size());
  }
  for (size_t i = 0; i < spelling.names.size(); ++i) {
    std::string_view name = spelling.names[i];
    if (spelling.ignore_case ? EqualsIgnoreCase(text, name) : text == name) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

std::string EnumNameList(const EnumSpelling& spelling) {
  std::string out;
  for (size_t i = 0; i < spelling.names.size(); ++i) {
    if (i > 0) out.append(", ");
    out.append(spelling.prefix);
    out.append(spelling.names[i]);
  }
  return out;
}

}  // namespace xlite
