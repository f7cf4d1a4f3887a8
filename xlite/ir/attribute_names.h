// Text spellings of the attribute enums (comparison direction/type, fusion
// kind, fft type, rng distribution/algorithm, custom-call api_version and
// schedule, precision, transpose_a, padding type, subgroup types): one
// name <-> value table per enum, shared by the parser and the printer.
#ifndef XLITE_IR_ATTRIBUTE_NAMES_H_
#define XLITE_IR_ATTRIBUTE_NAMES_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "xlite/ir/attributes.h"
#include "xlite/ir/sharding.h"

namespace xlite {

// How one enum is written: names[i] spells the enumerator with value i. The
// printer writes `prefix` + name; the parser also takes the name without the
// prefix and, when `ignore_case`, any letter case (as XLA's parser does).
struct EnumSpelling {
  std::span<const std::string_view> names;
  std::string_view prefix;
  bool ignore_case = false;
};

// The spelling of enum E (specialised for every enum listed above).
template <typename E>
const EnumSpelling& SpellingOf();

template <>
const EnumSpelling& SpellingOf<ComparisonDirection>();
template <>
const EnumSpelling& SpellingOf<ComparisonType>();
template <>
const EnumSpelling& SpellingOf<FusionKind>();
template <>
const EnumSpelling& SpellingOf<FftType>();
template <>
const EnumSpelling& SpellingOf<RandomDistribution>();
template <>
const EnumSpelling& SpellingOf<RandomAlgorithm>();
template <>
const EnumSpelling& SpellingOf<CustomCallApiVersion>();
template <>
const EnumSpelling& SpellingOf<CustomCallSchedule>();
template <>
const EnumSpelling& SpellingOf<Precision>();
template <>
const EnumSpelling& SpellingOf<TransposeA>();
template <>
const EnumSpelling& SpellingOf<PaddingType>();
template <>
const EnumSpelling& SpellingOf<OpShardingType>();

// Index of the enumerator `text` spells under `spelling`, or -1.
int FindEnumName(const EnumSpelling& spelling, std::string_view text);
// "a, b, c" with prefixes, for "expected one of" errors.
std::string EnumNameList(const EnumSpelling& spelling);

// Appends the canonical text of `value` (prefix included).
template <typename E>
void AppendEnumName(E value, std::string* out) {
  const EnumSpelling& s = SpellingOf<E>();
  out->append(s.prefix);
  out->append(s.names[static_cast<size_t>(value)]);
}

template <typename E>
std::string EnumName(E value) {
  std::string out;
  AppendEnumName(value, &out);
  return out;
}

// The enumerator `text` spells, if any.
template <typename E>
std::optional<E> EnumFromName(std::string_view text) {
  int index = FindEnumName(SpellingOf<E>(), text);
  if (index < 0) return std::nullopt;
  return static_cast<E>(index);
}

}  // namespace xlite

#endif  // XLITE_IR_ATTRIBUTE_NAMES_H_
