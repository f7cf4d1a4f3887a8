// Printer unit tests: value syntaxes (numbers of every type, literals,
// shardings, windows, metadata) and the options.
#include "xlite/text/printer.h"

#include "gtest/gtest.h"
#include "xlite/ir/float_format.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

// The single instruction named `target` of a parsed module, printed.
std::string PrintedLine(std::string_view module_text, std::string_view target,
                        const PrintOptions& options = {}) {
  auto module = ParseHloModule(module_text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return "";
  for (const auto& c : (*module)->computations()) {
    for (const auto& inst : c->instructions()) {
      if (inst->name() == target) return PrintInstruction(*inst, options);
    }
  }
  ADD_FAILURE() << "no instruction " << target;
  return "";
}

Literal Scalar(PrimitiveType type, double v) {
  Literal l(Shape::Scalar(type));
  l.SetDouble(0, v);
  return l;
}

TEST(PrinterTest, FloatsUseTheShortestTextThatReadsBack) {
  EXPECT_EQ(PrintLiteralValue(Scalar(PrimitiveType::F32, 0.1)), "0.1");
  EXPECT_EQ(PrintLiteralValue(Scalar(PrimitiveType::F64, 0.1)), "0.1");
  EXPECT_EQ(PrintLiteralValue(Scalar(PrimitiveType::F32, 1e-5)), "1e-05");
  EXPECT_EQ(PrintLiteralValue(Scalar(PrimitiveType::F32, 3)), "3");
  // bf16(0.1) is 0.10009765625; "0.1" already rounds to it.
  EXPECT_EQ(PrintLiteralValue(Scalar(PrimitiveType::BF16, 0.1)), "0.1");
  EXPECT_EQ(PrintLiteralValue(Scalar(PrimitiveType::F16, 65504)), "65504");
  EXPECT_EQ(PrintLiteralValue(Scalar(PrimitiveType::F8E4M3FN, 448)), "448");
  EXPECT_EQ(PrintLiteralValue(Scalar(PrimitiveType::F32, -INFINITY)), "-inf");
  EXPECT_EQ(PrintLiteralValue(Scalar(PrimitiveType::F32, NAN)), "nan");
  EXPECT_EQ(PrintLiteralValue(Scalar(PrimitiveType::F32, -NAN)), "-nan");
}

TEST(PrinterTest, EveryNarrowFloatValueReadsBackExactly) {
  for (PrimitiveType t :
       {PrimitiveType::BF16, PrimitiveType::F16, PrimitiveType::F8E5M2, PrimitiveType::F8E4M3FN,
        PrimitiveType::F8E4M3B11FNUZ, PrimitiveType::F8E5M2FNUZ, PrimitiveType::F8E4M3FNUZ,
        PrimitiveType::F8E3M4, PrimitiveType::F8E4M3, PrimitiveType::F4E2M1FN,
        PrimitiveType::F8E8M0FNU}) {
    uint64_t count = uint64_t{1} << BitWidth(t);
    for (uint64_t bits = 0; bits < count; ++bits) {
      double v = DecodeFloat(bits, t);
      if (std::isnan(v)) continue;
      std::string text = PrintLiteralValue(Scalar(t, v));
      auto back = ParseHloModule("ENTRY %e () -> " + std::string(PrimitiveTypeName(t)) +
                                 "[] {\n  ROOT %c = " + std::string(PrimitiveTypeName(t)) +
                                 "[] constant(" + text + ")\n}\n");
      ASSERT_TRUE(back.ok()) << back.status();
      const Literal& l = (*back)->entry_computation()->root_instruction()->literal();
      EXPECT_EQ(EncodeFloat(l.GetDouble(0), t), EncodeFloat(v, t))
          << PrimitiveTypeName(t) << " bits " << bits << " printed " << text;
    }
  }
}

TEST(PrinterTest, NanPayloadsOfF32AndF64Survive) {
  std::string text = R"(HloModule m
ENTRY %e () -> (f32[2], f64[]) {
  %a = f32[2]{0} constant({nan(0x400001), -nan(0x407fff)})
  %b = f64[] constant(nan(0x123456789))
  ROOT %t = (f32[2]{0}, f64[]) tuple(%a, %b)
}
)";
  EXPECT_EQ(PrintedLine(text, "a"), "%a = f32[2]{0} constant({nan(0x400001), -nan(0x407fff)})");
  EXPECT_EQ(PrintedLine(text, "b"), "%b = f64[] constant(nan(0x123456789))");
}

TEST(PrinterTest, LiteralsOfEveryKind) {
  std::string text = R"(HloModule m
ENTRY %e () -> pred[] {
  %u = u64[] constant(18446744073709551615)
  %s = s8[3]{0} constant({-128, 0, 127})
  %m = s32[2,2]{1,0} constant({ { 1, 2 }, { 3, 4 } })
  %empty = f32[0]{0} constant({})
  %c = c128[1]{0} constant({(1.5, -2)})
  %t = (f32[], (s32[2]{0}, pred[])) constant((1, ({2, 3}, false)))
  %big = f32[20]{0} constant({...})
  ROOT %p = pred[] constant(true)
}
)";
  EXPECT_EQ(PrintedLine(text, "u"), "%u = u64[] constant(18446744073709551615)");
  EXPECT_EQ(PrintedLine(text, "s"), "%s = s8[3]{0} constant({-128, 0, 127})");
  EXPECT_EQ(PrintedLine(text, "m"), "%m = s32[2,2]{1,0} constant({ { 1, 2 }, { 3, 4 } })");
  EXPECT_EQ(PrintedLine(text, "empty"), "%empty = f32[0]{0} constant({})");
  EXPECT_EQ(PrintedLine(text, "c"), "%c = c128[1]{0} constant({(1.5, -2)})");
  EXPECT_EQ(PrintedLine(text, "t"),
            "%t = (f32[], (s32[2]{0}, pred[])) constant(( 1, ( {2, 3}, false ) ))");
  EXPECT_EQ(PrintedLine(text, "big"), "%big = f32[20]{0} constant({...})");
  EXPECT_EQ(PrintedLine(text, "p"), "%p = pred[] constant(true)");
}

TEST(PrinterTest, ArrayLiteralsAreSpacedAsXlaPrintsThem) {
  std::string text = R"(HloModule m
ENTRY %e () -> pred[] {
  %col = f32[2,1]{1,0} constant({{1},{2}})
  %r3 = s32[2,1,2]{2,1,0} constant({{{1,2}},{{3,4}}})
  %r4 = f32[2,2,1,1]{3,2,1,0} constant({{{{1}},{{2}}},{{{3}},{{4}}}})
  %r4e = f32[2,0,1,3]{3,2,1,0} constant({{},{}})
  %r2e = f32[0,3]{1,0} constant({})
  %r2i = f32[2,0]{1,0} constant({{},{}})
  %bits = pred[2,2]{1,0} constant({{true,false},{0,1}})
  ROOT %p = pred[] constant(false)
}
)";
  EXPECT_EQ(PrintedLine(text, "col"), "%col = f32[2,1]{1,0} constant({ {1}, {2} })");
  EXPECT_EQ(PrintedLine(text, "r3"),
            "%r3 = s32[2,1,2]{2,1,0} constant({ { { 1, 2 } }, { { 3, 4 } } })");
  EXPECT_EQ(PrintedLine(text, "r4"),
            "%r4 = f32[2,2,1,1]{3,2,1,0} constant({ { /*i0=0*/ { /*i1=0*/ {1} }, "
            "{ /*i1=1*/ {2} } }, { /*i0=1*/ { /*i1=0*/ {3} }, { /*i1=1*/ {4} } } })");
  EXPECT_EQ(PrintedLine(text, "r4e"),
            "%r4e = f32[2,0,1,3]{3,2,1,0} constant({ { /*i0=0*/ }, { /*i0=1*/ } })");
  EXPECT_EQ(PrintedLine(text, "r2e"), "%r2e = f32[0,3]{1,0} constant({  })");
  EXPECT_EQ(PrintedLine(text, "r2i"), "%r2i = f32[2,0]{1,0} constant({ {}, {} })");
  EXPECT_EQ(PrintedLine(text, "bits"), "%bits = pred[2,2]{1,0} constant({ { 1, 0 }, { 0, 1 } })");
  EXPECT_EQ(PrintedLine(text, "p"), "%p = pred[] constant(false)");
}

TEST(PrinterTest, MeshReplicaGroupsPrintAsWritten) {
  EXPECT_EQ(PrintedLine("ENTRY e {\n  p = f32[4] parameter(0)\n"
                        "  ROOT r = f32[8] all-gather(p), dimensions={0}, "
                        "replica_groups=mesh['axis_0'=4,'axis_1'=2] {'axis_1'}\n}",
                        "r"),
            "%r = f32[8] all-gather(%p), "
            "replica_groups=mesh['axis_0'=4,'axis_1'=2] {'axis_1'}, dimensions={0}");
}

TEST(PrinterTest, ShardingsPrintCanonically) {
  const std::pair<const char*, const char*> cases[] = {
      {"{replicated}", "{replicated}"},
      {"{maximal device=3}", "{maximal device=3}"},
      {"{manual}", "{manual}"},
      {"{unknown}", "{unknown}"},
      {"{devices=[2,1]0,1}", "{devices=[2,1]0,1}"},
      {"{devices=[2,2]<=[4]}", "{devices=[2,2]<=[4]}"},
      {"{devices=[4,2]<=[2,4]T(1,0)}", "{devices=[4,2]<=[2,4]T(1,0)}"},
      {"{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}",
       "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}"},
      {"{devices=[1,2,4]<=[8] last_tile_dims={manual, replicated}}",
       "{devices=[1,2,4]<=[8] last_tile_dims={manual, replicated}}"},
      {"{devices=[2]0,1 shard_as 1}", "{devices=[2]0,1 shard_as 1}"},
      {"{replicated shard_like 0}", "{replicated shard_like 0}"},
      {"{devices=[4]<=[4] metadata={op_name=\"x\"}}",
       "{devices=[4]<=[4] metadata={op_name=\"x\"}}"},
      {"{{replicated}, {devices=[2]0,1}, {maximal device=0}}",
       "{{replicated}, {devices=[2]0,1}, {maximal device=0}}"},
      {"{{replicated},{replicated},{replicated},{replicated},{replicated},{manual}}",
       "{{replicated}, {replicated}, {replicated}, {replicated}, {replicated}, "
       "/*index=5*/{manual}}"},
  };
  for (const auto& [in, expected] : cases) {
    auto sharding = ParseSharding(in);
    ASSERT_TRUE(sharding.ok()) << in << ": " << sharding.status();
    EXPECT_EQ(PrintSharding(*sharding), expected);
  }
}

TEST(PrinterTest, DefaultsAreLeftOut) {
  std::string text = R"(HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (x: f32[4,4], i: s32[4]) -> f32[4,4] {
  %x = f32[4,4]{1,0} parameter(0)
  %i = s32[4]{0} parameter(1)
  %z = f32[] constant(0)
  %cmp = pred[4]{0} compare(%i, %i), direction=LT, type=SIGNED
  %sl = f32[2,4]{1,0} slice(%x), slice={[0:2:1], [0:4:1]}
  %pd = f32[6,4]{1,0} pad(%x, %z), padding=1_1_0x0_0_0
  %rw = f32[2,2]{1,0} reduce-window(%x, %z), window={size=2x2 stride=2x2 pad=0_0x0_0 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x0}, to_apply=%add
  ROOT %d = f32[4,4]{1,0} dot(%x, %x), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={default,default}
}
)";
  EXPECT_EQ(PrintedLine(text, "cmp"), "%cmp = pred[4]{0} compare(%i, %i), direction=LT");
  EXPECT_EQ(PrintedLine(text, "sl"), "%sl = f32[2,4]{1,0} slice(%x), slice={[0:2], [0:4]}");
  EXPECT_EQ(PrintedLine(text, "pd"), "%pd = f32[6,4]{1,0} pad(%x, %z), padding=1_1x0_0");
  EXPECT_EQ(PrintedLine(text, "rw"),
            "%rw = f32[2,2]{1,0} reduce-window(%x, %z), window={size=2x2 stride=2x2}, "
            "to_apply=%add");
  EXPECT_EQ(PrintedLine(text, "d"),
            "%d = f32[4,4]{1,0} dot(%x, %x), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
}

TEST(PrinterTest, SharedAttributesInOrderWithEscapes) {
  std::string text = R"(HloModule m
ENTRY %e (x: f32[2]) -> f32[2] {
  %x = f32[2]{0} parameter(0)
  %c = f32[2]{0} copy(%x)
  ROOT %n = f32[2]{0} negate(%x), sharding={replicated}, frontend_attributes={b="2",a="1"}, control-predecessors={%c}, metadata={op_type="Neg" op_name="jit(f)/[\'x\']\n" source_file="a.py" source_line=3}, backend_config="q\"uote"
}
)";
  EXPECT_EQ(PrintedLine(text, "n"),
            "%n = f32[2]{0} negate(%x), sharding={replicated}, frontend_attributes={a=\"1\","
            "b=\"2\"}, control-predecessors={%c}, metadata={op_type=\"Neg\" "
            "op_name=\"jit(f)/[\\'x\\']\\n\" source_file=\"a.py\" source_line=3}, "
            "backend_config=\"q\\\"uote\"");
  PrintOptions quiet;
  quiet.print_metadata = false;
  quiet.print_backend_config = false;
  EXPECT_EQ(PrintedLine(text, "n", quiet),
            "%n = f32[2]{0} negate(%x), sharding={replicated}, frontend_attributes={a=\"1\","
            "b=\"2\"}, control-predecessors={%c}");
}

TEST(PrinterTest, OperandShapesAndIndexComments) {
  std::string text = R"(HloModule m
ENTRY %e (a: f32[]) -> (f32[], f32[], f32[], f32[], f32[], f32[]) {
  %a = f32[] parameter(0)
  ROOT %t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(%a, %a, %a, %a, %a, %a)
}
)";
  EXPECT_EQ(PrintedLine(text, "t"),
            "%t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(%a, %a, %a, %a, "
            "%a, /*index=5*/%a)");
  PrintOptions shapes;
  shapes.print_operand_shapes = true;
  EXPECT_EQ(PrintedLine(text, "t", shapes),
            "%t = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]) tuple(f32[] %a, f32[] %a, "
            "f32[] %a, f32[] %a, f32[] %a, /*index=5*/f32[] %a)");
}

// A parameter-number gap (invalid, but parsed) must not leave an empty slot
// in the signature: the printed text has to parse again (found by the fuzzer).
TEST(PrinterTest, SignatureSkipsMissingParameterNumbers) {
  auto module = ParseHloModule(R"(ENTRY %e {
  %q = f32[] parameter(2)
  ROOT %n = f32[] negate(%q)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  std::string printed = PrintModule(**module);
  EXPECT_NE(printed.find("ENTRY %e (q: f32[]) -> f32[] {"), std::string::npos) << printed;
  auto again = ParseHloModule(printed);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PrintModule(**again), printed);
}

// Names that would not lex as a name without `%` keep it in the signature.
TEST(PrinterTest, SignatureKeepsPercentWhereABareNameWouldNotRead) {
  auto module = ParseHloModule(R"(ENTRY %e {
  %-a.1 = f32[] parameter(0)
  %nan = f32[] parameter(1)
  %b = f32[] parameter(2)
  ROOT %s = f32[] add(%-a.1, %nan)
})");
  ASSERT_TRUE(module.ok()) << module.status();
  std::string printed = PrintModule(**module);
  EXPECT_NE(printed.find("ENTRY %e (%-a.1: f32[], %nan: f32[], b: f32[]) -> f32[] {"),
            std::string::npos)
      << printed;
  auto again = ParseHloModule(printed);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PrintModule(**again), printed);
}

TEST(PrinterTest, ModuleHeaderAndStackFrames) {
  std::string text =
      R"(HloModule demo, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {1}, must-alias) }, buffer_donor={ (0, {}) }, alias_passthrough_params=true, entry_computation_layout={(f32[8]{0}, (s32[], f32[2]{0}))->(f32[8]{0}, f32[2]{0})}, allow_spmd_sharding_propagation_to_parameters={false,true}, allow_spmd_sharding_propagation_to_output={true}, replica_count=2, num_partitions=4, frontend_attributes={k="v"}

FileNames
1 "a.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=0}


ENTRY %main (x: f32[8], y: (s32[], f32[2])) -> (f32[8], f32[2]) {
  %x = f32[8]{0} parameter(0)
  %y = (s32[], f32[2]{0}) parameter(1)
  %g = f32[2]{0} get-tuple-element(%y), index=1
  ROOT %t = (f32[8]{0}, f32[2]{0}) tuple(%x, %g), metadata={op_name="t" stack_frame_id=1}
}

)";
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(PrintModule(**module), text);
}

TEST(PrinterTest, ShortParsableFormAsXlaPrintsIt) {
  std::string text = R"(HloModule m

%add.1 (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %z = f32[] add(%x, %y)
}

ENTRY %e (p: f32[6]) -> f32[] {
  %p = f32[6]{0} parameter(0), metadata={op_name="p"}
  %c64 = f32[] constant(0), backend_config="cfg"
  %ROOT = f32[] constant(1)
  %t = (f32[6]{0}, f32[6]{0}, f32[6]{0}, f32[6]{0}, f32[6]{0}, /*index=5*/f32[6]{0}) tuple(%p, %p, %p, %p, %p, /*index=5*/%p)
  ROOT %r = f32[] reduce(%p, %c64), dimensions={0}, to_apply=%add.1, control-predecessors={%t}
}
)";
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string short_text = PrintModule(**module, ShortParsablePrintOptions());
  EXPECT_EQ(short_text, R"(HloModule m

add.1 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}

ENTRY e {
  p = f32[6]{0} parameter(0)
  %c64 = f32[] constant(0)
  %ROOT = f32[] constant(1)
  t = (f32[6]{0}, f32[6]{0}, f32[6]{0}, f32[6]{0}, f32[6]{0}, /*index=5*/f32[6]{0}) tuple(p, p, p, p, p, p)
  ROOT r = f32[] reduce(p, %c64), dimensions={0}, to_apply=add.1
}

)");
  // It reads back, and prints the same again.
  auto again = ParseHloModule(short_text);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PrintModule(**again, ShortParsablePrintOptions()), short_text);
}

}  // namespace
}  // namespace xlite
