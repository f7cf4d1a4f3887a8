#include "xlite/base/byte_text.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace xlite {
namespace {

TEST(BytesTextTest, SmallCountsUnitsAndSaturation) {
  EXPECT_EQ(BytesText(0), "0 bytes");
  EXPECT_EQ(BytesText(1023), "1023 bytes");
  EXPECT_EQ(BytesText(1536), "1.5 KiB (1536 bytes)");
  EXPECT_EQ(BytesText(1536, /*with_exact=*/false), "1.5 KiB");
  EXPECT_EQ(BytesText(40000000000), "37.3 GiB (40000000000 bytes)");
  EXPECT_EQ(BytesText(int64_t{1} << 62), "4.0 EiB (4611686018427387904 bytes)");
  EXPECT_EQ(BytesText(INT64_MAX), "more than 2^63 bytes");
}

}  // namespace
}  // namespace xlite
