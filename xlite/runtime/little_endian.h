// Little-endian loads and stores of fixed-width integers in byte strings: the
// byte order of the .npy header fields and of every zip record.
#ifndef XLITE_RUNTIME_LITTLE_ENDIAN_H_
#define XLITE_RUNTIME_LITTLE_ENDIAN_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace xlite::runtime {

// The caller checks that `sizeof(T)` bytes are present at `offset`.
template <typename T>
T LoadLE(std::string_view bytes, size_t offset) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    v |= static_cast<T>(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
  }
  return v;
}

template <typename T>
void AppendLE(std::string* out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// Whether `size` bytes at `offset` lie inside `bytes`, without overflow.
inline bool Fits(std::string_view bytes, uint64_t offset, uint64_t size) {
  return offset <= bytes.size() && size <= bytes.size() - offset;
}

}  // namespace xlite::runtime

#endif  // XLITE_RUNTIME_LITTLE_ENDIAN_H_
