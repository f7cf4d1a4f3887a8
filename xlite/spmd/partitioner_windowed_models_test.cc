// Models of windowed ops sharded on their window dims, partitioned by halo
// exchange: convolutions on images split along H (and W), strided, padded,
// dilated and grouped; max- and avg-pool reduce-windows; uneven dims and
// windows wider than a shard; select-and-scatter. Part of the table of
// partitioner_models_test.cc.
#include "xlite/spmd/partitioner_models_test.h"

namespace xlite::spmd {
namespace {

const Model kWindowedModels[] = {
    {"conv_image_h",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (x: f32[2,8,8,3], k: f32[3,3,3,4]) -> f32[2,8,8,4] {
  %x = f32[2,8,8,3] parameter(0), sharding={devices=[1,$N,1,1]<=[$N]}
  %k = f32[3,3,3,4] parameter(1), sharding={replicated}
  %c = f32[2,8,8,4] convolution(%x, %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT %r = f32[2,8,8,4] tanh(%c), sharding={devices=[1,$N,1,1]<=[$N]}
})",
     {2, 4, 8}},
    {"conv_image_hw_mesh",
     R"(
HloModule m, num_partitions=4
ENTRY %e (x: f32[1,8,6,2], k: f32[3,3,2,3]) -> f32[1,8,6,3] {
  %x = f32[1,8,6,2] parameter(0), sharding={devices=[1,2,2,1]<=[4]}
  %k = f32[3,3,2,3] parameter(1), sharding={replicated}
  ROOT %c = f32[1,8,6,3] convolution(%x, %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, sharding={devices=[1,2,2,1]<=[4]}
})",
     {4}},
    {"conv_strided_padded_uneven",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (x: f32[2,10,7,3], k: f32[3,2,3,5]) -> f32[2,5,3,5] {
  %x = f32[2,10,7,3] parameter(0), sharding={devices=[1,$N,1,1]<=[$N]}
  %k = f32[3,2,3,5] parameter(1)
  ROOT %c = f32[2,5,3,5] convolution(%x, %k), window={size=3x2 stride=2x2 pad=1_0x0_0}, dim_labels=b01f_01io->b01f, sharding={devices=[1,$N,1,1]<=[$N]}
})",
     {2, 3, 4}},
    {"conv_window_dilated",
     R"(
HloModule m, num_partitions=4
ENTRY %e (x: s32[2,12,3], k: s32[3,3,4]) -> s32[2,12,4] {
  %x = s32[2,12,3] parameter(0), sharding={devices=[1,4,1]<=[4]}
  %k = s32[3,3,4] parameter(1)
  ROOT %c = s32[2,12,4] convolution(%x, %k), window={size=3 pad=2_2 rhs_dilate=2}, dim_labels=b0f_0io->b0f, sharding={devices=[1,4,1]<=[4]}
})",
     {4}},
    {"conv_lhs_dilated",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (x: s32[1,9,2], k: s32[3,2,3]) -> s32[1,18,3] {
  %x = s32[1,9,2] parameter(0), sharding={devices=[1,$N,1]<=[$N]}
  %k = s32[3,2,3] parameter(1)
  ROOT %c = s32[1,18,3] convolution(%x, %k), window={size=3 pad=1_2 lhs_dilate=2}, dim_labels=b0f_0io->b0f, sharding={devices=[1,$N,1]<=[$N]}
})",
     {2, 4}},
    {"conv_groups_batch_and_h",
     R"(
HloModule m, num_partitions=4
ENTRY %e (x: s32[4,8,8,4], k: s32[3,3,2,6]) -> s32[4,8,8,6] {
  %x = s32[4,8,8,4] parameter(0), sharding={devices=[2,2,1,1]<=[4]}
  %k = s32[3,3,2,6] parameter(1)
  ROOT %c = s32[4,8,8,6] convolution(%x, %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2, sharding={devices=[2,2,1,1]<=[4]}
})",
     {4}},
    {"conv_h_and_output_feature",
     R"(
HloModule m, num_partitions=4
ENTRY %e (x: f32[2,8,5,3], k: f32[3,3,3,4]) -> f32[2,8,5,4] {
  %x = f32[2,8,5,3] parameter(0), sharding={devices=[1,2,1,1,2]<=[4] last_tile_dim_replicate}
  %k = f32[3,3,3,4] parameter(1), sharding={devices=[1,1,1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  ROOT %c = f32[2,8,5,4] convolution(%x, %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, sharding={devices=[1,2,1,2]<=[4]}
})",
     {4}},
    {"conv_window_wider_than_shard",
     R"(
HloModule m, num_partitions=8
ENTRY %e (x: s32[1,8,2], k: s32[5,2,2]) -> s32[1,8,2] {
  %x = s32[1,8,2] parameter(0), sharding={devices=[1,8,1]<=[8]}
  %k = s32[5,2,2] parameter(1)
  ROOT %c = s32[1,8,2] convolution(%x, %k), window={size=5 pad=2_2}, dim_labels=b0f_0io->b0f, sharding={devices=[1,8,1]<=[8]}
})",
     {8}},
    {"max_pool_same",
     R"(
HloModule m, num_partitions=$N
%max (p: f32[], q: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %r = f32[] maximum(%p, %q)
}
ENTRY %e (x: f32[2,8,8,3]) -> f32[2,4,4,3] {
  %x = f32[2,8,8,3] parameter(0), sharding={devices=[1,$N,1,1]<=[$N]}
  %lowest = f32[] constant(-inf)
  ROOT %p = f32[2,4,4,3] reduce-window(%x, %lowest), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0}, to_apply=%max, sharding={devices=[1,$N,1,1]<=[$N]}
})",
     {2, 4}},
    {"avg_pool_mesh",
     R"(
HloModule m, num_partitions=4
%add (p: f32[], q: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %r = f32[] add(%p, %q)
}
ENTRY %e (x: f32[1,8,8,2]) -> f32[1,4,4,2] {
  %x = f32[1,8,8,2] parameter(0), sharding={devices=[1,2,2,1]<=[4]}
  %zero = f32[] constant(0)
  %s = f32[1,4,4,2] reduce-window(%x, %zero), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=%add
  %four = f32[] constant(4)
  %d = f32[1,4,4,2] broadcast(%four), dimensions={}
  ROOT %avg = f32[1,4,4,2] divide(%s, %d), sharding={devices=[1,2,2,1]<=[4]}
})",
     {4}},
    {"reduce_window_uneven_10_over_4",
     R"(
HloModule m, num_partitions=$N
%max (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %r = s32[] maximum(%p, %q)
}
ENTRY %e (x: s32[10,3]) -> s32[10,3] {
  %x = s32[10,3] parameter(0), sharding={devices=[$N,1]<=[$N]}
  %init = s32[] constant(-5)
  ROOT %w = s32[10,3] reduce-window(%x, %init), window={size=3x1 pad=1_1x0_0}, to_apply=%max, sharding={devices=[$N,1]<=[$N]}
})",
     {3, 4}},
    {"reduce_window_wider_than_shard_init",
     R"(
HloModule m, num_partitions=8
%add (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %r = s32[] add(%p, %q)
}
ENTRY %e (x: s32[16]) -> s32[15] {
  %x = s32[16] parameter(0), sharding={devices=[8]<=[8]}
  %seven = s32[] constant(7)
  ROOT %w = s32[15] reduce-window(%x, %seven), window={size=7 pad=2_3}, to_apply=%add, sharding={devices=[8]<=[8]}
})",
     {8}},
    {"reduce_window_base_dilated",
     R"(
HloModule m, num_partitions=4
%add (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %r = s32[] add(%p, %q)
}
ENTRY %e (x: s32[9,2]) -> s32[9,2] {
  %x = s32[9,2] parameter(0), sharding={devices=[4,1]<=[4]}
  %zero = s32[] constant(0)
  ROOT %w = s32[9,2] reduce-window(%x, %zero), window={size=3x1 stride=2x1 pad=1_1x0_0 lhs_dilate=2x1}, to_apply=%add, sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"reduce_window_partially_replicated",
     R"(
HloModule m, num_partitions=4
%min (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %r = s32[] minimum(%p, %q)
}
ENTRY %e (x: s32[12,4]) -> s32[6,4] {
  %x = s32[12,4] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  %big = s32[] constant(1000000)
  ROOT %w = s32[6,4] reduce-window(%x, %big), window={size=4x1 stride=2x1 pad=1_1x0_0}, to_apply=%min, sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
})",
     {4}},
    {"reduce_window_unknown_reducer",
     R"(
HloModule m, num_partitions=4
%mix (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  %s = s32[] add(%p, %q)
  ROOT %r = s32[] multiply(%s, %q)
}
ENTRY %e (x: s32[8,2]) -> (s32[7,2], s32[8,2]) {
  %x = s32[8,2] parameter(0), sharding={devices=[4,1]<=[4]}
  %one = s32[] constant(1)
  %inside = s32[7,2] reduce-window(%x, %one), window={size=2x1}, to_apply=%mix, sharding={devices=[4,1]<=[4]}
  %padded = s32[8,2] reduce-window(%x, %one), window={size=3x1 pad=1_1x0_0}, to_apply=%mix, sharding={devices=[4,1]<=[4]}
  ROOT %t = (s32[7,2], s32[8,2]) tuple(%inside, %padded)
})",
     {4}},
    {"select_and_scatter_overlapping_uneven",
     R"(
HloModule m, num_partitions=4
%ge (p: s32[], q: s32[]) -> pred[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %c = pred[] compare(%p, %q), direction=GE
}
%add (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %r = s32[] add(%p, %q)
}
ENTRY %e (a: s32[11,3], s: s32[5,3]) -> s32[11,3] {
  %a = s32[11,3] parameter(0), sharding={devices=[4,1]<=[4]}
  %s = s32[5,3] parameter(1), sharding={devices=[4,1]<=[4]}
  %z = s32[] constant(2)
  ROOT %r = s32[11,3] select-and-scatter(%a, %s, %z), window={size=3x1 stride=2x1}, select=%ge, scatter=%add, sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"select_and_scatter_mesh",
     R"(
HloModule m, num_partitions=4
%gt (p: f32[], q: f32[]) -> pred[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %c = pred[] compare(%p, %q), direction=GT
}
%add (p: f32[], q: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %r = f32[] add(%p, %q)
}
ENTRY %e (a: f32[1,8,9,2], s: f32[1,4,4,2]) -> f32[1,8,9,2] {
  %a = f32[1,8,9,2] parameter(0), sharding={devices=[1,2,2,1]<=[4]}
  %s = f32[1,4,4,2] parameter(1)
  %z = f32[] constant(0)
  ROOT %r = f32[1,8,9,2] select-and-scatter(%a, %s, %z), window={size=1x2x3x1 stride=1x2x2x1}, select=%gt, scatter=%add, sharding={devices=[1,2,2,1]<=[4]}
})",
     {4}},
    {"select_and_scatter_padded",
     R"(
HloModule m, num_partitions=4
%ge (p: s32[], q: s32[]) -> pred[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %c = pred[] compare(%p, %q), direction=GE
}
%add (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %r = s32[] add(%p, %q)
}
ENTRY %e (a: s32[8,2], s: s32[4,2]) -> s32[8,2] {
  %a = s32[8,2] parameter(0), sharding={devices=[4,1]<=[4]}
  %s = s32[4,2] parameter(1)
  %z = s32[] constant(0)
  ROOT %r = s32[8,2] select-and-scatter(%a, %s, %z), window={size=3x1 stride=2x1 pad=1_0x0_0}, select=%ge, scatter=%add, sharding={devices=[4,1]<=[4]}
})",
     {4}},
};

}  // namespace

absl::Span<const Model> WindowedModels() { return kWindowedModels; }

}  // namespace xlite::spmd
