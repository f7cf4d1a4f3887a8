#include "xlite/spmd/partitioner_models_test.h"

#include <iterator>
#include <vector>

#include "xlite/base/check.h"

namespace xlite::spmd {
namespace {

const Model kPartitionerModels[] = {
    {"data_parallel_mlp",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (x: f32[8,16], w1: f32[16,32], b1: f32[32], w2: f32[32,4]) -> f32[8,4] {
  %x = f32[8,16] parameter(0), sharding={devices=[$N,1]<=[$N]}
  %w1 = f32[16,32] parameter(1), sharding={replicated}
  %b1 = f32[32] parameter(2), sharding={replicated}
  %w2 = f32[32,4] parameter(3), sharding={replicated}
  %h = f32[8,32] dot(%x, %w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %bb = f32[8,32] broadcast(%b1), dimensions={1}
  %hb = f32[8,32] add(%h, %bb)
  %zero = f32[] constant(0)
  %z = f32[8,32] broadcast(%zero), dimensions={}
  %r = f32[8,32] maximum(%hb, %z)
  ROOT %y = f32[8,4] dot(%r, %w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[$N,1]<=[$N]}
})",
     {2, 4, 8}},
    {"megatron_mlp",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (x: f32[8,16], w1: f32[16,32], w2: f32[32,16]) -> f32[8,16] {
  %x = f32[8,16] parameter(0), sharding={replicated}
  %w1 = f32[16,32] parameter(1), sharding={devices=[1,$N]<=[$N]}
  %w2 = f32[32,16] parameter(2), sharding={devices=[$N,1]<=[$N]}
  %h = f32[8,32] dot(%x, %w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %t = f32[8,32] tanh(%h)
  ROOT %y = f32[8,16] dot(%t, %w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={replicated}
})",
     {2, 4, 8}},
    {"elementwise_broadcast",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (a: f32[16,6], b: f32[6], c: f32[16,6]) -> f32[16,6] {
  %a = f32[16,6] parameter(0), sharding={devices=[$N,1]<=[$N]}
  %b = f32[6] parameter(1)
  %c = f32[16,6] parameter(2)
  %bb = f32[16,6] broadcast(%b), dimensions={1}
  %m = f32[16,6] multiply(%a, %bb)
  %s = f32[16,6] subtract(%m, %c)
  ROOT %x = f32[16,6] exponential(%s)
})",
     {2, 4, 8}},
    {"reduce_over_sharded_dim",
     R"(
HloModule m, num_partitions=$N
%add (p: f32[], q: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %r = f32[] add(%p, %q)
}
%max (p: f32[], q: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %r = f32[] maximum(%p, %q)
}
ENTRY %e (a: f32[6,16]) -> (f32[6], f32[6]) {
  %a = f32[6,16] parameter(0), sharding={devices=[1,$N]<=[$N]}
  %zero = f32[] constant(0)
  %init = f32[] constant(-1000)
  %sum = f32[6] reduce(%a, %zero), dimensions={1}, to_apply=%add
  %top = f32[6] reduce(%a, %init), dimensions={1}, to_apply=%max
  ROOT %t = (f32[6], f32[6]) tuple(%sum, %top)
})",
     {2, 4, 8}},
    {"integer_reduce_with_init",
     R"(
HloModule m, num_partitions=$N
%add (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %r = s32[] add(%p, %q)
}
ENTRY %e (a: s32[16,4]) -> s32[4] {
  %a = s32[16,4] parameter(0), sharding={devices=[$N,1]<=[$N]}
  %seven = s32[] constant(7)
  ROOT %sum = s32[4] reduce(%a, %seven), dimensions={0}, to_apply=%add
})",
     {2, 4}},
    {"uneven_10_over_4",
     R"(
HloModule m, num_partitions=$N
%add (p: f32[], q: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %r = f32[] add(%p, %q)
}
%min (p: f32[], q: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %r = f32[] minimum(%p, %q)
}
ENTRY %e (a: f32[10,3], b: f32[10,3]) -> (f32[3], f32[3], f32[10,3]) {
  %a = f32[10,3] parameter(0), sharding={devices=[$N,1]<=[$N]}
  %b = f32[10,3] parameter(1), sharding={devices=[$N,1]<=[$N]}
  %one = f32[] constant(1)
  %ones = f32[10,3] broadcast(%one), dimensions={}
  %x = f32[10,3] add(%a, %ones)
  %y = f32[10,3] multiply(%x, %b)
  %zero = f32[] constant(0)
  %big = f32[] constant(1000)
  %sum = f32[3] reduce(%y, %zero), dimensions={0}, to_apply=%add
  %low = f32[3] reduce(%x, %big), dimensions={0}, to_apply=%min
  ROOT %t = (f32[3], f32[3], f32[10,3]) tuple(%sum, %low, %y)
})",
     {4, 3}},
    {"transpose_reshape",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (a: f32[8,6]) -> (f32[6,8], f32[8,2,3], f32[48]) {
  %a = f32[8,6] parameter(0), sharding={devices=[$N,1]<=[$N]}
  %n = f32[8,6] negate(%a)
  %t = f32[6,8] transpose(%n), dimensions={1,0}
  %r = f32[8,2,3] reshape(%n)
  %f = f32[48] reshape(%n)
  ROOT %out = (f32[6,8], f32[8,2,3], f32[48]) tuple(%t, %r, %f)
})",
     {2, 4}},
    {"dot_contracting_sharded",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (a: f32[8,16], b: f32[16,4]) -> f32[8,4] {
  %a = f32[8,16] parameter(0), sharding={devices=[1,$N]<=[$N]}
  %b = f32[16,4] parameter(1), sharding={devices=[$N,1]<=[$N]}
  ROOT %d = f32[8,4] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
     {2, 4, 8}},
    {"dot_contracting_sharded_result_sharded",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (a: f32[8,16], b: f32[16,4]) -> f32[8,4] {
  %a = f32[8,16] parameter(0), sharding={devices=[1,$N]<=[$N]}
  %b = f32[16,4] parameter(1), sharding={devices=[$N,1]<=[$N]}
  ROOT %d = f32[8,4] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[$N,1]<=[$N]}
})",
     {2, 4, 8}},
    {"batch_dot_uneven_contracting",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (a: f32[2,4,10], b: f32[2,10,3]) -> f32[2,4,3] {
  %a = f32[2,4,10] parameter(0), sharding={devices=[1,1,$N]<=[$N]}
  %b = f32[2,10,3] parameter(1), sharding={devices=[1,$N,1]<=[$N]}
  ROOT %d = f32[2,4,3] dot(%a, %b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
})",
     {4}},
    {"mesh_2x2_dot",
     R"(
HloModule m, num_partitions=4
ENTRY %e (x: f32[8,16], w: f32[16,12]) -> f32[8,12] {
  %x = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  %w = f32[16,12] parameter(1), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  %d = f32[8,12] dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %r = f32[8,12] negate(%d), sharding={devices=[2,2]<=[4]}
})",
     {4}},
    {"reshard_between_dims",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (a: f32[8,8]) -> f32[8,8] {
  %a = f32[8,8] parameter(0), sharding={devices=[$N,1]<=[$N]}
  %b = f32[8,8] negate(%a), sharding={devices=[1,$N]<=[$N]}
  %c = f32[8,8] abs(%b), sharding={devices=[$N,1]<=[$N]}
  ROOT %d = f32[8,8] sqrt(%c), sharding={devices=[$N,1]<=[2,$N/2]T(1,0)}
})",
     {4}},
    {"iota_offsets",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (a: s32[12,4]) -> s32[12,4] {
  %a = s32[12,4] parameter(0), sharding={devices=[$N,1]<=[$N]}
  %i = s32[12,4] iota(), iota_dimension=0
  ROOT %s = s32[12,4] add(%a, %i)
})",
     {2, 4}},
    {"while_sharded_state",
     R"(
HloModule m, num_partitions=$N
%cond (s: (s32[], f32[8,4])) -> pred[] {
  %s = (s32[], f32[8,4]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %three = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %three), direction=LT
}
%body (s: (s32[], f32[8,4])) -> (s32[], f32[8,4]) {
  %s = (s32[], f32[8,4]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %x = f32[8,4] get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  %half = f32[] constant(0.5)
  %h = f32[8,4] broadcast(%half), dimensions={}
  %y = f32[8,4] multiply(%x, %h)
  %z = f32[8,4] sine(%y)
  ROOT %t = (s32[], f32[8,4]) tuple(%next, %z)
}
ENTRY %e (a: f32[8,4]) -> f32[8,4] {
  %a = f32[8,4] parameter(0), sharding={devices=[$N,1]<=[$N]}
  %zero = s32[] constant(0)
  %init = (s32[], f32[8,4]) tuple(%zero, %a)
  %w = (s32[], f32[8,4]) while(%init), condition=%cond, body=%body
  ROOT %out = f32[8,4] get-tuple-element(%w), index=1
})",
     {2, 4}},
    // Integer models on 4 partitions: slices, pads, concatenates, windows,
    // sorts, gathers and dynamic slices on sharded dims, uneven all-to-all,
    // device-order permutes, 2D meshes and branches.
    {"slice",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[12,4]) -> s32[5,4] {
  %a = s32[12,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %n = s32[12,4] negate(%a)
  ROOT %s = s32[5,4] slice(%n), slice={[3:8], [0:4]}
})",
     {4}},
    {"concat",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[8,4], b: s32[6,4]) -> s32[14,4] {
  %a = s32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %b = s32[6,4] parameter(1), sharding={devices=[4,1]<=[4]}
  ROOT %c = s32[14,4] concatenate(%a, %b), dimensions={0}
})",
     {4}},
    {"concat_other",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[8,4], b: s32[8,6]) -> s32[8,10] {
  %a = s32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %b = s32[8,6] parameter(1), sharding={devices=[4,1]<=[4]}
  ROOT %c = s32[8,10] concatenate(%a, %b), dimensions={1}, sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"pad",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[8,4]) -> s32[11,4] {
  %a = s32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %z = s32[] constant(9)
  ROOT %p = s32[11,4] pad(%a, %z), padding=1_2x0_0
})",
     {4}},
    {"pad_halo_both_sides",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (a: s32[16,4]) -> s32[19,4] {
  %a = s32[16,4] parameter(0), sharding={devices=[$N,1]<=[$N]}
  %z = s32[] constant(7)
  ROOT %p = s32[19,4] pad(%a, %z), padding=2_1x0_0, sharding={devices=[$N,1]<=[$N]}
})",
     {2, 4, 8}},
    {"pad_halo_uneven_and_other_dim",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (a: f32[10,3], v: f32[]) -> f32[13,5] {
  %a = f32[10,3] parameter(0), sharding={devices=[$N,1]<=[$N]}
  %v = f32[] parameter(1)
  ROOT %p = f32[13,5] pad(%a, %v), padding=1_2x1_1, sharding={devices=[$N,1]<=[$N]}
})",
     {2, 4}},
    {"pad_negative_low",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (a: s32[16]) -> s32[16] {
  %a = s32[16] parameter(0), sharding={devices=[$N]<=[$N]}
  %z = s32[] constant(0)
  ROOT %p = s32[16] pad(%a, %z), padding=-3_3, sharding={devices=[$N]<=[$N]}
})",
     {2, 4}},
    {"slice_halo_2d",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[12,8]) -> s32[9,6] {
  %a = s32[12,8] parameter(0), sharding={devices=[2,2]<=[4]}
  ROOT %s = s32[9,6] slice(%a), slice={[2:11], [1:7]}, sharding={devices=[2,2]<=[4]}
})",
     {4}},
    {"slice_halo_partial_replication",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[16,4]) -> s32[14,4] {
  %a = s32[16,4] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  ROOT %s = s32[14,4] slice(%a), slice={[1:15], [0:4]}, sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
})",
     {4}},
    {"pad_past_the_neighbour",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[8]) -> s32[20] {
  %a = s32[8] parameter(0), sharding={devices=[4]<=[4]}
  %z = s32[] constant(5)
  ROOT %p = s32[20] pad(%a, %z), padding=9_3, sharding={devices=[4]<=[4]}
})",
     {4}},
    {"reverse",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[10,4]) -> s32[10,4] {
  %a = s32[10,4] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT %r = s32[10,4] reverse(%a), dimensions={0}, sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"reverse_even_mirrored",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[8,4]) -> s32[8,4] {
  %a = s32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %r = s32[8,4] reverse(%a), dimensions={0}
  ROOT %n = s32[8,4] negate(%r)
})",
     {4}},
    {"reverse_2d_mesh",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[4,6,8]) -> s32[8,4,6] {
  %a = s32[4,6,8] parameter(0), sharding={devices=[2,1,2]<=[4]}
  %t = s32[8,4,6] transpose(%a), dimensions={2,0,1}
  ROOT %r = s32[8,4,6] reverse(%t), dimensions={0,1}, sharding={devices=[2,2,1]<=[4]}
})",
     {4}},
    {"sort",
     R"(
HloModule m, num_partitions=4
%lt (p: s32[], q: s32[]) -> pred[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %c = pred[] compare(%p, %q), direction=LT
}
ENTRY %e (a: s32[8,6]) -> s32[8,6] {
  %a = s32[8,6] parameter(0), sharding={devices=[1,4]<=[4]}
  ROOT %s = s32[8,6] sort(%a), dimensions={1}, to_apply=%lt, sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"reshape_minor",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[6,8]) -> s32[48] {
  %a = s32[6,8] parameter(0), sharding={devices=[1,4]<=[4]}
  ROOT %r = s32[48] reshape(%a), sharding={devices=[4]<=[4]}
})",
     {4}},
    {"reshape_uneven",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[10,3]) -> s32[30] {
  %a = s32[10,3] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT %r = s32[30] reshape(%a), sharding={devices=[4]<=[4]}
})",
     {4}},
    {"gather",
     R"(
HloModule m, num_partitions=4
ENTRY %e (t: s32[16,4], i: s32[6]) -> s32[6,4] {
  %t = s32[16,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %i = s32[6] parameter(1)
  %ii = s32[6,1] reshape(%i)
  ROOT %g = s32[6,4] gather(%t, %ii), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}
})",
     {4}},
    {"dynamic_slice",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[16,4], i: s32[]) -> s32[4,4] {
  %a = s32[16,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %i = s32[] parameter(1)
  %z = s32[] constant(0)
  ROOT %d = s32[4,4] dynamic-slice(%a, %i, %z), dynamic_slice_sizes={4,4}
})",
     {4}},
    {"dus",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[16,4], u: s32[3,4], i: s32[]) -> s32[16,4] {
  %a = s32[16,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %u = s32[3,4] parameter(1)
  %i = s32[] parameter(2)
  %z = s32[] constant(0)
  ROOT %d = s32[16,4] dynamic-update-slice(%a, %u, %i, %z), sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"reduce_window",
     R"(
HloModule m, num_partitions=4
%add (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %r = s32[] add(%p, %q)
}
ENTRY %e (a: s32[16,4]) -> s32[15,4] {
  %a = s32[16,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %z = s32[] constant(0)
  ROOT %w = s32[15,4] reduce-window(%a, %z), window={size=2x1}, to_apply=%add
})",
     {4}},
    {"transpose_uneven",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[10,6]) -> s32[6,10] {
  %a = s32[10,6] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT %t = s32[6,10] transpose(%a), dimensions={1,0}, sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"alltoall_uneven",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[10,6]) -> s32[10,6] {
  %a = s32[10,6] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT %t = s32[10,6] negate(%a), sharding={devices=[1,4]<=[4]}
})",
     {4}},
    {"permute",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[8,6]) -> s32[8,6] {
  %a = s32[8,6] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT %t = s32[8,6] negate(%a), sharding={devices=[4,1]3,1,0,2}
})",
     {4}},
    {"broadcast_sharded",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[10]) -> s32[10,8] {
  %a = s32[10] parameter(0), sharding={devices=[4]<=[4]}
  ROOT %b = s32[10,8] broadcast(%a), dimensions={0}, sharding={devices=[1,4]<=[4]}
})",
     {4}},
    {"reduce_2d_mesh",
     R"(
HloModule m, num_partitions=4
%add (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %r = s32[] add(%p, %q)
}
ENTRY %e (a: s32[6,10]) -> s32[6] {
  %a = s32[6,10] parameter(0), sharding={devices=[2,2]<=[4]}
  %z = s32[] constant(3)
  ROOT %r = s32[6] reduce(%a, %z), dimensions={1}, to_apply=%add, sharding={devices=[2,2]<=[4] last_tile_dim_replicate}
})",
     {4}},
    {"conditional",
     R"(
HloModule m, num_partitions=4
%t (p: s32[8,4]) -> s32[8,4] {
  %p = s32[8,4] parameter(0)
  ROOT %n = s32[8,4] negate(%p)
}
%f (p: s32[8,4]) -> s32[8,4] {
  %p = s32[8,4] parameter(0)
  ROOT %n = s32[8,4] abs(%p)
}
ENTRY %e (a: s32[8,4], c: pred[]) -> s32[8,4] {
  %a = s32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %c = pred[] parameter(1)
  ROOT %r = s32[8,4] conditional(%c, %a, %a), true_computation=%t, false_computation=%f
})",
     {4}},
    // Strided slices, interior/negative pads, variadic (argmax) reduce,
    // scatter and gather on either side, convolutions, 2D-mesh batch dots,
    // select-and-scatter, uneven multiply-reduce, reshape splits, loops
    // whose body uses its counter.
    {"strided_slice",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[13,4]) -> s32[5,4] {
  %a = s32[13,4] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT %s = s32[5,4] slice(%a), slice={[1:11:2], [0:4]}, sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"interior_pad",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[6,4]) -> s32[12,4] {
  %a = s32[6,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %z = s32[] constant(5)
  ROOT %p = s32[12,4] pad(%a, %z), padding=-1_2_1x0_0, sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"argmax",
     R"(
HloModule m, num_partitions=4
%am (a: s32[], i: s32[], b: s32[], j: s32[]) -> (s32[], s32[]) {
  %a = s32[] parameter(0)
  %i = s32[] parameter(1)
  %b = s32[] parameter(2)
  %j = s32[] parameter(3)
  %gt = pred[] compare(%a, %b), direction=GE
  %v = s32[] select(%gt, %a, %b)
  %k = s32[] select(%gt, %i, %j)
  ROOT %t = (s32[], s32[]) tuple(%v, %k)
}
ENTRY %e (a: s32[4,10]) -> (s32[4], s32[4]) {
  %a = s32[4,10] parameter(0), sharding={devices=[1,4]<=[4]}
  %i = s32[4,10] iota(), iota_dimension=1, sharding={devices=[1,4]<=[4]}
  %m = s32[] constant(-100)
  %z = s32[] constant(0)
  ROOT %r = (s32[4], s32[4]) reduce(%a, %i, %m, %z), dimensions={1}, to_apply=%am
})",
     {4}},
    {"scatter",
     R"(
HloModule m, num_partitions=4
%add (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %r = s32[] add(%p, %q)
}
ENTRY %e (t: s32[16,4], i: s32[5], u: s32[5,4]) -> s32[16,4] {
  %t = s32[16,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %i = s32[5] parameter(1)
  %u = s32[5,4] parameter(2)
  %ii = s32[5,1] reshape(%i)
  ROOT %s = s32[16,4] scatter(%t, %ii, %u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%add, sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"scatter_cols",
     R"(
HloModule m, num_partitions=4
%add (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %r = s32[] add(%p, %q)
}
ENTRY %e (t: s32[16,8], i: s32[5], u: s32[5,8]) -> s32[16,8] {
  %t = s32[16,8] parameter(0), sharding={devices=[1,4]<=[4]}
  %i = s32[5] parameter(1)
  %u = s32[5,8] parameter(2), sharding={devices=[1,4]<=[4]}
  %ii = s32[5,1] reshape(%i)
  ROOT %s = s32[16,8] scatter(%t, %ii, %u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%add, sharding={devices=[1,4]<=[4]}
})",
     {4}},
    {"gather_cols",
     R"(
HloModule m, num_partitions=4
ENTRY %e (t: s32[16,8], i: s32[6]) -> s32[6,8] {
  %t = s32[16,8] parameter(0), sharding={devices=[1,4]<=[4]}
  %i = s32[6] parameter(1)
  %ii = s32[6,1] reshape(%i)
  ROOT %g = s32[6,8] gather(%t, %ii), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}, sharding={devices=[1,4]<=[4]}
})",
     {4}},
    {"gather_idx_sharded",
     R"(
HloModule m, num_partitions=4
ENTRY %e (t: s32[16,8], i: s32[8]) -> s32[8,8] {
  %t = s32[16,8] parameter(0)
  %i = s32[8] parameter(1), sharding={devices=[4]<=[4]}
  %ii = s32[8,1] reshape(%i)
  ROOT %g = s32[8,8] gather(%t, %ii), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}, sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"conv_batch",
     R"(
HloModule m, num_partitions=4
ENTRY %e (x: s32[4,8,3], k: s32[3,3,5]) -> s32[4,6,5] {
  %x = s32[4,8,3] parameter(0), sharding={devices=[4,1,1]<=[4]}
  %k = s32[3,3,5] parameter(1)
  ROOT %c = s32[4,6,5] convolution(%x, %k), window={size=3}, dim_labels=b0f_0io->b0f
})",
     {4}},
    {"conv_spatial",
     R"(
HloModule m, num_partitions=4
ENTRY %e (x: s32[2,8,3], k: s32[3,3,5]) -> s32[2,6,5] {
  %x = s32[2,8,3] parameter(0), sharding={devices=[1,4,1]<=[4]}
  %k = s32[3,3,5] parameter(1)
  ROOT %c = s32[2,6,5] convolution(%x, %k), window={size=3}, dim_labels=b0f_0io->b0f, sharding={devices=[1,4,1]<=[4]}
})",
     {4}},
    {"conv_feature",
     R"(
HloModule m, num_partitions=4
ENTRY %e (x: s32[2,8,4], k: s32[3,4,5]) -> s32[2,6,5] {
  %x = s32[2,8,4] parameter(0), sharding={devices=[1,1,4]<=[4]}
  %k = s32[3,4,5] parameter(1), sharding={devices=[1,4,1]<=[4]}
  ROOT %c = s32[2,6,5] convolution(%x, %k), window={size=3}, dim_labels=b0f_0io->b0f
})",
     {4}},
    {"dot_both_batch",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[4,6,5], b: s32[4,5,3]) -> s32[4,6,3] {
  %a = s32[4,6,5] parameter(0), sharding={devices=[2,2,1]<=[4]}
  %b = s32[4,5,3] parameter(1), sharding={devices=[2,1,2]<=[4]}
  ROOT %d = s32[4,6,3] dot(%a, %b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, sharding={devices=[2,1,2]<=[4]}
})",
     {4}},
    {"select_and_scatter",
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
ENTRY %e (a: s32[8,4], s: s32[4,4]) -> s32[8,4] {
  %a = s32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  %s = s32[4,4] parameter(1)
  %z = s32[] constant(0)
  ROOT %r = s32[8,4] select-and-scatter(%a, %s, %z), window={size=2x1 stride=2x1}, select=%ge, scatter=%add, sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"reduce_mul_uneven",
     R"(
HloModule m, num_partitions=4
%mul (p: s32[], q: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %q = s32[] parameter(1)
  ROOT %r = s32[] multiply(%p, %q)
}
ENTRY %e (a: s32[3,7]) -> s32[3] {
  %a = s32[3,7] parameter(0), sharding={devices=[1,4]<=[4]}
  %one = s32[] constant(2)
  ROOT %r = s32[3] reduce(%a, %one), dimensions={1}, to_apply=%mul
})",
     {4}},
    {"reshape_split_dim",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[24]) -> s32[4,6] {
  %a = s32[24] parameter(0), sharding={devices=[4]<=[4]}
  ROOT %r = s32[4,6] reshape(%a), sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"reshape_split_dim_bad",
     R"(
HloModule m, num_partitions=4
ENTRY %e (a: s32[24]) -> s32[6,4] {
  %a = s32[24] parameter(0), sharding={devices=[4]<=[4]}
  ROOT %r = s32[6,4] reshape(%a), sharding={devices=[4,1]<=[4]}
})",
     {4}},
    {"while_counter_sharded",
     R"(
HloModule m, num_partitions=4
%cond (s: (s32[], s32[8])) -> pred[] {
  %s = (s32[], s32[8]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %c = s32[] constant(4)
  ROOT %lt = pred[] compare(%i, %c), direction=LT
}
%body (s: (s32[], s32[8])) -> (s32[], s32[8]) {
  %s = (s32[], s32[8]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %x = s32[8] get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %n = s32[] add(%i, %one)
  %io = s32[8] iota(), iota_dimension=0
  %b = s32[8] broadcast(%i), dimensions={}
  %y = s32[8] add(%x, %io)
  %z = s32[8] multiply(%y, %b)
  ROOT %t = (s32[], s32[8]) tuple(%n, %z)
}
ENTRY %e (a: s32[8]) -> s32[8] {
  %a = s32[8] parameter(0), sharding={devices=[4]<=[4]}
  %zero = s32[] constant(0)
  %init = (s32[], s32[8]) tuple(%zero, %a)
  %w = (s32[], s32[8]) while(%init), condition=%cond, body=%body
  ROOT %out = s32[8] get-tuple-element(%w), index=1
})",
     {4}},
    // Halo exchange on dim 0 while dim 1 stays split and untouched.
    {"slice_halo_other_dim_split",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (a: f32[8,6]) -> f32[6,6] {
  %a = f32[8,6] parameter(0), sharding={devices=[2,$N/2]<=[$N]}
  ROOT %s = f32[6,6] slice(%a), slice={[1:7], [0:6]}, sharding={devices=[2,$N/2]<=[$N]}
})",
     {4, 8}},
    // A cross-replica all-reduce (no channel id) is elementwise on shards.
    {"cross_replica_all_reduce",
     R"(
HloModule m, num_partitions=$N
%add (p: f32[], q: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %r = f32[] add(%p, %q)
}
ENTRY %e (a: f32[9,3]) -> f32[9,3] {
  %a = f32[9,3] parameter(0), sharding={devices=[$N,1]<=[$N]}
  ROOT %r = f32[9,3] all-reduce(%a), replica_groups={}, to_apply=%add, sharding={devices=[$N,1]<=[$N]}
})",
     {2, 4}},
    // TopK along a split last dim: that dim is gathered, the batch split kept.
    {"topk_call",
     R"(
HloModule m, num_partitions=4
%gt (a: f32[], b: f32[], c: s32[], d: s32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  %c = s32[] parameter(2)
  %d = s32[] parameter(3)
  ROOT %r = pred[] compare(%a, %b), direction=GT
}
ENTRY %e (x: f32[8,40]) -> (f32[8,3], s32[8,3]) {
  %x = f32[8,40] parameter(0), sharding={devices=[2,2]<=[4]}
  ROOT %t = (f32[8,3], s32[8,3]) custom-call(%x), custom_call_target="TopK", called_computations={%gt}, sharding={{devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}}
})",
     {4}},
    // Vocabulary-parallel lookup: each device reads its rows of the table
    // (out-of-range ids clamp, as in XLA), one all-reduce sums the pieces.
    {"vocab_parallel_gather",
     R"(
HloModule m, num_partitions=$N
ENTRY %e (table: f32[21,6]) -> f32[2,4,6] {
  %table = f32[21,6] parameter(0), sharding={devices=[$N,1]<=[$N]}
  %ids = s32[2,4] constant({{0, 20, -3, 7}, {11, 25, 5, 16}})
  ROOT %g = f32[2,4,6] gather(%table, %ids), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,6}, sharding={replicated}
})",
     {2, 4, 8}},
    // Each manual group partitions on its own: the reduce's all-reduce stays
    // in the group, the replicated constant serves the region.
    {"partial_manual_groups",
     R"(
HloModule m, num_partitions=$N
%add (p: f32[], q: f32[]) -> f32[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %r = f32[] add(%p, %q)
}
ENTRY %e (a: f32[6,5]) -> (f32[5], f32[6,5]) {
  %a = f32[6,5] parameter(0), sharding={devices=[2,1,$N/2]<=[$N] last_tile_dims={manual}}
  %two = f32[] constant(2)
  %b = f32[6,5] broadcast(%two), dimensions={}, sharding={devices=[2,1,$N/2]<=[$N] last_tile_dims={manual}}
  %m = f32[6,5] multiply(%a, %b), sharding={devices=[2,1,$N/2]<=[$N] last_tile_dims={manual}}
  %zero = f32[] constant(0)
  %sum = f32[5] reduce(%m, %zero), dimensions={0}, to_apply=%add, sharding={devices=[1,2,$N/2]<=[$N] last_tile_dims={replicated, manual}}
  ROOT %t = (f32[5], f32[6,5]) tuple(%sum, %m), sharding={{devices=[1,2,$N/2]<=[$N] last_tile_dims={replicated, manual}}, {devices=[2,1,$N/2]<=[$N] last_tile_dims={manual}}}
})",
     {4, 8}},
};

}  // namespace

absl::Span<const Model> PartitionerModels() {
  static const std::vector<Model>* all = [] {
    auto* models =
        new std::vector<Model>(std::begin(kPartitionerModels), std::end(kPartitionerModels));
    for (const Model& model : WindowedModels()) models->push_back(model);
    return models;
  }();
  return *all;
}

const Model& ModelNamed(std::string_view name) {
  for (const Model& model : PartitionerModels()) {
    if (model.name == name) return model;
  }
  XLITE_CHECK(false);
  return kPartitionerModels[0];
}

}  // namespace xlite::spmd
