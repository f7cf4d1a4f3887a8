// String helpers. The Debian abseil does not alias std::string_view, so
// StrCat and friends need names from the IR (std::string_view) converted.
#ifndef XLITE_BASE_STRINGS_H_
#define XLITE_BASE_STRINGS_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace xlite {

inline absl::string_view AsAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

}  // namespace xlite

#endif  // XLITE_BASE_STRINGS_H_
