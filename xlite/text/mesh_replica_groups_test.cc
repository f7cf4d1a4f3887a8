// Replica groups in every form XLA prints (explicit, iota, mesh with
// device_ids and sub-axes): each prints back as written and expands to the
// groups XLA's flattened_replica_groups gives, worked out here by hand.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite {
namespace {

using Groups = std::vector<std::vector<int64_t>>;

std::string ModuleWith(const std::string& groups) {
  return absl::StrCat(
      "HloModule m, replica_count=8\n\n"
      "%add (a: f32[], b: f32[]) -> f32[] {\n"
      "  %a = f32[] parameter(0)\n"
      "  %b = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(%a, %b)\n"
      "}\n\n"
      "ENTRY %e (p: f32[4]) -> f32[4] {\n"
      "  %p = f32[4] parameter(0)\n"
      "  ROOT %r = f32[4] all-reduce(%p), replica_groups=",
      groups, ", to_apply=%add\n}\n\n");
}

struct Case {
  std::string text;
  Groups groups;
};

TEST(MeshReplicaGroupsTest, PrintsBackAndExpandsAsXlaDoes) {
  const Case cases[] = {
      {"{{0,1},{2,3}}", {{0, 1}, {2, 3}}},
      {"[2,4]<=[8]", {{0, 1, 2, 3}, {4, 5, 6, 7}}},
      // iota 0..7 as [4,2], transposed to [2,4]: element (i,j) is 2j+i.
      {"[2,4]<=[4,2]T(1,0)", {{0, 2, 4, 6}, {1, 3, 5, 7}}},
      // Device 4x+2y+z at (x,y,z); a group walks z then x, groups follow y.
      {"mesh['x'=2,'y'=2,'z'=2] {'z','x'}", {{0, 4, 1, 5}, {2, 6, 3, 7}}},
      {"mesh[x=2,y=2,z=2] {y}", {{0, 2}, {1, 3}, {4, 6}, {5, 7}}},
      // device_ids ([2,4]T(1,0)): the device at (i,j) of the [4,2] mesh is 4j+i.
      {"mesh['axis_0'=4,'axis_1'=2], device_ids=([2,4]T(1,0)) {'axis_0'}",
       {{0, 1, 2, 3}, {4, 5, 6, 7}}},
      {"mesh['axis_0'=4,'axis_1'=2], device_ids=([2,4]T(1,0)) {'axis_1'}",
       {{0, 4}, {1, 5}, {2, 6}, {3, 7}}},
      {"mesh['a'=2,'b'=2,'c'=2], device_ids=(7,6,5,4,3,2,1,0) {'a','c'}",
       {{7, 6, 3, 2}, {5, 4, 1, 0}}},
      // 'a'=8 as parts [2,4]: (1)2 is the major one, (2)4 the minor one.
      {"mesh['a'=8] {'a':(1)2}", {{0, 4}, {1, 5}, {2, 6}, {3, 7}}},
      {"mesh['a'=8] {'a':(2)4}", {{0, 1, 2, 3}, {4, 5, 6, 7}}},
      // 'a'=8 as [2,2,2]: (1)2 and (4)2 listed, the middle part unlisted.
      {"mesh['a'=8] {'a':(1)2,'a':(4)2}", {{0, 1, 4, 5}, {2, 3, 6, 7}}},
      {"mesh['a'=8] {'a':(4)2,'a':(1)2}", {{0, 4, 1, 5}, {2, 6, 3, 7}}},
      // Device 4p+2q+b with 'a' as parts p, q; a group walks b then q.
      {"mesh['a'=4,'b'=2] {'b','a':(2)2}", {{0, 2, 1, 3}, {4, 6, 5, 7}}},
      {"mesh['a'=4,'b'=2] {}", {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}},
  };
  for (const Case& c : cases) {
    const std::string text = ModuleWith(c.text);
    auto module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << c.text << ": " << module.status();
    EXPECT_EQ(PrintModule(**module), text) << c.text;
    const HloInstruction* root = (*module)->entry_computation()->root_instruction();
    EXPECT_EQ(root->attrs<CollectiveAttrs>().replica_groups.Groups(), c.groups) << c.text;
  }
}

}  // namespace
}  // namespace xlite
