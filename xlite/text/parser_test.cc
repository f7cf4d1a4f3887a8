#include "xlite/text/parser.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/base/strings.h"
#include "xlite/ir/computation.h"

namespace xlite {
namespace {

std::unique_ptr<HloModule> Parse(std::string_view text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? std::move(module).value() : nullptr;
}

const HloInstruction* Find(const HloModule& m, std::string_view name) {
  for (const auto& c : m.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->name() == name) return i.get();
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

// The entry computation of a one-computation module around `body`.
std::unique_ptr<HloModule> ParseBody(std::string_view body) {
  return Parse(std::string("HloModule m\n\n%add (a: f32[], b: f32[]) -> f32[] {\n"
                           "  %add.a = f32[] parameter(0)\n  %add.b = f32[] parameter(1)\n"
                           "  ROOT %add.r = f32[] add(%add.a, %add.b)\n}\n\nENTRY %main {\n") +
               std::string(body) + "\n}\n");
}

TEST(ParserTest, ModuleHeaderAndConfig) {
  auto m = Parse(
      R"(HloModule demo, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {1}, must-alias) }, buffer_donor={ (0, {}), (2, {1}) }, alias_passthrough_params=true, entry_computation_layout={(f32[8]{0}, /*index=1*/s32[])->(f32[8]{0}, s32[])}, allow_spmd_sharding_propagation_to_parameters={false,true}, allow_spmd_sharding_propagation_to_output=true, replica_count=2, num_partitions=4, frontend_attributes={z="1",a="2"}, origin_recovery_table={ {"a"}: {"b"} }

ENTRY %main (x: f32[8], i: s32[]) -> (f32[8], s32[]) {
  %x = f32[8]{0} parameter(0)
  %i = s32[] parameter(1)
  ROOT %t = (f32[8]{0}, s32[]) tuple(%x, %i)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name(), "demo");
  EXPECT_TRUE(m->is_scheduled());
  const ModuleConfig& c = m->config();
  ASSERT_EQ(c.input_output_alias.size(), 2u);
  EXPECT_EQ(c.input_output_alias[1].output_index, ShapeIndex{1});
  EXPECT_EQ(c.input_output_alias[1].parameter, 1);
  EXPECT_TRUE(c.input_output_alias[1].must_alias);
  EXPECT_FALSE(c.input_output_alias[0].must_alias);
  ASSERT_EQ(c.buffer_donors.size(), 2u);
  EXPECT_EQ(c.buffer_donors[1].parameter_index, ShapeIndex{1});
  EXPECT_TRUE(c.alias_passthrough_params);
  ASSERT_TRUE(c.entry_parameter_layouts.has_value());
  EXPECT_EQ(c.entry_parameter_layouts->size(), 2u);
  EXPECT_TRUE(c.entry_result_layout->IsTuple());
  EXPECT_EQ(c.allow_spmd_sharding_propagation_to_parameters, (std::vector<bool>{false, true}));
  EXPECT_EQ(c.allow_spmd_sharding_propagation_to_output, (std::vector<bool>{true}));
  EXPECT_EQ(c.replica_count, 2);
  EXPECT_EQ(c.num_partitions, 4);
  ASSERT_EQ(c.frontend_attributes.size(), 2u);
  EXPECT_EQ(c.frontend_attributes[0].key, "a");  // sorted
  EXPECT_EQ(c.origin_recovery_table, R"({ {"a"}: {"b"} })");
  EXPECT_EQ(m->entry_computation()->parameter_instruction(1)->name(), "i");
}

TEST(ParserTest, HeaderlessAndEntryRules) {
  auto m = Parse("ENTRY e {\n  ROOT c = f32[] constant(1)\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name(), "module_e");
  auto last = Parse(
      "a {\n c = f32[] constant(1)\n}\nb {\n d = f32[] constant(2)\n e = f32[] negate(d)\n}\n");
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->entry_computation()->name(), "b");
  // No ROOT: the last instruction is the root; no shape: inferred.
  EXPECT_EQ(last->entry_computation()->root_instruction()->name(), "e");
  EXPECT_EQ(last->entry_computation()->root_instruction()->shape(),
            Shape::Scalar(PrimitiveType::F32));
}

TEST(ParserTest, StackFrameIndexAndMetadata) {
  auto m = Parse(R"(HloModule m
FileNames
1 "a.py"
FunctionNames
1 "f"
FileLocations
1 {file_name_id=1 function_name_id=1 line=10 end_line=11 column=2 end_column=9}
StackFrames
1 {file_location_id=1 parent_frame_id=0}

ENTRY %e {
  ROOT %c = f32[] constant(1), metadata={op_type="Mul" op_name="jit(f)/mul[\'p\']" source_file="/x.py" source_line=69 source_end_line=70 source_column=61 source_end_column=62 stack_frame_id=1 deduplicated_name="d" scheduling_name="s" profile_type={1,2} preserve_layout=true}
}
)");
  ASSERT_NE(m, nullptr);
  const StackFrameIndex& s = m->stack_frames();
  EXPECT_EQ(s.file_names, std::vector<std::string>{"a.py"});
  ASSERT_EQ(s.file_locations.size(), 1u);
  EXPECT_EQ(s.file_locations[0].end_column, 9);
  EXPECT_EQ(s.frames[0].file_location_id, 1);
  const OpMetadata& md = Find(*m, "c")->metadata();
  EXPECT_EQ(md.op_name, "jit(f)/mul['p']");
  EXPECT_EQ(md.source_end_column, 62);
  EXPECT_EQ(md.stack_frame_id, 1);
  EXPECT_EQ(md.profile_type, (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(md.preserve_layout);
}

TEST(ParserTest, ShapesAndLayouts) {
  auto s = ParseShape("f32[2,<=3,?]");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->is_dynamic_dimension(1));
  EXPECT_TRUE(s->is_unbounded_dimension(2));
  auto t = ParseShape("bf16[8,128]{1,0:T(8,128)(2,1)E(16)S(1)L(2)M(4)}");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const LayoutExtras& e = t->layout().extras();
  ASSERT_EQ(e.tiles.size(), 2u);
  EXPECT_EQ(e.tiles[1].dimensions, (DimVector{2, 1}));
  EXPECT_EQ(e.element_size_in_bits, 16);
  EXPECT_EQ(e.memory_space, 1);
  EXPECT_EQ(e.tail_padding_alignment_in_elements, 2);
  EXPECT_EQ(e.dynamic_shape_metadata_prefix_bytes, 4);
  auto sparse = ParseShape("f32[4,4]{1,0:D(D,C+~)#(u32)*(u64)SC(0:1,2)}");
  ASSERT_TRUE(sparse.ok()) << sparse.status().message();
  EXPECT_EQ(sparse->layout().extras().dim_levels[1].type, DimLevelType::kCompressed);
  EXPECT_FALSE(sparse->layout().extras().dim_levels[1].unique);
  EXPECT_EQ(sparse->layout().extras().index_primitive_type, PrimitiveType::U32);
  EXPECT_EQ(sparse->layout().extras().split_configs[0].split_indices, (std::vector<int64_t>{1, 2}));
  auto tuple = ParseShape("(f32[], /*index=1*/(s32[2]{0}, token[]), ())");
  ASSERT_TRUE(tuple.ok());
  EXPECT_EQ(tuple->tuple_size(), 3);
  EXPECT_TRUE(tuple->tuple_shapes(1).tuple_shapes(1).IsToken());
  EXPECT_FALSE(ParseShape("f32[2]{0,1}").ok());
}

// Dimensions too long for the byte-level shape path fall back to the token
// grammar, which keeps 19-digit sizes and refuses ones past int64 (found by
// the fuzzer as an overflow).
TEST(ParserTest, LongDimensionsTakeTheGeneralPath) {
  auto m = Parse("ENTRY %e { ROOT %p = s8[1000000000000000000]{0} parameter(0) }");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry_computation()->root_instruction()->shape().dimensions(0),
            int64_t{1000000000000000000});
  EXPECT_FALSE(ParseHloModule("ENTRY %e { ROOT %p = s8[20000000000000000000] parameter(0) }").ok());
}

// Integer lists are read from the bytes when plain (`{1,0}`); spaces, signs,
// comments and 19-digit values take the token grammar with the same result
// or its error.
TEST(ParserTest, IntegerListsPlainAndGeneral) {
  auto m = ParseBody(
      "  %p = f32[2,3,4] parameter(0)\n"
      "  %a = f32[4,3,2] transpose(%p), dimensions={2,1,0}\n"
      "  %b = f32[4,3,2] transpose(%p), dimensions={ 2, 1,0 }\n"
      "  %c = f32[4,3,2] transpose(%p), dimensions={2,/*x*/1,0}\n"
      "  %e = f32[4,3,2] transpose(%p), dimensions={0000000000000000002,1,0}\n"
      "  ROOT %d = f32[2,3,4] transpose(%p), dimensions={000000000000000000,1,2}");
  ASSERT_NE(m, nullptr);
  for (const char* name : {"a", "b", "c", "e"}) {
    EXPECT_EQ(Find(*m, name)->dimensions(), (std::vector<int64_t>{2, 1, 0})) << name;
  }
  EXPECT_EQ(Find(*m, "d")->dimensions(), (std::vector<int64_t>{0, 1, 2}));
  auto error = [](std::string_view dims) {
    auto module = ParseHloModule(absl::StrCat(
        "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT t = f32[2] transpose(p), dimensions=",
        AsAbsl(dims), "\n}"));
    return module.ok() ? std::string("ok") : std::string(module.status().message());
  };
  EXPECT_THAT(error("{0,}"), ::testing::HasSubstr("expected an integer"));
  EXPECT_THAT(error("{99999999999999999999}"), ::testing::HasSubstr("integer"));
  EXPECT_THAT(error("{0 1}"), ::testing::HasSubstr("expected ',' or a closing bracket"));
  EXPECT_EQ(error("{-0}"), "ok");
}

TEST(ParserTest, Constants) {
  auto m = ParseBody(R"(
  %s = s32[2,3] constant({{1, 2, 3}, {4, 5, -6}})
  %e = bf16[100,50]{1,0} constant({...})
  %z = bf16[0]{0} constant({})
  %f = f32[4] constant({inf, -inf, nan, 1.5})
  %c = c64[2] constant({(1, 2), (3, -4.5)})
  %t = (f32[], s32[2]) constant((1, {2, 3}))
  %u = u64[] constant(18446744073709551615)
  %p = pred[2] constant({true, false})
  %fill = f32[2,2] constant(7)
  ROOT %r = f32[] constant(0)
)");
  ASSERT_NE(m, nullptr);
  const Literal& s = Find(*m, "s")->literal();
  EXPECT_EQ(s.GetInt64(5), -6);
  EXPECT_TRUE(Find(*m, "e")->attrs<ConstantAttrs>().elided);
  EXPECT_EQ(Find(*m, "e")->literal().element_count(), 5000);
  EXPECT_FALSE(Find(*m, "s")->attrs<ConstantAttrs>().elided);
  const Literal& f = Find(*m, "f")->literal();
  EXPECT_TRUE(std::isinf(f.GetDouble(1)) && f.GetDouble(1) < 0);
  EXPECT_TRUE(std::isnan(f.GetDouble(2)));
  EXPECT_EQ(Find(*m, "c")->literal().GetComplex(1), std::complex<double>(3, -4.5));
  const Literal& t = Find(*m, "t")->literal();
  ASSERT_EQ(t.tuple_elements().size(), 2u);
  EXPECT_EQ(t.tuple_elements()[1].GetInt64(1), 3);
  EXPECT_EQ(static_cast<uint64_t>(Find(*m, "u")->literal().GetInt64(0)), UINT64_MAX);
  EXPECT_EQ(Find(*m, "p")->literal().GetInt64(0), 1);
  EXPECT_EQ(Find(*m, "fill")->literal().GetDouble(3), 7.0);
}

TEST(ParserTest, Shardings) {
  auto tiled = ParseSharding(
      "{devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate shard_as 1 metadata={op_name=\"x\"}}");
  ASSERT_TRUE(tiled.ok()) << tiled.status().message();
  EXPECT_TRUE(tiled->IsTiled());
  EXPECT_TRUE(tiled->tile_assignment().is_iota());
  EXPECT_EQ(tiled->tile_assignment().Devices(), (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_TRUE(tiled->replicate_on_last_tile_dim());
  EXPECT_TRUE(tiled->shard_group()->shard_as);
  EXPECT_EQ(tiled->metadata()[0].op_name, "x");
  auto explicit_list = ParseSharding("{devices=[1,2,2]0,1,2,3 last_tile_dims={manual}}");
  ASSERT_TRUE(explicit_list.ok());
  EXPECT_EQ(explicit_list->subgroup_types(), std::vector<OpShardingType>{OpShardingType::kManual});
  auto tuple = ParseSharding(
      "{{replicated}, {maximal device=3}, {manual}, {unknown shard_like 0}, {unreduced}}");
  ASSERT_TRUE(tuple.ok());
  ASSERT_EQ(tuple->tuple_elements().size(), 5u);
  EXPECT_EQ(tuple->tuple_elements()[1].maximal_device(), 3);
  EXPECT_EQ(tuple->tuple_elements()[3].kind(), HloSharding::Kind::kUnknown);
  EXPECT_EQ(tuple->tuple_elements()[4].kind(), HloSharding::Kind::kUnreduced);
  EXPECT_TRUE(ParseSharding("{}").ok());
  auto mesh = ParseSharding("{mesh[a=2], [{a}]}");  // mesh form: named_sharding_test.cc
  ASSERT_TRUE(mesh.ok()) << mesh.status().message();
  EXPECT_EQ(mesh->NumTiles(), 2);
  EXPECT_FALSE(ParseSharding("{replicated devices=[2]0,1}").ok());
  EXPECT_FALSE(ParseSharding("{devices=[2]0,1,2}").ok());
  EXPECT_FALSE(ParseSharding("{maximal}").ok());
}

TEST(ParserTest, CommonAttributes) {
  auto m = ParseBody(R"(
  %p = (f32[2], f32[2]) parameter(0), sharding={replicated}, parameter_replication={true,false}
  %g0 = f32[2] get-tuple-element(%p), index=0, frontend_attributes={_xla="1",k={"j":1}}, backend_config={"a":{"b":"}"}}, statistics={visualizing_index=1,stat-1=33,stat-2=44.5}, origin={{"x"}}
  %g1 = f32[2] get-tuple-element(%p), index=1, backend_config="say \"hi\"", control-predecessors={%g0}
  ROOT %t = (f32[2], f32[2]) tuple(f32[2] %g0, f32[2]{0} %g1)
)");
  ASSERT_NE(m, nullptr);
  const HloInstruction* p = Find(*m, "p");
  EXPECT_EQ(p->sharding().kind(), HloSharding::Kind::kReplicated);  // kept as written
  EXPECT_EQ(p->attrs<ParameterAttrs>().replication, (std::vector<bool>{true, false}));
  const HloInstruction* g0 = Find(*m, "g0");
  EXPECT_EQ(g0->tuple_index(), 0);
  EXPECT_EQ(g0->frontend_attributes()[1].value, R"({"j":1})");
  EXPECT_TRUE(g0->frontend_attributes()[1].is_json);
  EXPECT_EQ(g0->backend_config(), R"({"a":{"b":"}"}})");
  EXPECT_TRUE(g0->backend_config_is_json());
  EXPECT_EQ(g0->statistics()->visualizing_index, 1);
  EXPECT_EQ(g0->statistics()->stats[1].second, 44.5);
  EXPECT_EQ(g0->origin(), R"({{"x"}})");
  const HloInstruction* g1 = Find(*m, "g1");
  EXPECT_EQ(g1->backend_config(), "say \"hi\"");
  EXPECT_FALSE(g1->backend_config_is_json());
  ASSERT_EQ(g1->control_predecessors().size(), 1u);
  EXPECT_EQ(g1->control_predecessors()[0], g0);
}

TEST(ParserTest, ShapeAndIndexingOps) {
  auto m = ParseBody(R"(
  %x = f32[4,8]{1,0} parameter(0)
  %i = s32[] parameter(1)
  %v = s32[2] parameter(2)
  %b = f32[3,4,8] broadcast(%x), dimensions={1,2}
  %tr = f32[8,4] transpose(%x), dimensions={1,0}
  %rs = f32[32] reshape(%x), inferred_dimension=0
  %sl = f32[2,4] slice(%x), slice={[0:4:2], [2:6]}
  %ds = f32[2,2] dynamic-slice(%x, %i, %i), dynamic_slice_sizes={2,2}
  %legacy = f32[2,2] dynamic-slice(%x, %v), dynamic_slice_sizes={2,2}
  %dus = f32[4,8] dynamic-update-slice(%x, %ds, %i, %i)
  %c = f32[8,8] concatenate(%x, %x), dimensions={0}
  %zero = f32[] constant(0)
  %pd = f32[7,10] pad(%x, %zero), padding=1_2_0x-1_1_1
  %rv = f32[4,8] reverse(%x), dimensions={0}
  %io = s32[4,8] iota(), iota_dimension=1
  %gds = s32[] get-dimension-size(%x), dimensions={1}
  %sds = f32[4,<=8] set-dimension-size(%x, %i), dimensions={1}
  %ga = f32[2,8] gather(%x, %v), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, operand_batching_dims={}, start_indices_batching_dims={}, index_vector_dim=1, slice_sizes={1,8}, indices_are_sorted=true
  %sc = f32[4,8] scatter(%x, %v, %ga), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%add, unique_indices=true
  %cmp = pred[4,8] compare(%x, %x), direction=LT, type=TOTALORDER
  %sel = f32[4,8] select(%cmp, %x, %x)
  %cv = s32[4,8] convert(%x)
  %bc = s32[4,8] bitcast-convert(%x)
  %rp = f32[4,8] reduce-precision(%x), exponent_bits=5, mantissa_bits=10
  %ex = f32[4,8] exponential(%x), result_accuracy={tolerance={atol=1e-05,rtol=0,ulps=2}}
  %lg = f32[4,8] log(%x), result_accuracy={mode=highest}
  %red = f32[4] reduce(%x, %zero), dimensions={1}, to_apply=%add
  %rw = f32[2,4] reduce-window(%x, %zero), window={size=2x2 stride=2x2 pad=0_0x0_1 lhs_dilate=1x1 rhs_dilate=1x2 rhs_reversal=0x1}, to_apply=%add
  %mp = f32[4,8] map(%x, %x), dimensions={0,1}, to_apply=%add
  %so = f32[4,8] sort(%x), dimensions={1}, is_stable=true, to_apply={
    %l = f32[] parameter(0)
    %r = f32[] parameter(1)
    ROOT %lt = pred[] compare(%l, %r), direction=LT
  }
  %tk = (f32[4,2], s32[4,2]) topk(%x), k=2, largest=false
  ROOT %out = f32[4,8] add(%x, %x)
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "b")->dimensions(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Find(*m, "rs")->attrs<IntAttrs>().value, 0);
  const auto& sl = Find(*m, "sl")->attrs<SliceAttrs>();
  EXPECT_EQ(sl.strides, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(sl.limits, (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(Find(*m, "ds")->attrs<DynamicSliceAttrs>().sizes, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Find(*m, "legacy")->operand_count(), 2);
  const auto& pd = Find(*m, "pd")->attrs<PadAttrs>().padding;
  EXPECT_EQ(pd[1].low, -1);
  EXPECT_EQ(pd[1].interior, 1);
  EXPECT_EQ(pd[0].high, 2);
  EXPECT_EQ(Find(*m, "io")->attrs<IntAttrs>().value, 1);
  EXPECT_TRUE(Find(*m, "sds")->shape().is_dynamic_dimension(1));
  const auto& ga = Find(*m, "ga")->attrs<GatherAttrs>();
  EXPECT_EQ(ga.slice_sizes, (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(ga.dims.index_vector_dim, 1);
  EXPECT_TRUE(ga.indices_are_sorted);
  const auto& sc = Find(*m, "sc")->attrs<ScatterAttrs>();
  EXPECT_TRUE(sc.unique_indices);
  EXPECT_EQ(Find(*m, "sc")->to_apply()->name(), "add");
  const auto& cmp = Find(*m, "cmp")->attrs<CompareAttrs>();
  EXPECT_EQ(cmp.direction, ComparisonDirection::kLt);
  EXPECT_EQ(cmp.type, ComparisonType::kTotalOrder);
  EXPECT_EQ(Find(*m, "rp")->attrs<ReducePrecisionAttrs>().mantissa_bits, 10);
  EXPECT_EQ(Find(*m, "ex")->attrs<AccuracyAttrs>().accuracy.ulps, 2);
  EXPECT_EQ(Find(*m, "lg")->attrs<AccuracyAttrs>().accuracy.mode, "highest");
  const Window& w = Find(*m, "rw")->attrs<WindowAttrs>().window;
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[1].padding_high, 1);
  EXPECT_EQ(w[1].window_dilation, 2);
  EXPECT_TRUE(w[1].window_reversal);
  EXPECT_TRUE(Find(*m, "so")->attrs<IntAttrs>().flag);
  EXPECT_EQ(Find(*m, "so")->to_apply()->name(), "_");
  EXPECT_EQ(Find(*m, "tk")->attrs<IntAttrs>().value, 2);
  EXPECT_FALSE(Find(*m, "tk")->attrs<IntAttrs>().flag);
}

TEST(ParserTest, LinearAlgebraAndControlFlow) {
  auto m = ParseBody(R"(
  %a = f32[2,3,3] parameter(0)
  %k = f32[3,3,1,4] parameter(1)
  %g = s32[2] parameter(2)
  %d = f32[2,3,3] dot(%a, %a), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={highest,default}, algorithm=dot_bf16_bf16_f32
  %rd = f32[3,3] ragged-dot(%a, %a, %g), lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  %cv = f32[1,3,3,4] convolution(%a, %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=1, batch_group_count=1, operand_precision={high,high}
  %ff = c64[2,3,3] fft(%a), fft_type=RFFT, fft_length={3}
  %ts = f32[2,3,3] triangular-solve(%a, %a), left_side=true, lower=true, unit_diagonal=true, transpose_a=ADJOINT
  %ch = f32[2,3,3] cholesky(%a), lower=true
  %bn = (f32[2,3,3], f32[3], f32[3]) batch-norm-training(%a, %g, %g), epsilon=0.001, feature_index=2
  %rng = f32[4] rng(%a, %a), distribution=rng_normal
  %st = u64[2] parameter(3)
  %rbg = (u64[2], u32[4]) rng-bit-generator(%st), algorithm=rng_philox
  %rs = u64[2] rng-get-and-update-state(), delta=4
  %cl = f32[2,3,3] call(%a), to_apply=%add, is_composite=true
  %w = f32[2,3,3] while(%a), condition=%add, body=%add
  %i = s32[] parameter(4)
  %cond = f32[2,3,3] conditional(%i, %a, %a), branch_computations={%add, %add}
  %pr = pred[] parameter(5)
  %cond2 = f32[2,3,3] conditional(%pr, %a, %a), true_computation=%add, false_computation=%add
  %fu = f32[2,3,3] fusion(%a), kind=kLoop, calls=%add, output_to_operand_aliasing={{}: (0, {})}
  %cc = f32[3] custom-call(%a), custom_call_target="foo", api_version=API_VERSION_TYPED_FFI, custom_call_has_side_effect=true, operand_layout_constraints={f32[2,3,3]{2,1,0}}, schedule=SCHEDULE_LATEST, padding_type=PADDING_SAME, literal=s32[2]{0} {1, 2}, called_computations={%add}
  %dm = f32[2,3,3] domain(%a), domain={kind="sharding", entry={maximal device=0}, exit={replicated}}
  %sn = (f32[2,3,3], f32[2,3,3]) scan(%a, %a), dimensions={0}, num_carries=1, to_apply=%add, is_reverse=true
  ROOT %o = f32[2,3,3] opt-barrier(%a)
)");
  ASSERT_NE(m, nullptr);
  const auto& d = Find(*m, "d")->attrs<DotAttrs>();
  EXPECT_EQ(d.dims.lhs_contracting, (std::vector<int64_t>{2}));
  EXPECT_EQ(d.precision.operand_precision[0], Precision::kHighest);
  EXPECT_EQ(d.precision.algorithm, "dot_bf16_bf16_f32");
  EXPECT_EQ(Find(*m, "rd")->attrs<DotAttrs>().ragged.rhs_group, (std::vector<int64_t>{0}));
  const auto& cv = Find(*m, "cv")->attrs<ConvolutionAttrs>();
  EXPECT_EQ(cv.dims.input_feature, 3);
  EXPECT_EQ(cv.dims.kernel_output_feature, 3);
  EXPECT_EQ(cv.dims.output_spatial, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(cv.window[0].padding_low, 1);
  EXPECT_EQ(Find(*m, "ff")->attrs<FftAttrs>().type, FftType::kRfft);
  EXPECT_EQ(Find(*m, "ts")->attrs<TriangularSolveAttrs>().transpose_a, TransposeA::kAdjoint);
  EXPECT_TRUE(Find(*m, "ch")->attrs<IntAttrs>().flag);
  EXPECT_FLOAT_EQ(Find(*m, "bn")->attrs<BatchNormAttrs>().epsilon, 0.001f);
  EXPECT_EQ(Find(*m, "rng")->attrs<RngAttrs>().distribution, RandomDistribution::kNormal);
  EXPECT_EQ(Find(*m, "rbg")->attrs<RngAttrs>().algorithm, RandomAlgorithm::kPhilox);
  EXPECT_EQ(Find(*m, "rs")->attrs<IntAttrs>().value, 4);
  EXPECT_TRUE(Find(*m, "cl")->attrs<IntAttrs>().flag);
  EXPECT_EQ(Find(*m, "w")->called_computations().size(), 2u);
  EXPECT_EQ(Find(*m, "cond")->called_computations().size(), 2u);
  EXPECT_EQ(Find(*m, "cond2")->called_computations().size(), 2u);
  const HloInstruction* fu = Find(*m, "fu");
  EXPECT_EQ(fu->attrs<FusionAttrs>().kind, FusionKind::kLoop);
  EXPECT_TRUE(fu->called_computations()[0]->is_fusion_computation());
  EXPECT_EQ(fu->attrs<FusionAttrs>().output_to_operand_aliasing.size(), 1u);
  const auto& cc = Find(*m, "cc")->attrs<CustomCallAttrs>();
  EXPECT_EQ(cc.target, "foo");
  EXPECT_EQ(cc.api_version, CustomCallApiVersion::kTypedFfi);
  EXPECT_TRUE(cc.has_side_effect);
  EXPECT_EQ(cc.schedule, CustomCallSchedule::kLatest);
  EXPECT_EQ(cc.padding_type, PaddingType::kSame);
  EXPECT_EQ(cc.literal->GetInt64(1), 2);
  EXPECT_EQ(cc.operand_layout_constraints->size(), 1u);
  EXPECT_EQ(Find(*m, "cc")->called_computations().size(), 1u);
  const auto& dm = Find(*m, "dm")->attrs<DomainAttrs>();
  EXPECT_EQ(dm.kind, "sharding");
  EXPECT_EQ(dm.entry->maximal_device(), 0);
  const auto& sn = Find(*m, "sn")->attrs<ScanAttrs>();
  EXPECT_EQ(sn.num_carries, 1);
  EXPECT_TRUE(sn.is_reverse);
}

TEST(ParserTest, CollectivesAndTransfers) {
  auto m = ParseBody(R"(
  %x = f32[8] parameter(0)
  %tok = token[] after-all()
  %ar = f32[8] all-reduce(%x), channel_id=1, replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true, constrain_layout=true, to_apply=%add
  %ag = f32[16] all-gather(%x), dimensions={0}, replica_groups={{0,1},{2,3}}
  %rs = f32[4] reduce-scatter(%x), dimensions={0}, replica_groups={}, to_apply=%add
  %a2a = f32[8] all-to-all(%x), dimensions={0}, replica_groups={{0,1}}
  %cp = f32[8] collective-permute(%x), channel_id=2, source_target_pairs={{0,1},{1,0}}
  %cb = f32[8] collective-broadcast(%x), replica_groups={{0,1}}
  %ars = f32[8] all-reduce-start(%x), to_apply=%add
  %ard = f32[8] all-reduce-done(%ars)
  %ags = (f32[8], f32[16]) all-gather-start(%x), dimensions={0}
  %agd = f32[16] all-gather-done(%ags)
  %cps = (f32[8], f32[8], u32[], u32[]) collective-permute-start(%x), source_target_pairs={{0,1}}
  %cpd = f32[8] collective-permute-done(%cps)
  %cs = (f32[8], f32[8], u32[]) copy-start(%x), cross_program_prefetch_index=0
  %cd = f32[8] copy-done(%cs)
  %snd = (f32[8], u32[], token[]) send(%x, %tok), channel_id=5, is_host_transfer=true
  %sd = token[] send-done(%snd), channel_id=5, is_host_transfer=true
  %rcv = (f32[8], u32[], token[]) recv(%tok), channel_id=6
  %rd = (f32[8], token[]) recv-done(%rcv), channel_id=6
  %inf = (f32[8], token[]) infeed(%tok), infeed_config="cfg"
  %out = token[] outfeed(%x, %tok), outfeed_shape=f32[8]{0}, outfeed_config="o"
  %rid = u32[] replica-id()
  %pid = u32[] partition-id()
  %dep = f32[8] add-dependency(%x, %tok)
  ROOT %r = f32[8] copy(%x)
)");
  ASSERT_NE(m, nullptr);
  const auto& ar = Find(*m, "ar")->attrs<CollectiveAttrs>();
  EXPECT_EQ(ar.channel_id, 1);
  EXPECT_TRUE(ar.replica_groups.is_iota);
  EXPECT_EQ(ar.replica_groups.iota_perm, (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(ar.use_global_device_ids);
  EXPECT_TRUE(ar.constrain_layout);
  EXPECT_EQ(Find(*m, "ag")->attrs<CollectiveAttrs>().replica_groups.groups.size(), 2u);
  EXPECT_EQ(Find(*m, "rs")->dimensions(), std::vector<int64_t>{0});
  EXPECT_EQ(Find(*m, "cp")->attrs<CollectiveAttrs>().source_target_pairs[1],
            (std::pair<int64_t, int64_t>{1, 0}));
  EXPECT_EQ(Find(*m, "cs")->attrs<IntAttrs>().value, 0);
  EXPECT_TRUE(Find(*m, "snd")->attrs<SendRecvAttrs>().is_host_transfer);
  EXPECT_EQ(Find(*m, "rd")->attrs<SendRecvAttrs>().channel_id, 6);
  EXPECT_EQ(Find(*m, "inf")->attrs<FeedAttrs>().config, "cfg");
  EXPECT_TRUE(Find(*m, "out")->attrs<FeedAttrs>().outfeed_shape.has_value());
}

TEST(ParserTest, AsyncSugarWrapsInstruction) {
  auto m = Parse(R"(HloModule m
ENTRY %e {
  %p = f32[4] parameter(0)
  %s = ((f32[4]), f32[8], s32[]) custom-call-start(%p), custom_call_target="foo", async_execution_thread="t", sharding={replicated}
  %u = ((f32[4]), f32[8], s32[]) custom-call-update(%s)
  ROOT %d = f32[8] custom-call-done(%u)
}
)");
  ASSERT_NE(m, nullptr);
  const HloInstruction* s = Find(*m, "s");
  EXPECT_EQ(s->opcode(), HloOpcode::kAsyncStart);
  EXPECT_EQ(s->attrs<AsyncAttrs>().execution_thread, "t");
  EXPECT_TRUE(s->has_sharding());
  const HloComputation* wrapped = s->called_computations()[0];
  EXPECT_EQ(wrapped->name(), "async_wrapped");
  EXPECT_EQ(m->computations()[0].get(), wrapped);  // before its caller
  const HloInstruction* op = wrapped->root_instruction();
  EXPECT_EQ(op->name(), "async_op");
  EXPECT_EQ(op->opcode(), HloOpcode::kCustomCall);
  EXPECT_EQ(op->attrs<CustomCallAttrs>().target, "foo");
  EXPECT_EQ(op->shape().rank(), 1);
  EXPECT_EQ(op->operand(0)->name(), "async_param");
  const HloInstruction* d = Find(*m, "d");
  EXPECT_EQ(d->opcode(), HloOpcode::kAsyncDone);
  EXPECT_EQ(d->called_computations()[0], wrapped);
  EXPECT_EQ(d->attrs<AsyncAttrs>().execution_thread, "t");
  EXPECT_EQ(Find(*m, "u")->opcode(), HloOpcode::kAsyncUpdate);
}

TEST(ParserTest, ExplicitAsyncAndNameClash) {
  auto m = Parse(R"(HloModule m
%async_wrapped {
  %q = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%q)
}
ENTRY %e {
  %p = f32[4] parameter(0)
  %s = ((f32[4]), f32[4]) negate-start(%p)
  %s2 = ((f32[4]), f32[4]) async-start(%p), calls=%async_wrapped
  %d2 = f32[4] async-done(%s2)
  ROOT %d = f32[4] negate-done(%s)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "s")->called_computations()[0]->name(), "async_wrapped.1");
  EXPECT_EQ(Find(*m, "d2")->called_computations()[0]->name(), "async_wrapped");
}

// Operands written as instructions become unnamed instructions placed before
// their user, named `<opcode>.anon` (made unique) as XLA's parser does.
TEST(ParserTest, NestedInstructionOperands) {
  auto m = Parse(
      "HloModule m\nENTRY e {\n"
      "  a = f32[8,7] reshape(f32[1,8,1,7] parameter(0))\n"
      "  parameter.anon = f32[8,7] reshape(f32[1,8,1,7] parameter(1))\n"
      "  ROOT s = f32[8,7] add(a, negate(f32[8,7] parameter.anon))\n}\n");
  ASSERT_NE(m, nullptr);
  const HloComputation& entry = *m->entry_computation();
  std::vector<std::string> names;
  for (const auto& inst : entry.instructions()) names.push_back(inst->name());
  EXPECT_EQ(names, (std::vector<std::string>{"parameter.anon.1", "a", "parameter.anon.2",
                                             "parameter.anon", "negate.anon", "s"}));
  EXPECT_EQ(entry.root_instruction()->name(), "s");
  const HloInstruction* a = Find(*m, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->operand(0)->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(a->operand(0)->shape().ToString(false), "f32[1,8,1,7]");
  EXPECT_EQ(entry.root_instruction()->operand(1)->operand(0), Find(*m, "parameter.anon"));
  EXPECT_EQ(entry.num_parameters(), 2);
}

TEST(ParserTest, BufferShapes) {
  auto m = Parse(
      "HloModule m\nENTRY e (p: b(f32[4,16])) -> (b(f32[4,16]), b(f32[])) {\n"
      "  p = b(f32[4,16]) parameter(0)\n"
      "  c = b(f32[]{:S(1)}) custom-call(), custom_call_target=\"CreateBuffer\"\n"
      "  ROOT t = (b(f32[4,16]), b(f32[])) tuple(b(f32[4,16]) p, c)\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(Find(*m, "p")->shape().is_buffer());
  EXPECT_EQ(Find(*m, "c")->shape().ToString(), "b(f32[]{:S(1)})");
  EXPECT_TRUE(Find(*m, "t")->shape().tuple_shapes(0).is_buffer());
  EXPECT_FALSE(Find(*m, "t")->shape() == Shape::Tuple({Shape(PrimitiveType::F32, {4, 16}),
                                                       Shape::Scalar(PrimitiveType::F32)}));
}

// Spelled-out defaults (`type=` of the operand type's default, an all-default
// operand_precision) parse as if left out, which is how they print.
TEST(ParserTest, DefaultComparisonTypeIsNotKept) {
  auto m = ParseBody(
      "  p = f32[3] parameter(0)\n"
      "  d = pred[3] compare(p, p), direction=EQ, type=FLOAT\n"
      "  ROOT t = pred[3] compare(p, p), direction=EQ, type=TOTALORDER");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(Find(*m, "d")->attrs<CompareAttrs>().type.has_value());
  EXPECT_EQ(Find(*m, "t")->attrs<CompareAttrs>().type, ComparisonType::kTotalOrder);
  auto dots = ParseBody(
      "  a = f32[2,2] parameter(0)\n"
      "  d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
      "operand_precision={default,DEFAULT}\n"
      "  ROOT h = f32[2,2] dot(a, d), lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
      "operand_precision={default,high}");
  ASSERT_NE(dots, nullptr);
  EXPECT_TRUE(Find(*dots, "d")->attrs<DotAttrs>().precision.operand_precision.empty());
  EXPECT_EQ(Find(*dots, "h")->attrs<DotAttrs>().precision.operand_precision.size(), 2u);
}

TEST(ParserTest, MeshReplicaGroups) {
  auto m = ParseBody(
      "  p = f32[8] parameter(0)\n"
      "  ROOT r = f32[8] all-reduce(p), replica_groups=mesh['x'=2,'y'=3,'z'=2] {'z','x'}, "
      "to_apply=%add");
  ASSERT_NE(m, nullptr);
  const ReplicaGroups& g = Find(*m, "r")->attrs<CollectiveAttrs>().replica_groups;
  ASSERT_TRUE(g.is_mesh());
  EXPECT_EQ(g.mesh.axes, (std::vector<MeshAxis>{{"x", 2}, {"y", 3}, {"z", 2}}));
  EXPECT_EQ(g.mesh_group_axes, (std::vector<MeshAxisRef>{{.axis = 2}, {.axis = 0}}));
  EXPECT_FALSE(g.empty());
}

TEST(ParserTest, LineEndingsAndUniqueIds) {
  auto crlf = Parse(
      "HloModule m\r\nENTRY e {\r\n  a = f32[] constant(1)\r\n  ROOT b = f32[] negate(a)\r\n}\r\n");
  auto cr =
      Parse("HloModule m\rENTRY e {\r  a = f32[] constant(1)\r  ROOT b = f32[] negate(a)\r}\r");
  ASSERT_NE(crlf, nullptr);
  ASSERT_NE(cr, nullptr);
  EXPECT_EQ(Find(*crlf, "a")->unique_id(), 0);
  EXPECT_EQ(Find(*crlf, "b")->unique_id(), 1);
}

TEST(ParserTest, SplitInputFile) {
  std::string text = "a\n// -----\nb\nc\n  // -----  \r\nd";
  std::vector<InputChunk> chunks = SplitInputFile(text);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].text, "a\n");
  EXPECT_EQ(chunks[1].text, "b\nc\n");
  EXPECT_EQ(chunks[1].first_line, 2);
  EXPECT_EQ(chunks[2].text, "d");
  EXPECT_EQ(chunks[2].first_line, 5);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const std::filesystem::path kCorpus = XLITE_SOURCE_DIR "/../shared/corpus/hlo";

// Every corpus module parses; a construct not supported yet must say so, never
// fail otherwise.
TEST(ParserCorpusTest, EveryFileParses) {
  if (!std::filesystem::exists(kCorpus)) GTEST_SKIP() << "no corpus at " << kCorpus;
  int parsed = 0;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus))
    files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::string text = ReadFile(path);
    std::string name = path.string();
    for (const InputChunk& chunk : SplitInputFile(text)) {
      if (chunk.text.find_first_not_of(" \t\r\n") == std::string_view::npos) continue;
      ParseOptions options;
      options.filename = name;
      options.line_offset = chunk.first_line;
      auto module = ParseHloModule(chunk.text, options);
      if (module.ok()) {
        ++parsed;
      } else {
        EXPECT_EQ(module.status().code(), absl::StatusCode::kUnimplemented)
            << module.status().message();
        std::cout << "[ unsupported ] " << module.status().message().substr(0, 200) << "\n";
      }
    }
  }
  EXPECT_GT(parsed, 400);
}

TEST(ParserCorpusTest, InvalidConcatParses) {
  std::filesystem::path path = kCorpus / "xla__tools__tests__data__invalid_concat.hlo";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  std::string text = ReadFile(path);
  EXPECT_TRUE(ParseHloModule(text).ok());
}

// Prints the parse time of the 4 MB benchmark module (not a timed assertion).
TEST(ParserCorpusTest, ParseSpeed) {
  std::filesystem::path path =
      kCorpus / "xla__tools__benchmarks__hlo__hlo_mixtral_8x7b_bf16_2x8.hlo";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  std::string text = ReadFile(path);
  double best = 1e30;
  for (int i = 0; i < 5; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto module = ParseHloModule(text);
    auto end = std::chrono::steady_clock::now();
    ASSERT_TRUE(module.ok()) << module.status().message();
    best = std::min(best, std::chrono::duration<double, std::milli>(end - start).count());
  }
  std::cout << "[ parse speed ] " << text.size() / 1e6 << " MB in " << best
            << " ms = " << text.size() / 1e3 / best << " MB/s\n";
}

}  // namespace
}  // namespace xlite
