// UTF-8 boundaries for text that is cut to a length (error quotes, labels):
// a cut never splits a character, so what is printed stays valid UTF-8.
#ifndef XLITE_BASE_UTF8_H_
#define XLITE_BASE_UTF8_H_

#include <cstddef>
#include <string_view>

namespace xlite {

// `at` moved back to the first byte of the UTF-8 character it is inside
// (unchanged at a character's start, at 0 or at the end of `text`).
inline size_t Utf8CharacterStart(std::string_view text, size_t at) {
  while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) {
    --at;
  }
  return at;
}

}  // namespace xlite

#endif  // XLITE_BASE_UTF8_H_
