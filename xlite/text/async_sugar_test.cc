// The printer's async sugar: which chains print as `op-start/-update/-done`,
// which stay explicit, and that both read back to the same text.
#include "xlite/text/async_sugar.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// An explicit async chain over `wrapped_body` (the body of %w, taking
// p: f32[4]) whose result is f32[8].
std::string ExplicitChain(std::string_view wrapped_body, std::string_view start_attrs = "") {
  return std::string("HloModule m\n\n%w (a: f32[4]) -> f32[8] {\n") + std::string(wrapped_body) +
         "}\n\nENTRY %e (p: f32[4]) -> f32[8] {\n  %p = f32[4]{0} parameter(0)\n"
         "  %s = ((f32[4]{0}), f32[8]{0}, s32[]) async-start(%p), calls=%w" +
         std::string(start_attrs) + "\n  ROOT %d = f32[8]{0} async-done(%s)\n}\n";
}

// Prints `text` with default options and checks the output is a fixed point.
std::string Printed(std::string_view text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return "";
  std::string printed = PrintModule(**module);
  auto again = ParseHloModule(printed);
  EXPECT_TRUE(again.ok()) << again.status() << "\n" << printed;
  if (again.ok()) {
    EXPECT_EQ(PrintModule(**again), printed);
  }
  return printed;
}

TEST(AsyncSugarTest, OneInstructionOverTheParametersPrintsAsSugar) {
  std::string printed =
      Printed(ExplicitChain("  %a = f32[4]{0} parameter(0)\n"
                            "  ROOT %c = f32[8]{0} custom-call(%a), custom_call_target=\"foo\"\n",
                            ", backend_config=\"on the start\""));
  EXPECT_EQ(printed,
            "HloModule m\n\nENTRY %e (p: f32[4]) -> f32[8] {\n"
            "  %p = f32[4]{0} parameter(0)\n"
            "  %s = ((f32[4]{0}), f32[8]{0}, s32[]) custom-call-start(%p), "
            "custom_call_target=\"foo\", backend_config=\"on the start\"\n"
            "  ROOT %d = f32[8]{0} custom-call-done(%s)\n}\n\n");
}

TEST(AsyncSugarTest, WrappedOpAttributesAndCalledComputationsGoOnTheStart) {
  std::string text =
      "HloModule m\n\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n"
      "  %y = f32[] parameter(1)\n  ROOT %z = f32[] add(%x, %y)\n}\n\n"
      "ENTRY %e (p: f32[4,2]) -> f32[4] {\n  %p = f32[4,2]{1,0} parameter(0)\n"
      "  %i = f32[] constant(0)\n"
      "  %s = ((f32[4,2]{1,0}, f32[]), f32[4]{0}, s32[]) reduce-start(%p, %i), "
      "async_execution_thread=\"t\", dimensions={1}, to_apply=%add, metadata={op_name=\"r\"}\n"
      "  ROOT %d = f32[4]{0} reduce-done(%s)\n}\n\n";
  // The wrapped computation and the reducer it calls carry the thread, as
  // XLA's async-start sets it, and print it.
  std::string printed = text;
  const std::string reducer_end = "ROOT %z = f32[] add(%x, %y)\n}";
  printed.replace(printed.find(reducer_end), reducer_end.size(),
                  reducer_end + ", execution_thread=\"t\"");
  EXPECT_EQ(Printed(text), printed);
  EXPECT_EQ(Printed(printed), printed);
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok());
  const HloInstruction* done = (*module)->entry_computation()->root_instruction();
  EXPECT_EQ(done->called_computations()[0]->execution_thread(), "t");
  EXPECT_EQ((*module)->GetComputation("add")->execution_thread(), "t");
}

TEST(AsyncSugarTest, ChainsThatSugarWouldChangeStayExplicit) {
  const std::string plain = "  %a = f32[4]{0} parameter(0)\n";
  struct Case {
    const char* why;
    std::string text;
  };
  const Case cases[] = {
      {"two instructions",
       ExplicitChain(plain + "  %n = f32[4]{0} negate(%a)\n"
                             "  ROOT %c = f32[8]{0} custom-call(%n), custom_call_target=\"f\"\n")},
      {"a backend_config on the wrapped op",
       ExplicitChain(plain + "  ROOT %c = f32[8]{0} custom-call(%a), custom_call_target=\"f\", "
                             "backend_config=\"cfg\"\n")},
      {"metadata on the wrapped op",
       ExplicitChain(plain + "  ROOT %c = f32[8]{0} custom-call(%a), custom_call_target=\"f\", "
                             "metadata={op_name=\"x\"}\n")},
      {"sharding on a parameter",
       ExplicitChain("  %a = f32[4]{0} parameter(0), sharding={replicated}\n"
                     "  ROOT %c = f32[8]{0} custom-call(%a), custom_call_target=\"f\"\n")},
      {"a thread the computation does not have",
       ExplicitChain(plain + "  ROOT %c = f32[8]{0} custom-call(%a), custom_call_target=\"f\"\n",
                     ", async_execution_thread=\"t\"")},
      {"all-reduce-start is an opcode of its own",
       "HloModule m\n\n%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n"
       "  %y = f32[] parameter(1)\n  ROOT %z = f32[] add(%x, %y)\n}\n\n"
       "%w (a: f32[4]) -> f32[4] {\n  %a = f32[4]{0} parameter(0)\n"
       "  ROOT %r = f32[4]{0} all-reduce(%a), replica_groups={}, to_apply=%add\n}\n\n"
       "ENTRY %e (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n"
       "  %s = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(%p), calls=%w\n"
       "  ROOT %d = f32[4]{0} async-done(%s)\n}\n"},
      {"the computation is shared by two chains",
       "HloModule m\n\n%w (a: f32[4]) -> f32[4] {\n  %a = f32[4]{0} parameter(0)\n"
       "  ROOT %c = f32[4]{0} custom-call(%a), custom_call_target=\"f\"\n}\n\n"
       "ENTRY %e (p: f32[4]) -> (f32[4], f32[4]) {\n  %p = f32[4]{0} parameter(0)\n"
       "  %s = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(%p), calls=%w\n"
       "  %d = f32[4]{0} async-done(%s)\n"
       "  %s2 = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(%p), calls=%w\n"
       "  %d2 = f32[4]{0} async-done(%s2)\n  ROOT %t = (f32[4]{0}, f32[4]{0}) tuple(%d, %d2)\n}\n"},
  };
  for (const Case& c : cases) {
    std::string printed = Printed(c.text);
    EXPECT_THAT(printed, HasSubstr("async-start(")) << c.why;
    EXPECT_THAT(printed, HasSubstr("calls=%w")) << c.why;
    EXPECT_THAT(printed, Not(HasSubstr("custom-call-start"))) << c.why;
    EXPECT_THAT(printed, Not(HasSubstr("all-reduce-start"))) << c.why;
  }
}

TEST(AsyncSugarTest, OptionOffPrintsEveryChainExplicitly) {
  std::string text = ExplicitChain(
      "  %a = f32[4]{0} parameter(0)\n"
      "  ROOT %c = f32[8]{0} custom-call(%a), custom_call_target=\"foo\"\n");
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  PrintOptions options;
  options.async_sugar = false;
  std::string printed = PrintModule(**module, options);
  EXPECT_THAT(printed, HasSubstr("%w (a: f32[4]) -> f32[8] {"));
  EXPECT_THAT(printed, HasSubstr("async-start(%p), calls=%w\n"));
  EXPECT_THAT(PrintModule(**module),
              HasSubstr("custom-call-start(%p), custom_call_target=\"foo\"\n"));
  EXPECT_EQ(printer_internal::SugaredAsyncComputations(**module).size(), 1u);
}

}  // namespace
}  // namespace xlite
