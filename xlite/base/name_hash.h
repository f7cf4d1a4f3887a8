// A fast hash for the short names of HLO text (instructions, computations),
// which the parser and verifier hash once or twice per instruction, and a
// flat_hash_map keyed by string_view that uses it.
#ifndef XLITE_BASE_NAME_HASH_H_
#define XLITE_BASE_NAME_HASH_H_

#include <cstdint>
#include <cstring>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace xlite {

// Eight bytes at a time through a 128-bit multiply fold (the mixing absl
// uses), the last eight bytes read overlapping the previous word and short
// keys read as two overlapping 4-byte words: no per-byte loop, which beats
// absl's general string hash on these short keys.
struct NameHash {
  size_t operator()(std::string_view s) const {
    const char* p = s.data();
    const size_t n = s.size();
    uint64_t h = kSeed ^ n;
    if (n >= 8) {
      const char* last = p + n - 8;
      for (; p < last; p += 8) h = Mix(h ^ Load<uint64_t>(p));
      return Mix(h ^ Load<uint64_t>(last));
    }
    uint64_t tail = 0;
    if (n >= 4) {
      tail = (uint64_t{Load<uint32_t>(p)} << 32) | Load<uint32_t>(p + n - 4);
    } else if (n > 0) {
      tail = (uint64_t{static_cast<unsigned char>(p[0])} << 16) |
             (uint64_t{static_cast<unsigned char>(p[n / 2])} << 8) |
             static_cast<unsigned char>(p[n - 1]);
    }
    return Mix(h ^ tail);
  }
  static constexpr uint64_t kSeed = 0x9e3779b97f4a7c15ull;
  static uint64_t Mix(uint64_t x) {
    unsigned __int128 m = static_cast<unsigned __int128>(x) * kSeed;
    return static_cast<uint64_t>(m >> 64) ^ static_cast<uint64_t>(m);
  }
  template <typename T>
  static T Load(const char* p) {
    T word;
    std::memcpy(&word, p, sizeof(T));
    return word;
  }
};

template <typename V>
using NameMap = absl::flat_hash_map<std::string_view, V, NameHash>;
using NameSet = absl::flat_hash_set<std::string_view, NameHash>;

}  // namespace xlite

#endif  // XLITE_BASE_NAME_HASH_H_
