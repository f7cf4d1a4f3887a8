#include "xlite/base/name_hash.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace xlite {
namespace {

// Every byte of a key of any length feeds the hash (the short-key and tail
// paths read overlapping words), and equal keys hash equally wherever they
// lie in memory.
TEST(NameHashTest, EveryByteCounts) {
  NameHash hash;
  for (size_t n = 0; n <= 40; ++n) {
    std::string key(n, 'a');
    for (size_t i = 0; i < n; ++i) key[i] = static_cast<char>('a' + i % 26);
    const size_t base = hash(key);
    std::string copy = "xx" + key;
    EXPECT_EQ(hash(std::string_view(copy).substr(2)), base) << n;
    for (size_t i = 0; i < n; ++i) {
      std::string changed = key;
      changed[i] = '.';
      EXPECT_NE(hash(changed), base) << "length " << n << " byte " << i;
    }
    EXPECT_NE(hash(key + "a"), base) << n;
  }
}

TEST(NameHashTest, MapFindsNames) {
  std::vector<std::string> names;
  names.reserve(1000);  // the map keeps views of these strings
  NameMap<int> map;
  for (int i = 0; i < 1000; ++i) map[names.emplace_back("add." + std::to_string(i))] = i;
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(map.at("add." + std::to_string(i)), i);
  EXPECT_FALSE(map.contains("add.1000"));
}

}  // namespace
}  // namespace xlite
