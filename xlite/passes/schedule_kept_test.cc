// Passes keep the schedule of a scheduled module: what survives keeps its
// order, new instructions land just before their first user, removed ones
// leave, and the verifier accepts the result.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xlite/analysis/verifier.h"
#include "xlite/passes/pass_registry.h"
#include "xlite/passes/pipeline.h"
#include "xlite/text/parser.h"
#include "xlite/text/printer.h"

namespace xlite {
namespace {

// The independent chains are interleaved, an order no default (post order
// or definition sort) would produce, so a pass that re-sorted would show.
constexpr char kScheduled[] = R"(
HloModule scheduled, is_scheduled=true

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[8] parameter(0)
  q = f32[8] parameter(1)
  one = f32[] constant(1)
  ones = f32[8] broadcast(one), dimensions={}
  pq = f32[8] multiply(p, ones)
  r = f32[8] rsqrt(q)
  e = f32[8] exponential(pq)
  zero = f32[] constant(0)
  sum = f32[] reduce(e, zero), dimensions={0}, to_apply=add
  sq = f32[8] multiply(r, r)
  dead = f32[8] negate(sq)
  sum_b = f32[8] broadcast(sum), dimensions={}
  ROOT out = f32[8] add(sum_b, sq)
}
)";

std::vector<std::string> SequenceNames(const HloModule& module, const HloComputation& c) {
  std::vector<std::string> names;
  for (const HloInstruction* inst : module.schedule().sequence(c)) names.push_back(inst->name());
  return names;
}

std::unique_ptr<HloModule> ParseOrDie(std::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

// Runs `spec` through a pipeline (as `xlite opt` does) and checks the
// schedule is still there, valid, and keeps the surviving instructions in
// their old relative order.
std::unique_ptr<HloModule> RunAndCheck(std::string_view spec) {
  auto module = ParseOrDie(kScheduled);
  if (module == nullptr) return nullptr;
  std::vector<std::string> before = SequenceNames(*module, *module->entry_computation());
  absl::StatusOr<PassPipeline> pipeline = ParsePipelineSpec(spec);
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  if (!pipeline.ok()) return nullptr;
  PipelineReport report;
  PipelineOptions options;
  options.verify_each = true;  // the verifier checks the schedule after every pass
  absl::StatusOr<bool> changed = pipeline->Run(*module, options, &report);
  EXPECT_TRUE(changed.ok()) << spec << ": " << changed.status();
  EXPECT_TRUE(module->is_scheduled()) << spec;
  EXPECT_TRUE(VerifyModule(*module).ok()) << spec << ": " << VerifyModule(*module);
  std::vector<std::string> after = SequenceNames(*module, *module->entry_computation());
  EXPECT_EQ(after.size(), static_cast<size_t>(module->entry_computation()->instruction_count()));
  // Old instructions that survive appear in their old relative order.
  size_t next = 0;
  for (const std::string& name : after) {
    auto at = std::find(before.begin() + static_cast<std::ptrdiff_t>(next), before.end(), name);
    if (at != before.end()) {
      next = static_cast<size_t>(at - before.begin()) + 1;
    } else {
      EXPECT_EQ(std::find(before.begin(), before.end(), name), before.end())
          << spec << ": " << name << " moved against the old schedule";
    }
  }
  return module;
}

TEST(ScheduleKept, ByEachPassAndTheDefaultPipeline) {
  for (std::string_view spec : {"algsimp", "dce", "cse", "rsqrt-expander", "default"}) {
    SCOPED_TRACE(spec);
    RunAndCheck(spec);
  }
}

TEST(ScheduleKept, DceDropsTheDeadFromTheSequence) {
  auto module = RunAndCheck("dce");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(SequenceNames(*module, *module->entry_computation()),
            (std::vector<std::string>{"p", "q", "one", "ones", "pq", "r", "e", "zero", "sum", "sq",
                                      "sum_b", "out"}));
}

TEST(ScheduleKept, NewInstructionsGoJustBeforeTheirFirstUser) {
  auto module = RunAndCheck("rsqrt-expander");
  ASSERT_NE(module, nullptr);
  std::vector<std::string> names = SequenceNames(*module, *module->entry_computation());
  // rsqrt(q) became new instructions computing r's value: they form one
  // block right before r's first user `sq`, where r itself ran after `pq`
  // (nothing needs r earlier); every old instruction keeps its place.
  std::vector<std::string> old = {"p", "q", "one", "ones", "pq", "e", "zero", "sum"};
  ASSERT_GT(names.size(), old.size() + 4);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 8), old);
  std::vector<std::string> tail(names.end() - 4, names.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"sq", "dead", "sum_b", "out"}));
  for (size_t i = 8; i + 4 < names.size(); ++i) {
    EXPECT_EQ(std::find(old.begin(), old.end(), names[i]), old.end()) << names[i];
    EXPECT_NE(names[i], "r");
  }
  EXPECT_EQ(names[names.size() - 5], "divide");
}

TEST(ScheduleKept, PrintedInScheduleOrderAndParsedBack) {
  auto module = ParseOrDie(kScheduled);
  ASSERT_NE(module, nullptr);
  const HloComputation& entry = *module->entry_computation();
  // A different valid order set from C++, as a scheduler would.
  std::vector<HloInstruction*> order(module->schedule().sequence(entry).begin(),
                                     module->schedule().sequence(entry).end());
  std::swap(order[0], order[1]);  // q before p
  module->mutable_schedule().set_sequence(entry, order);
  ASSERT_TRUE(VerifyModule(*module).ok());
  std::string text = PrintModule(*module);
  EXPECT_LT(text.find("q = f32[8]"), text.find("p = f32[8]"));
  auto reparsed = ParseOrDie(text);
  ASSERT_NE(reparsed, nullptr);
  EXPECT_EQ(SequenceNames(*reparsed, *reparsed->entry_computation()),
            SequenceNames(*module, entry));
}

TEST(ScheduleKept, CseMovesTheKeptCopyBeforeItsNewUser) {
  auto module = ParseOrDie(R"(
HloModule m, is_scheduled=true

ENTRY main {
  p = f32[4] parameter(0)
  c1 = f32[4] exponential(p)
  n1 = f32[4] negate(c1)
  c2 = f32[4] exponential(p)
  n2 = f32[4] abs(c2)
  ROOT t = (f32[4], f32[4]) tuple(n1, n2)
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation& entry = *module->entry_computation();
  // The schedule runs the second copy's chain first.
  std::vector<HloInstruction*> order;
  for (const char* name : {"p", "c2", "n2", "c1", "n1", "t"}) {
    for (const auto& inst : entry.instructions()) {
      if (inst->name() == name) order.push_back(inst.get());
    }
  }
  module->mutable_schedule().set_sequence(entry, order);
  ASSERT_TRUE(VerifyModule(*module).ok());
  absl::StatusOr<PassPipeline> pipeline = ParsePipelineSpec("cse");
  ASSERT_TRUE(pipeline.ok());
  PipelineReport report;
  ASSERT_TRUE(pipeline->Run(*module, {}, &report).ok());
  // c2 is gone; c1 (now used by n2) moves up to just before n2.
  EXPECT_EQ(SequenceNames(*module, entry), (std::vector<std::string>{"p", "c1", "n2", "n1", "t"}));
  EXPECT_TRUE(VerifyModule(*module).ok()) << VerifyModule(*module);
}

TEST(ScheduleKept, UnscheduledModulesStayUnscheduled) {
  auto module = ParseOrDie("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_FALSE(module->is_scheduled());
  module->UpdateSchedule();
  EXPECT_FALSE(module->is_scheduled());
  EXPECT_EQ(PrintModule(*module).find("is_scheduled"), std::string::npos);
}

}  // namespace
}  // namespace xlite
