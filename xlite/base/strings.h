// The one string adapter. The Debian abseil does not alias std::string_view
// (the IR's name type), so absl::StrCat and friends do not take it: AsAbsl
// converts one view; Cat and Append are absl::StrCat and absl::StrAppend
// taking std::string_view too.
#ifndef XLITE_BASE_STRINGS_H_
#define XLITE_BASE_STRINGS_H_

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace xlite {

inline absl::string_view AsAbsl(std::string_view s) {
  return absl::string_view(s.data(), s.size());
}

// A Cat argument as absl::StrCat takes it: std::string_view converted,
// everything else (strings, C strings, numbers, absl views) unchanged.
template <typename T>
const T& StrCatArg(const T& value) {
  return value;
}
inline absl::string_view StrCatArg(std::string_view s) { return AsAbsl(s); }

template <typename... Args>
std::string Cat(const Args&... args) {
  return absl::StrCat(StrCatArg(args)...);
}
template <typename... Args>
void Append(std::string* out, const Args&... args) {
  absl::StrAppend(out, StrCatArg(args)...);
}

}  // namespace xlite

#endif  // XLITE_BASE_STRINGS_H_
