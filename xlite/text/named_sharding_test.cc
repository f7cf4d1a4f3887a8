// Mesh ("V3") shardings: every written form prints back as written, means
// the tile-assignment sharding it should, and bad forms are refused.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/ir/named_sharding.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;

HloSharding Parse(const std::string& text) {
  absl::StatusOr<HloSharding> s = ParseSharding(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().message();
  return s.ok() ? *s : HloSharding::Unknown();
}

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<HloSharding> s = ParseSharding(text);
  EXPECT_FALSE(s.ok()) << text << " parsed";
  return s.ok() ? "" : std::string(s.status().message());
}

TEST(NamedShardingTest, PrintsBackAsWritten) {
  const char* forms[] = {
      "{mesh['x'=4,'y'=2], [{'y'}, {'x'}]}",
      "{mesh['x'=2,'y'=4,'z'=3], [{'x'}, {'z', 'y'}]}",
      "{mesh['p'=2,'q'=4], [{'q', 'p'}, {?}]}",
      "{mesh['p'=2,'q'=4,'r'=2], [{'q', ?}, {'r', 'p', ?}]}",
      "{mesh['p'=8,'q'=2], [{'p':(1)2}, {'p':(2)4, 'q'}]}",
      "{mesh['p'=8,'q'=3], [{'p':(4)2}, {'q', ?}]}",
      "{mesh['u'=2,'v'=2], device_ids=(0,3,1,2), [{'v'}]}",
      "{mesh['u'=2,'v'=4,'w'=2], device_ids=([8,2]T(1,0)), [{'w'}, {'u'}]}",
      "{mesh[], replicated}",
      "{mesh['x'=4,'y'=2], replicated}",
      "{mesh['x'=4,'y'=2], [{'y'}], replicated={'x'}}",
      "{mesh['x'=4,'y'=2], [], replicated={'x'}, unreduced={'y'}}",
      "{maximal_mesh[device_id=3]}",
      "{mesh['x'=4,'y'=2], unreduced}",
      "{mesh['x'=4,'y'=8], [{'x'}], unreduced={'y':(2)4}}",
      "{mesh['x'=4,'y'=2], manual}",
      "{mesh['x'=4,'y'=8], [{}, {'x'}], manual={'y':(1)2}}",
      "{mesh['a.b'=2,'<w> z'=4], [{'a.b'}, {'<w> z':(2)2}]}",
      "{mesh['x'=2,'y'=4,'z'=2], [{'x'}], replicated={'z'}, unreduced={'y':(1)2}, "
      "manual={'y':(2)2}, metadata={{op_name=\"f\"}, {op_name=\"g\"}}}",
      "{mesh['x'=4,'y'=2], replicated, metadata={{op_name=\"h\"}}}",
      "{{mesh['x'=4,'y'=2], [{'y'}, {'x'}]}, {mesh['x'=4,'y'=2], replicated}, "
      "{mesh['x'=4,'y'=2], [{'x', ?}], unreduced={'y'}}}",
      "{{replicated}, {mesh['x'=2], replicated}, {maximal device=1}, "
      "{maximal_mesh[device_id=1]}}",
      "{{mesh['x'=2,'y'=2], [{'x'}, {}]}, {devices=[2,2]<=[4] last_tile_dim_replicate}}",
      // Earlier XLA versions wrote the names bare.
      "{mesh[axis_0=2,axis_1=3], [{axis_0}, {axis_1}]}",
      "{mesh[x=4,y=8], [{y:(2)2}], replicated={x}}",
  };
  for (const char* form : forms) {
    EXPECT_EQ(PrintSharding(Parse(form)), form);
  }
  // Dims that split nothing are written `[]`; a sharding that splits nothing
  // is `replicated`; axes may be given by index.
  EXPECT_EQ(PrintSharding(Parse("{mesh['x'=4,'y'=2], [{}, {?}], replicated={'x'}}")),
            "{mesh['x'=4,'y'=2], [], replicated={'x'}}");
  EXPECT_EQ(PrintSharding(Parse("{mesh['x'=4,'y'=2], [{}, {}]}")),
            "{mesh['x'=4,'y'=2], replicated}");
  EXPECT_EQ(PrintSharding(Parse("{mesh['x'=4,'y'=2], [{1}, {0}]}")),
            "{mesh['x'=4,'y'=2], [{'y'}, {'x'}]}");
}

// The tile-assignment meaning: the same as the V2 sharding written beside it.
TEST(NamedShardingTest, MeansTheTileAssignmentSharding) {
  const std::pair<const char*, const char*> cases[] = {
      {"{mesh['a'=8], [{'a'}, {}]}", "{devices=[8,1]<=[8]}"},
      {"{mesh['a'=2,'b'=4], [{'b'}, {'a'}]}", "{devices=[4,2]<=[2,4]T(1,0)}"},
      {"{mesh['a'=2,'b'=4], [{'a'}, {'b'}]}", "{devices=[2,4]<=[8]}"},
      {"{mesh['a'=2,'b'=2,'c'=2], device_ids=(0,2,4,6,1,3,5,7), [{'c'}, {'a', 'b'}]}",
       "{devices=[2,4]0,4,1,5,2,6,3,7}"},
      {"{mesh['a'=2,'b'=4], device_ids=([4,2]T(1,0)), [{'b'}, {'a'}]}",
       "{devices=[4,2]<=[8]}"},
      {"{mesh['a'=2,'b'=4,'c'=4], [{}, {'a'}], replicated={'c'}}",
       "{devices=[1,2,16]<=[32] last_tile_dim_replicate}"},
      {"{mesh['a'=2,'b'=4,'c'=4], [{}, {'a', 'c'}], replicated={'b'}}",
       "{devices=[1,8,4]<=[2,4,4]T(0,2,1) last_tile_dim_replicate}"},
      {"{mesh['a'=2,'b'=4,'c'=4], [{'c'}, {'a', 'b'}]}", "{devices=[4,8]<=[8,4]T(1,0)}"},
      {"{mesh['a'=2,'b'=2], [{'a'}, {}], unreduced={'b'}}",
       "{devices=[2,1,2]<=[4] last_tile_dims={unreduced}}"},
      {"{mesh['a'=2,'b'=2], [{'a'}, {}], manual={'b'}}",
       "{devices=[2,1,2]<=[4] last_tile_dims={manual}}"},
      {"{mesh['a'=2,'b'=3,'c'=4,'d'=5], [{'a'}], replicated={'d'}, unreduced={'c'}, manual={'b'}}",
       "{devices=[2,3,4,5]<=[120] last_tile_dims={manual, unreduced, replicated}}"},
      // Sub-axes cut the axis into parts: a=16 as (1)2 and the rest (2)8.
      {"{mesh['a'=16,'b'=4], [{'b', 'a':(1)2}]}",
       "{devices=[8,8]<=[2,8,4]T(2,0,1) last_tile_dim_replicate}"},
      {"{mesh['a'=16,'b'=4], [{'b', 'a':(2)4}]}",
       "{devices=[16,4]<=[2,4,2,4]T(3,1,0,2) last_tile_dim_replicate}"},
      {"{mesh['a'=16,'b'=4], [{'a':(1)2, 'a':(8)2}, {'a':(2)4, 'b'}]}",
       "{devices=[4,16]<=[2,4,2,4]T(0,2,1,3)}"},
      {"{mesh['a'=4,'b'=2], replicated}", "{replicated}"},
      {"{mesh['a'=4,'b'=2], [{}], replicated={'a'}}", "{replicated}"},
      {"{mesh['a'=4,'b'=2], manual}", "{manual}"},
      {"{mesh['a'=4,'b'=2], unreduced}", "{unreduced}"},
      {"{maximal_mesh[device_id=5]}", "{maximal device=5}"},
  };
  for (const auto& [named, tiled] : cases) {
    const HloSharding n = Parse(named);
    const HloSharding t = Parse(tiled);
    EXPECT_TRUE(n == t) << named << " means " << PrintSharding(HloSharding(n).Normalized())
                        << ", not " << tiled;
  }
  // The tiles a device owns follow from that meaning.
  const HloSharding s = Parse("{mesh['a'=2,'b'=2,'c'=2], device_ids=(0,2,4,6,1,3,5,7), "
                              "[{'c'}, {'a', 'b'}]}");
  auto bounds = s.TileBounds(Shape(PrimitiveType::F32, {4, 8}), 4);
  ASSERT_TRUE(bounds.ok());
  EXPECT_EQ(*bounds, (std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {2, 4}}));
}

TEST(NamedShardingTest, DerivedShardingsPrintInTheTileForm) {
  HloSharding s = Parse("{mesh['a'=2,'b'=2], [{'a'}, {'b'}]}");
  s.set_shard_group({true, 3});
  EXPECT_EQ(PrintSharding(s), "{devices=[2,2]<=[4] shard_as 3}");
}

TEST(NamedShardingTest, NoDimsMeansEveryDimUnsplit) {
  auto module = ParseHloModule(
      "HloModule m, num_partitions=4\nENTRY e {\n  ROOT p = f32[4,6] parameter(0), "
      "sharding={mesh['a'=2,'b'=2], [], replicated={'a'}, unreduced={'b'}}\n}");
  ASSERT_TRUE(module.ok()) << module.status().message();
  const HloSharding& s = (*module)->entry_computation()->root_instruction()->sharding();
  EXPECT_EQ(s.TiledDataRank(), 2);
  EXPECT_TRUE(s == Parse("{devices=[1,1,2,2]<=[2,2]T(1,0) last_tile_dims={unreduced, replicated}}"));
  EXPECT_EQ(PrintSharding(s), "{mesh['a'=2,'b'=2], [], replicated={'a'}, unreduced={'b'}}");
}

TEST(NamedShardingTest, RefusesBadForms) {
  EXPECT_THAT(ErrorOf("{mesh['a'=2], [{'b'}]}"), HasSubstr("no mesh axis 'b'"));
  EXPECT_THAT(ErrorOf("{mesh['a'=2], [{3}]}"), HasSubstr("out of range"));
  EXPECT_THAT(ErrorOf("{mesh['a'=2,'b'=2], [{'a'}, {'a'}]}"), HasSubstr("overlaps"));
  EXPECT_THAT(ErrorOf("{mesh['a'=8], [{'a':(1)4}], replicated={'a':(2)2}}"),
              HasSubstr("overlaps"));
  EXPECT_THAT(ErrorOf("{mesh['a'=8], [{'a':(3)2}]}"), HasSubstr("does not fit"));
  EXPECT_THAT(ErrorOf("{mesh['a'=8], [{'a':(1)8}]}"), HasSubstr("does not fit"));
  EXPECT_THAT(ErrorOf("{mesh['a'=12], [{'a':(1)2}, {'a':(3)2}]}"), HasSubstr("do not nest"));
  EXPECT_THAT(ErrorOf("{mesh['a'=8], [{'a':(1)2, 'a':(2)2}]}"), HasSubstr("written as one"));
  EXPECT_THAT(ErrorOf("{mesh['a'=2,'b'=2], [], replicated={'b', 'a'}}"), HasSubstr("sorted"));
  EXPECT_THAT(ErrorOf("{mesh['a'=2,'b'=2], device_ids=(0,1,1,3), [{'a'}]}"),
              HasSubstr("permutation"));
  EXPECT_THAT(ErrorOf("{mesh['a'=2,'b'=2], device_ids=(0,1,2), [{'a'}]}"),
              HasSubstr("name 3 devices"));
  EXPECT_THAT(ErrorOf("{mesh['a'=2,'b'=2], device_ids=([3]), [{'a'}]}"),
              HasSubstr("iota reshape has 3 devices"));
  EXPECT_THAT(ErrorOf("{mesh['a'=2], [{?, 'a'}]}"), HasSubstr("after '?'"));
  EXPECT_THAT(ErrorOf("{mesh['a'=2], manual, [{'a'}]}"), HasSubstr("either a kind word"));
  EXPECT_THAT(ErrorOf("{mesh['a'=2], replicated, manual}"), HasSubstr("more than one kind"));
  EXPECT_THAT(ErrorOf("{mesh['a'=2], [{'a'}], shard_as=1}"), HasSubstr("unknown mesh sharding"));
  EXPECT_THAT(ErrorOf("{mesh['a'=4194304,'b'=8], [{'a'}]}"), HasSubstr("larger than"));
  EXPECT_THAT(ErrorOf("{maximal_mesh[device_id=-1]}"), HasSubstr("expected"));
}

}  // namespace
}  // namespace xlite
