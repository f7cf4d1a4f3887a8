// Propagation rules checked against XLA's sharding-propagation semantics:
// shard groups, unspecified dims, entry values propagation may refine,
// convolutions that are dots, XLA's level-0 restrictions, sort dims,
// collectives, manual values, device subsets, refinements, scatter and dot
// operands from their siblings, tuples, outfeeds, CSE-prevention marks.
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/spmd/propagation.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

// Parses, propagates with `options`, verifies; returns the module (null on
// a failure, reported).
std::unique_ptr<HloModule> Propagated(std::string_view text, PropagationOptions options = {}) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  auto result = PropagateShardings(**module, options);
  EXPECT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(VerifyModule(**module).ok()) << VerifyModule(**module);
  return result.ok() ? std::move(*module) : nullptr;
}

std::string Of(const HloModule* m, std::string_view name) {
  if (m == nullptr) return "no module";
  for (const auto& c : m->computations()) {
    for (const auto& inst : c->instructions()) {
      if (inst->name() == name) {
        return inst->has_sharding() ? PrintSharding(inst->sharding().Normalized()) : "none";
      }
    }
  }
  return "missing";
}

// `sharding` in the printed normal form, for comparisons by meaning.
std::string Normal(std::string sharding) {
  auto m = ParseHloModule(
      "HloModule n\nENTRY %e {\n  ROOT %p = f32[8,8,8] parameter(0), sharding=" + sharding + "\n}");
  return m.ok() ? Of(m->get(), "p") : "bad";
}

TEST(XlaRulesTest, ShardAsMembersEndWithOneSharding) {
  auto m = Propagated(R"(
HloModule m, num_partitions=4
ENTRY %e {
  %x = f32[8,8] parameter(0), sharding={devices=[4,1]<=[4]}
  %y = f32[8,8] parameter(1), sharding={devices=[1,4]<=[4]}
  %nx = f32[8,8] negate(%x)
  %gx = f32[8,8] custom-call(%nx), custom_call_target="Sharding", sharding={unknown shard_as 3}
  %ny = f32[8,8] negate(%y)
  %gy = f32[8,8] custom-call(%ny), custom_call_target="Sharding", sharding={unknown shard_as 3}
  ROOT %s = f32[8,8] subtract(%nx, %ny)
})");
  EXPECT_EQ(Of(m.get(), "nx"), Of(m.get(), "ny"));
  EXPECT_NE(Of(m.get(), "nx"), "none");
}

TEST(XlaRulesTest, ShardLikeFillsOnlyWhatHasNoSharding) {
  constexpr std::string_view kText = R"(
HloModule m, num_partitions=4
ENTRY %e {
  %x = f32[8,8] parameter(0), sharding={devices=[4,1]<=[4]}
  %y = f32[8,8] parameter(1)%s
  %nx = f32[8,8] negate(%x)
  %gx = f32[8,8] custom-call(%nx), custom_call_target="Sharding", sharding={unknown shard_like 1}
  %ny = f32[8,8] negate(%y)
  %gy = f32[8,8] custom-call(%ny), custom_call_target="Sharding", sharding={unknown shard_like 1}
  ROOT %s = f32[8,8] subtract(%nx, %ny)
})";
  std::string unsharded(kText), sharded(kText);
  unsharded.replace(unsharded.find("%s"), 2, "");
  sharded.replace(sharded.find("%s"), 2, ", sharding={devices=[1,4]<=[4]}");
  auto a = Propagated(unsharded);
  EXPECT_EQ(Of(a.get(), "ny"), Normal("{devices=[4,1]<=[4]}"));
  auto b = Propagated(sharded);  // both have their own: shard_like forces nothing
  EXPECT_EQ(Of(b.get(), "ny"), Normal("{devices=[1,4]<=[4]}"));
}

TEST(XlaRulesTest, UnspecifiedDimsAreRefinedFromNeighbours) {
  auto m = Propagated(R"(
HloModule m, num_partitions=4
ENTRY %e {
  %p = f32[8,12] parameter(0)
  %c = f32[8,12] copy(%p), sharding={devices=[1,2,2]<=[4] last_tile_dim_replicate}
  %a = f32[8,12] custom-call(%c), custom_call_target="Sharding", backend_config="unspecified_dims=[1]",
    sharding={devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  %u = f32[8,12] negate(%a)
  ROOT %r = f32[8,12] copy(%u)
})");
  // Dim 0 as annotated, dim 1 from %c: one device per tile.
  EXPECT_EQ(Of(m.get(), "u"), Normal("{devices=[2,2]0,2,1,3}"));
  // A specified dim stays as annotated whatever the neighbours say.
  EXPECT_EQ(Of(m.get(), "a"), Normal("{devices=[2,2]0,2,1,3}"));
}

TEST(XlaRulesTest, BadUnspecifiedDimsAreErrors) {
  auto module = ParseHloModule(R"(
HloModule m, num_partitions=2
ENTRY %e {
  %p = f32[8] parameter(0)
  ROOT %a = f32[8] custom-call(%p), custom_call_target="Sharding", backend_config="unspecified_dims=[3]",
    sharding={devices=[2]<=[2]}
})");
  ASSERT_TRUE(module.ok());
  EXPECT_FALSE(PropagateShardings(**module, {}).ok());
}

TEST(XlaRulesTest, AllowedEntryValuesAreRefinedAndKeptEven) {
  constexpr std::string_view kText = R"(
HloModule m, num_partitions=4
ENTRY %e {
  %p = f32[8] parameter(0), sharding={replicated}
  %q = f32[6] parameter(1)
  %z = f32[] constant(0)
  %padded = f32[8] pad(%q, %z), padding=0_2
  %s = f32[8] add(%p, %padded), sharding={devices=[4]<=[4]}
  ROOT %r = f32[8] negate(%s), sharding={replicated}
})";
  auto frozen = Propagated(kText);
  EXPECT_EQ(Of(frozen.get(), "p"), "{replicated}");
  EXPECT_EQ(Of(frozen.get(), "r"), "{replicated}");
  auto open = Propagated(kText, PropagationOptions{true, true, true});
  EXPECT_EQ(Of(open.get(), "p"), Normal("{devices=[4]<=[4]}"));
  EXPECT_EQ(Of(open.get(), "r"), Normal("{devices=[4]<=[4]}"));
  // 6 elements do not split evenly in 4: the parameter stays whole.
  EXPECT_EQ(Of(open.get(), "q"), "{replicated}");
}

TEST(XlaRulesTest, ConvolutionDotDimsRelateAsDotDims) {
  auto m = Propagated(R"(
HloModule m, num_partitions=2
ENTRY %e {
  %l = f32[4,6,16] parameter(0), sharding={devices=[2,1,1]<=[2]}
  %k = f32[4,10,16] parameter(1)
  %kc = f32[4,10,16] copy(%k)
  %conv = f32[4,6,10] convolution(%l, %kc), dim_labels=0bf_0oi->0bf,
    window={size=4 stride=3 lhs_dilate=4}
  ROOT %r = f32[4,6,10] copy(%conv)
})");
  // Spatial dim 0 is a batch dim written as a window: shared by all three.
  EXPECT_EQ(Of(m.get(), "conv"), Normal("{devices=[2,1,1]<=[2]}"));
  EXPECT_EQ(Of(m.get(), "kc"), Normal("{devices=[2,1,1]<=[2]}"));
}

TEST(XlaRulesTest, ConvolutionContractingWindowDoesNotReachOutput) {
  auto m = Propagated(R"(
HloModule m, num_partitions=2
ENTRY %e {
  %p = f32[8,3,3,4] parameter(0)
  %l = f32[8,3,3,4] copy(%p)
  %k = f32[3,3,4,6] parameter(1)
  %conv = f32[8,1,1,6] convolution(%l, %k), window={size=3x3}, dim_labels=b01f_01io->b01f,
    sharding={devices=[1,2,1,1]<=[2]}
  ROOT %r = f32[8,1,1,6] copy(%conv)
})");
  EXPECT_EQ(Of(m.get(), "l"), "{replicated}");
}

TEST(XlaRulesTest, ConcatenateAndDynamicSliceWaitAtLevelZero) {
  auto m = Propagated(R"(
HloModule m, num_partitions=4
ENTRY %e {
  %p = f32[4,8] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  %cat = f32[8,8] concatenate(%p, %p), dimensions={0}
  %i = s32[] parameter(1)
  %z = s32[] constant(0)
  %ds = f32[2,8] dynamic-slice(%p, %i, %z), dynamic_slice_sizes={2,8}
  %a = f32[8,8] negate(%cat), sharding={devices=[4,1]<=[4]}
  %b = f32[2,8] negate(%ds), sharding={devices=[1,4]<=[4]}
  ROOT %t = (f32[8,8], f32[2,8]) tuple(%a, %b)
})");
  // Split on the concatenated / sliced dim: the users' level-0 shardings win.
  EXPECT_EQ(Of(m.get(), "cat"), Normal("{devices=[4,1]<=[4]}"));
  EXPECT_EQ(Of(m.get(), "ds"), Normal("{devices=[1,4]<=[4]}"));
}

TEST(XlaRulesTest, SortKeepsASplitSortDimOnlyWhenMovable) {
  constexpr std::string_view kText = R"(
HloModule m, num_partitions=4
%lt {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = pred[] compare(%a, %b), direction=LT
}
ENTRY %e {
  %p = f32[SHAPE] parameter(0)
  %n = f32[SHAPE] negate(%p), sharding={devices=[TILES]<=[4]}
  %s = f32[SHAPE] sort(%n), dimensions={DIM}, to_apply=%lt
  ROOT %r = f32[SHAPE] copy(%s)
})";
  auto with = [&](std::string shape, std::string tiles, std::string dim) {
    std::string t(kText);
    for (auto [key, value] :
         {std::pair<std::string, std::string>{"SHAPE", shape}, {"TILES", tiles}, {"DIM", dim}}) {
      for (size_t at = t.find(key); at != std::string::npos; at = t.find(key)) {
        t.replace(at, key.size(), value);
      }
    }
    return Propagated(t);
  };
  auto movable = with("16,16", "1,4", "1");
  EXPECT_EQ(Of(movable.get(), "s"), Normal("{devices=[1,4]<=[4]}"));
  auto stuck = with("16", "4", "0");
  EXPECT_EQ(Of(stuck.get(), "s"), "none");
}

TEST(XlaRulesTest, ChannelAllReduceIsNotPartitionedByPropagation) {
  auto m = Propagated(R"(
HloModule m
%sum {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(%a, %b)
}
ENTRY %e {
  %p = f32[8] parameter(0)
  %c = f32[8] copy(%p), sharding={devices=[2]0,1}
  %local = f32[8] all-reduce(%c), to_apply=%sum
  %across = f32[8] all-reduce(%c), to_apply=%sum, channel_id=3
  ROOT %t = (f32[8], f32[8]) tuple(%local, %across)
})");
  EXPECT_EQ(Of(m.get(), "local"), Normal("{devices=[2]0,1}"));
  EXPECT_EQ(Of(m.get(), "across"), "none");
}

TEST(XlaRulesTest, ManualReachesReplicatedNotConstants) {
  auto m = Propagated(R"(
HloModule m, num_partitions=2
ENTRY %e {
  %p = f32[4] parameter(0), sharding={replicated}
  %k = f32[4] constant({1, 2, 3, 4})
  %m = f32[4] custom-call(%p), custom_call_target="SPMDFullToShardShape", sharding={manual}
  %sum = f32[4] add(%k, %m)
  %back = f32[4] custom-call(%sum), custom_call_target="SPMDShardToFullShape", sharding={replicated}
  %zero = f32[] constant(0), sharding={replicated}
  %n = f32[] negate(%zero)
  %u = f32[] add(%n, %n), sharding={manual}
  ROOT %r = (f32[4], f32[]) tuple(%back, %u)
})");
  EXPECT_EQ(Of(m.get(), "sum"), "{manual}");
  EXPECT_NE(Of(m.get(), "k"), "{manual}");
  EXPECT_EQ(Of(m.get(), "n"), "{manual}");  // over the replicated it had first
}

TEST(XlaRulesTest, DeviceSubsetsInUnpartitionedModules) {
  auto m = Propagated(R"(
HloModule m
ENTRY %e {
  %p = f32[8,4] parameter(0)
  %c = f32[8,4] copy(%p), sharding={devices=[2,1]4,6}
  ROOT %n = f32[8,4] negate(%c)
})",
                      PropagationOptions{false, std::nullopt, std::nullopt});
  EXPECT_EQ(Of(m.get(), "c"), Normal("{devices=[2,1]4,6}"));
}

TEST(XlaRulesTest, ARefiningSplitReplacesAPartialOne) {
  auto m = Propagated(R"(
HloModule m, num_partitions=4
ENTRY %e {
  %p = f32[8,8] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  %q = f32[8,8] parameter(1), sharding={devices=[4,1]<=[4]}
  %c = f32[8,8] copy(%p)
  %d = f32[8,8] copy(%q)
  %s = f32[8,8] add(%c, %d)
  ROOT %r = f32[8,8] copy(%s), sharding={devices=[4,1]<=[4]}
})");
  // [4,1] splits each of [2,1]'s halves between the devices that held it.
  EXPECT_EQ(Of(m.get(), "c"), Normal("{devices=[4,1]<=[4]}"));
}

TEST(XlaRulesTest, ScatterIndicesAndUpdatesShareTheirScatterDims) {
  auto m = Propagated(R"(
HloModule m, num_partitions=2
%acc {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = f32[] add(%a, %b)
}
ENTRY %e {
  %t = f32[6,4] parameter(0), sharding={replicated}
  %pi = s32[10] parameter(1), sharding={replicated}
  %i = s32[10] copy(%pi)
  %u = f32[10,4] parameter(2), sharding={devices=[2,1]<=[2]}
  ROOT %s = f32[6,4] scatter(%t, %i, %u), update_window_dims={1}, inserted_window_dims={0},
    scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%acc, sharding={replicated}
})");
  EXPECT_EQ(Of(m.get(), "i"), Normal("{devices=[2]<=[2]}"));
}

TEST(XlaRulesTest, AValueTwiceInATupleTakesItsFirstElement) {
  auto m = Propagated(R"(
HloModule m, num_partitions=2
ENTRY %e {
  %p = f32[4] parameter(0)
  %c = f32[4] copy(%p)
  %t = (f32[4], f32[4]) tuple(%c, %c), sharding={{replicated}, {devices=[2]<=[2]}}
  ROOT %g = f32[4] get-tuple-element(%t), index=1
})");
  EXPECT_EQ(Of(m.get(), "c"), "{replicated}");
}

TEST(XlaRulesTest, OutfeedShardingReachesItsData) {
  auto m = Propagated(R"(
HloModule m, num_partitions=2
ENTRY %e {
  %p = f32[6,4] parameter(0)
  %c = f32[6,4] copy(%p)
  %t = (f32[6,4]) tuple(%c)
  %tok = token[] after-all()
  ROOT %o = token[] outfeed(%t, %tok), outfeed_shape=(f32[6,4]),
    sharding={{devices=[1,2]<=[2]}, {maximal device=0}}
})");
  EXPECT_EQ(Of(m.get(), "c"), Normal("{devices=[1,2]<=[2]}"));
}

TEST(XlaRulesTest, CsePreventionShardingsAreDropped) {
  auto m = Propagated(R"(
HloModule m, num_partitions=2
ENTRY %e {
  %z = f32[] parameter(0), sharding={replicated}
  %b = f32[6] broadcast(%z), dimensions={},
    sharding={devices=[2]<=[2] metadata={op_name="_sharding_propagation_cse_prevention"}}
  %n = f32[6] negate(%b)
  ROOT %r = f32[6] copy(%n), sharding={devices=[2]1,0}
})");
  EXPECT_EQ(Of(m.get(), "b"), Normal("{devices=[2]1,0}"));
}

TEST(XlaRulesTest, DotOperandTakesTheOtherOperandsContractingSplit) {
  auto m = Propagated(R"(
HloModule m, num_partitions=4
ENTRY %e {
  %a = f32[8,16] parameter(0), sharding={devices=[1,2,2]<=[4] last_tile_dims={manual}}
  %pb = f32[16,4] parameter(1)
  %b = f32[16,4] copy(%pb)
  %d = f32[8,4] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0},
    sharding={devices=[1,1,2,2]<=[4] last_tile_dims={replicated, manual}}
  ROOT %r = f32[8,4] copy(%d)
})");
  EXPECT_EQ(Of(m.get(), "b"), Normal("{devices=[2,1,2]<=[4] last_tile_dims={manual}}"));
}

}  // namespace
}  // namespace xlite::spmd
