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
// uses), which beats absl's general string hash on these short keys.
struct NameHash {
  size_t operator()(std::string_view s) const {
    uint64_t h = kSeed ^ s.size();
    const char* p = s.data();
    size_t n = s.size();
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      h = Mix(h ^ word);
    }
    uint64_t tail = 0;
    for (size_t i = 0; i < n; ++i) tail |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
    return Mix(h ^ tail);
  }
  static constexpr uint64_t kSeed = 0x9e3779b97f4a7c15ull;
  static uint64_t Mix(uint64_t x) {
    unsigned __int128 m = static_cast<unsigned __int128>(x) * kSeed;
    return static_cast<uint64_t>(m >> 64) ^ static_cast<uint64_t>(m);
  }
};

template <typename V>
using NameMap = absl::flat_hash_map<std::string_view, V, NameHash>;
using NameSet = absl::flat_hash_set<std::string_view, NameHash>;

}  // namespace xlite

#endif  // XLITE_BASE_NAME_HASH_H_
