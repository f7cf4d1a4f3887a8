// The verifier's schedule checks: a scheduled module needs a sequence per
// non-fusion computation listing each instruction once, in an order where
// operands and control predecessors come first.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/analysis/test_util.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;
using testing::Parse;

constexpr char kModule[] = R"(
HloModule m, is_scheduled=true

fused {
  fp = f32[4] parameter(0)
  ROOT fn = f32[4] negate(fp)
}

ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] exponential(p)
  b = f32[4] negate(p), control-predecessors={a}
  f = f32[4] fusion(b), kind=kLoop, calls=fused
  ROOT t = (f32[4], f32[4]) tuple(a, f)
}
)";

HloInstruction* Named(const HloComputation& c, std::string_view name) {
  for (const auto& inst : c.instructions()) {
    if (inst->name() == name) return inst.get();
  }
  return nullptr;
}

std::string Errors(const HloModule& module) { return absl::StrJoin(VerifyModuleAll(module), "\n"); }

// Sets the entry's sequence to the named instructions.
void SetEntrySequence(HloModule& module, const std::vector<std::string>& names) {
  HloComputation& entry = *module.entry_computation();
  std::vector<HloInstruction*> sequence;
  for (const std::string& name : names) sequence.push_back(Named(entry, name));
  module.mutable_schedule().set_sequence(entry, sequence);
}

TEST(VerifierSchedule, ParsedTextOrderIsAValidSchedule) {
  auto module = Parse(kModule);
  ASSERT_NE(module, nullptr);
  ASSERT_TRUE(module->is_scheduled());
  EXPECT_EQ(Errors(*module), "");
  // The fusion body is not sequenced; the entry is, in text order.
  EXPECT_FALSE(module->schedule().has_sequence(*module->GetComputation("fused")));
  EXPECT_EQ(module->schedule().sequence(*module->entry_computation()).size(), 5u);
}

TEST(VerifierSchedule, TheScheduleIsTheTextOrder) {
  // Not a post order (which would run `a` right before its user `s`).
  auto module = Parse(R"(
HloModule m, is_scheduled=true

ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] exponential(p)
  b = f32[4] negate(p)
  c = f32[4] sine(b)
  ROOT s = f32[4] add(a, c)
}
)");
  ASSERT_NE(module, nullptr);
  std::vector<std::string> names;
  for (const HloInstruction* inst : module->schedule().sequence(*module->entry_computation())) {
    names.push_back(inst->name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"p", "a", "b", "c", "s"}));
  EXPECT_EQ(Errors(*module), "");
  // Running `s` before its operand `c` is refused.
  SetEntrySequence(*module, {"p", "a", "b", "s", "c"});
  EXPECT_THAT(Errors(*module),
              HasSubstr("%s in computation %main: is scheduled before its operand %c"));
}

TEST(VerifierSchedule, ControlPredecessorAfterItsSuccessor) {
  auto module = Parse(kModule);
  ASSERT_NE(module, nullptr);
  SetEntrySequence(*module, {"p", "b", "a", "f", "t"});
  EXPECT_THAT(Errors(*module), HasSubstr("%b in computation %main: is scheduled before its "
                                         "control predecessor %a"));
}

TEST(VerifierSchedule, MissingRepeatedAndForeignInstructions) {
  auto module = Parse(kModule);
  ASSERT_NE(module, nullptr);
  SetEntrySequence(*module, {"p", "a", "b", "t"});
  EXPECT_THAT(Errors(*module), HasSubstr("%f in computation %main: is missing from the schedule"));

  SetEntrySequence(*module, {"p", "a", "a", "b", "f", "t"});
  EXPECT_THAT(Errors(*module), HasSubstr("%a in computation %main: is listed twice"));

  HloComputation& entry = *module->entry_computation();
  std::vector<HloInstruction*> sequence(module->schedule().sequence(entry).begin(),
                                        module->schedule().sequence(entry).end());
  std::vector<HloInstruction*> foreign = {Named(entry, "p"), Named(entry, "a"), Named(entry, "b"),
                                          Named(entry, "f"), Named(entry, "t")};
  foreign.insert(foreign.begin(), Named(*module->GetComputation("fused"), "fn"));
  module->mutable_schedule().set_sequence(entry, foreign);
  EXPECT_THAT(Errors(*module), HasSubstr("schedule lists %fn of another computation"));
}

TEST(VerifierSchedule, EveryNonFusionComputationNeedsASequence) {
  auto module = Parse(kModule);
  ASSERT_NE(module, nullptr);
  HloSchedule empty;
  module->set_schedule(empty);
  EXPECT_THAT(Errors(*module),
              HasSubstr("computation %main: has no schedule sequence in a scheduled module"));

  HloSchedule with_fusion = HloSchedule::FromDefinitionOrder(*module);
  const HloComputation& fused = *module->GetComputation("fused");
  with_fusion.set_sequence(fused, {fused.root_instruction(), fused.parameter_instruction(0)});
  module->set_schedule(with_fusion);
  EXPECT_THAT(Errors(*module), HasSubstr("computation %fused: is a fusion body but has a "
                                         "schedule sequence"));
}

TEST(VerifierSchedule, UpdateRepairsAndCompletes) {
  auto module = Parse(kModule);
  ASSERT_NE(module, nullptr);
  // An incomplete, misordered sequence: Update keeps what it can and adds
  // the rest before its first user.
  SetEntrySequence(*module, {"t", "a", "p"});
  module->UpdateSchedule();
  EXPECT_EQ(Errors(*module), "");
  std::vector<std::string> names;
  for (const HloInstruction* inst : module->schedule().sequence(*module->entry_computation())) {
    names.push_back(inst->name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"p", "a", "b", "f", "t"}));
}

}  // namespace
}  // namespace xlite
