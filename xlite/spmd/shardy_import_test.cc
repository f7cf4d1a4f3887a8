#include "xlite/spmd/shardy_import.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/spmd/sharding_annotations.h"
#include "xlite/spmd/shardy_syntax.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kHeader[] =
    "HloModule m, num_partitions=8, frontend_attributes={xla.sdy.meshes={mesh = "
    "#sdy.mesh<[\"x\"=2, \"y\"=4]>}}\n";

std::unique_ptr<HloModule> Parse(const std::string& body) {
  auto module = ParseHloModule(kHeader + body);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

const HloInstruction* Find(const HloModule& m, std::string_view name) {
  for (const auto& c : m.computations()) {
    for (const auto& inst : c->instructions()) {
      if (inst->name() == name) return inst.get();
    }
  }
  return nullptr;
}

const HloInstruction* FindTarget(const HloModule& m, std::string_view target) {
  for (const auto& c : m.computations()) {
    for (const auto& inst : c->instructions()) {
      if (inst->opcode() == HloOpcode::kCustomCall &&
          inst->attrs<CustomCallAttrs>().target == target) {
        return inst.get();
      }
    }
  }
  return nullptr;
}

TEST(ShardySyntaxTest, MeshesAndShardings) {
  auto meshes = ParseSdyMeshes(
      "{mesh = #sdy.mesh<[\"x\"=2, \"y\"=4]>, \"other\" = #sdy.mesh<[\"a\"=2], "
      "device_ids=[1,0]>, single = #sdy.mesh<[], device_ids=[3]>}");
  ASSERT_TRUE(meshes.ok()) << meshes.status();
  ASSERT_EQ(meshes->size(), 3u);
  EXPECT_EQ(meshes->at("mesh").num_devices(), 8);
  EXPECT_TRUE(meshes->at("other").device_ids.has_value());
  EXPECT_EQ(meshes->at("single").maximal_device, 3);

  auto s = ParseSdyShardings(
      "#sdy.sharding_per_value<[<@mesh, [{\"x\", ?}, {\"y\":(2)2}p1, {?}], "
      "replicated={\"y\":(1)2}>, "
      "<@other, []>]>",
      *meshes);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->size(), 2u);
  const NamedSharding& first = (*s)[0];
  ASSERT_EQ(first.dims.size(), 3u);
  EXPECT_TRUE(first.dims[0].open);
  EXPECT_FALSE(first.dims[1].open);
  EXPECT_EQ(first.dims[1].axes[0].pre_size, 2);
  EXPECT_TRUE(first.dims[2].open && first.dims[2].axes.empty());
  EXPECT_EQ(first.replicated.size(), 1u);
  EXPECT_TRUE((*s)[1].dims.empty());

  auto manual = ParseSdyManualAxes("#sdy<manual_axes{\"x\", \"y\"}>");
  ASSERT_TRUE(manual.ok());
  EXPECT_THAT(*manual, ElementsAre("x", "y"));
}

TEST(ShardySyntaxTest, BadInputIsAnError) {
  auto meshes = ParseSdyMeshes("{mesh = #sdy.mesh<[\"x\"=2]>}");
  ASSERT_TRUE(meshes.ok());
  for (const char* text : {"#sdy.sharding<@nope, [{}]>", "#sdy.sharding<@mesh, [{\"z\"}]>",
                           "#sdy.sharding<@mesh, [{\"x\"}", "#sdy.sharding<@mesh, [{?, \"x\"}]>",
                           "#sdy.sharding<@mesh [{}]>"}) {
    auto s = ParseSdyShardings(text, *meshes);
    EXPECT_FALSE(s.ok()) << text;
    EXPECT_THAT(s.status().message(), HasSubstr("malformed Shardy attribute")) << text;
  }
  EXPECT_THAT(ParseSdyShardings("#sdy.sharding<@nope, [{}]>", *meshes).status().message(),
              HasSubstr("unknown mesh @nope"));
  EXPECT_FALSE(ParseSdyMeshes("{mesh = #sdy.mesh<[\"x\"=2], device_ids=[0,0]>}").ok());
  EXPECT_FALSE(ParseSdyMeshes("{mesh = #sdy.mesh<[\"x\"=2, \"x\"=2]>}").ok());
  EXPECT_FALSE(ParseSdyManualAxes("#sdy<manual_axes{\"x\"").ok());
}

// The Shardy annotation wins over the HLO sharding beside it; its open dim
// stays free for propagation.
TEST(ShardyImportTest, ShardingAttributeWithOpenDims) {
  auto m = Parse(R"(
ENTRY %main (a: f32[16,32]) -> f32[16,32] {
  %a = f32[16,32] parameter(0), sharding={devices=[2,4]<=[8]}, frontend_attributes={xla.sdy.sharding="#sdy.sharding<@mesh, [{\"y\"}, {}]>"}
  %c = f32[16,32] custom-call(%a), custom_call_target="Sharding", sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}, frontend_attributes={xla.sdy.sharding="#sdy.sharding_per_value<[<@mesh, [{\"x\"}, {?}]>]>"}
  ROOT %r = f32[16,32] custom-call(%c), custom_call_target="xla.sdy.FuncResultSharding", frontend_attributes={xla.sdy.sharding="#sdy.sharding_per_value<[<@mesh, [{?}, {?}]>]>"}
})");
  ASSERT_NE(m, nullptr);
  auto changed = ImportShardy(*m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  const HloInstruction* a = Find(*m, "a");
  EXPECT_EQ(PrintSharding(a->sharding().Normalized()),
            "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}");
  const HloInstruction* c = Find(*m, "c");
  EXPECT_THAT(OpenDims(c->sharding()), ElementsAre(1));
  EXPECT_EQ(FindFrontendAttribute(c->frontend_attributes(), "xla.sdy.sharding"), nullptr);
  // A fully open constraint constrains nothing.
  const HloInstruction* r = Find(*m, "r");
  EXPECT_FALSE(r->has_sharding());
  EXPECT_EQ(r->attrs<CustomCallAttrs>().target, "Sharding");
  EXPECT_FALSE(*ImportShardy(*m));  // nothing left to import
}

constexpr char kShardMap[] = R"(
%sum (p: f32[], q: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %s = f32[] add(%p, %q)
}

%xla.sdy.manual_computation_body.1 (b: f32[LOCAL]) -> f32[LOCAL] {
  %b = f32[LOCAL] parameter(0)
  ROOT %ar = f32[LOCAL] all-reduce(%b), channel_id=1, replica_groups={{0,4},{1,5},{2,6},{3,7}}, use_global_device_ids=true, to_apply=%sum
}

ENTRY %main (a: f32[16,32]) -> f32[OUT] {
  %a = f32[16,32] parameter(0)
  %g = f32[LOCAL] custom-call(%a), custom_call_target="xla.sdy.GlobalToLocalShape", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.in_shardings="#sdy.sharding_per_value<[<@mesh, [IN]>]>",xla.sdy.manual_axes="#sdy<manual_axes{MANUAL}>"}
  %call = f32[LOCAL] call(%g), to_apply=%xla.sdy.manual_computation_body.1, frontend_attributes={inlineable="false"}
  ROOT %l = f32[OUT] custom-call(%call), custom_call_target="xla.sdy.LocalToGlobalShape", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.manual_axes="#sdy<manual_axes{MANUAL}>",xla.sdy.out_shardings="#sdy.sharding_per_value<[<@mesh, [OUTSPEC]>]>"}
})";

std::string ShardMap(std::string local, std::string out, std::string in, std::string manual,
                     std::string out_spec) {
  std::string text = kShardMap;
  auto replace = [&](const std::string& key, const std::string& value) {
    for (size_t at; (at = text.find(key)) != std::string::npos;)
      text.replace(at, key.size(), value);
  };
  replace("OUTSPEC", out_spec);
  replace("LOCAL", local);
  replace("OUT", out);
  replace("IN", in);
  replace("MANUAL", manual);
  return text;
}

TEST(ShardyImportTest, FullyManualShardMap) {
  auto m = Parse(ShardMap("8,8", "8,32", "{\\\"x\\\"}, {\\\"y\\\"}", "\\\"x\\\", \\\"y\\\"",
                          "{}, {\\\"y\\\"}"));
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(ImportShardy(*m).ok());
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
  const HloInstruction* to_shard = FindTarget(*m, "SPMDFullToShardShape");
  ASSERT_NE(to_shard, nullptr);
  EXPECT_TRUE(to_shard->sharding().IsManual());
  EXPECT_EQ(PrintSharding(to_shard->operand(0)->sharding()), "{devices=[2,4]<=[8]}");
  const HloInstruction* to_full = FindTarget(*m, "SPMDShardToFullShape");
  ASSERT_NE(to_full, nullptr);
  EXPECT_EQ(PrintSharding(to_full->sharding()),
            "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}");
  // The body is inlined: its all-reduce sits between the markers.
  EXPECT_EQ(to_full->operand(0)->operand(0)->opcode(), HloOpcode::kAllReduce);
  EXPECT_EQ(FindTarget(*m, "xla.sdy.GlobalToLocalShape"), nullptr);
  EXPECT_EQ(m->computations().size(), 2u);
}

TEST(ShardyImportTest, PartiallyManualShardMap) {
  auto m = Parse(ShardMap("8,32", "8,32", "{\\\"x\\\", ?}, {?}", "\\\"x\\\"", "{?}, {?}"));
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(ImportShardy(*m).ok());
  const HloInstruction* to_shard = FindTarget(*m, "SPMDFullToShardShape");
  ASSERT_NE(to_shard, nullptr);
  EXPECT_TRUE(to_shard->sharding().IsManualSubgroup());
  EXPECT_EQ(PrintSharding(to_shard->sharding()),
            "{devices=[1,1,2,4]<=[8] last_tile_dims={manual, replicated}}");
}

TEST(ShardyImportTest, BadShardMapsAreErrors) {
  // The local shape is not the manual tile of the global one.
  auto m = Parse(ShardMap("4,8", "8,32", "{\\\"x\\\"}, {\\\"y\\\"}", "\\\"x\\\", \\\"y\\\"",
                          "{}, {\\\"y\\\"}"));
  ASSERT_NE(m, nullptr);
  auto status = ImportShardy(*m).status();
  EXPECT_THAT(status.message(), HasSubstr("is not the manual tile of"));
  // A manual axis the mesh does not have.
  m = Parse(ShardMap("8,8", "8,32", "{\\\"x\\\"}, {\\\"y\\\"}", "\\\"x\\\", \\\"z\\\"",
                     "{}, {\\\"y\\\"}"));
  ASSERT_NE(m, nullptr);
  EXPECT_THAT(ImportShardy(*m).status().message(), HasSubstr("manual axis \"z\""));
  // No mesh named like the sharding's.
  auto unknown = ParseHloModule(
      "HloModule m, num_partitions=2\nENTRY %e (a: f32[4]) -> f32[4] {\n  ROOT %a = f32[4] "
      "parameter(0), frontend_attributes={xla.sdy.sharding=\"#sdy.sharding<@mesh, "
      "[{\\\"x\\\"}]>\"}\n}\n");
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_THAT(ImportShardy(**unknown).status().message(), HasSubstr("unknown mesh @mesh"));
}

}  // namespace
}  // namespace xlite::spmd
