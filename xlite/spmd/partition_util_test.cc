#include "xlite/spmd/partition_util.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/text/parser.h"

namespace xlite::spmd {
namespace {

using ::testing::ElementsAre;

TEST(GroupsAlongTest, GroupsDevicesThatDifferOnlyAlongTheDims) {
  absl::StatusOr<HloSharding> s = ParseSharding("{devices=[2,2]<=[2,2]T(1,0)}");
  ASSERT_TRUE(s.ok()) << s.status();
  // Tiles: (0,0)=0, (0,1)=2, (1,0)=1, (1,1)=3.
  EXPECT_THAT(GroupsAlong(*s, {1}, 4), ElementsAre(ElementsAre(0, 2), ElementsAre(1, 3)));
  EXPECT_THAT(GroupsAlong(*s, {0}, 4), ElementsAre(ElementsAre(0, 1), ElementsAre(2, 3)));
}

// Each device's tile is found in one pass over the tiles: 64k devices take
// milliseconds (a scan of the tiles per device took seconds).
TEST(GroupsAlongTest, ManyDevicesInOneGroup) {
  constexpr int64_t kDevices = 1 << 16;
  absl::StatusOr<HloSharding> s = ParseSharding("{devices=[65536]<=[65536]}");
  ASSERT_TRUE(s.ok()) << s.status();
  std::vector<std::vector<int64_t>> groups = GroupsAlong(*s, {0}, kDevices);
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(groups[0].size(), static_cast<size_t>(kDevices));
  for (int64_t d = 0; d < kDevices; ++d) ASSERT_EQ(groups[0][static_cast<size_t>(d)], d);
}

}  // namespace
}  // namespace xlite::spmd
