#include "xlite/ir/op_source.h"

#include <string_view>

#include "gtest/gtest.h"
#include "xlite/ir/computation.h"
#include "xlite/text/parser.h"

namespace xlite {
namespace {

// Two frames on the same line of `layer`, one in `model`, and an instruction
// with only source_file/source_line; frame 9 is outside the index.
constexpr char kModule[] = R"(HloModule m

FileNames
1 "/home/u/model.py"

FunctionNames
1 "model"
2 "layer"

FileLocations
1 {file_name_id=1 function_name_id=1 line=12 end_line=12 column=4 end_column=9}
2 {file_name_id=1 function_name_id=2 line=3 end_line=3 column=8 end_column=20}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=2}

ENTRY e {
  x = f32[4] parameter(0), metadata={op_name="x"}
  a = f32[4] negate(x), metadata={op_name="jit(f)/neg" stack_frame_id=2}
  b = f32[4] abs(a), metadata={op_name="jit(f)/abs" source_file="/t/old.py" source_line=40}
  c = f32[4] exponential(b), metadata={op_name="jit(f)/exp" stack_frame_id=9}
  ROOT d = f32[4] add(c, x), metadata={stack_frame_id=1}
}
)";

TEST(OpSource, InnermostFrameThenSourceFileThenNone) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation& entry = *(*module)->entry_computation();
  auto metadata = [&](std::string_view name) -> const OpMetadata& {
    for (const auto& inst : entry.instructions()) {
      if (inst->name() == name) return inst->metadata();
    }
    ADD_FAILURE() << "no instruction " << name;
    return entry.instructions().front()->metadata();
  };
  auto line = [&](std::string_view name) { return SourceLine(**module, metadata(name)); };
  EXPECT_EQ(line("a"), "/home/u/model.py:3");
  EXPECT_EQ(SourceOf(**module, metadata("a"))->function, "layer");
  EXPECT_EQ(line("d"), "/home/u/model.py:12");
  EXPECT_EQ(line("b"), "/t/old.py:40");
  EXPECT_EQ(line("c"), "");
  EXPECT_EQ(line("x"), "");
}

// A callee's instructions without a frame take their only caller's; a
// computation called from two places gives none.
constexpr char kCalls[] = R"(HloModule m

FileNames
1 "/m.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=5 end_line=5 column=1 end_column=2}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

once {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}

twice {
  b = f32[4] parameter(0)
  ROOT e = f32[4] exponential(b)
}

ENTRY e {
  x = f32[4] parameter(0)
  c = f32[4] call(x), to_apply=once, metadata={stack_frame_id=1}
  t1 = f32[4] call(c), to_apply=twice, metadata={stack_frame_id=1}
  ROOT t2 = f32[4] call(t1), to_apply=twice, metadata={stack_frame_id=1}
}
)";

TEST(OpSource, CalleesTakeTheirOnlyCallersSource) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kCalls);
  ASSERT_TRUE(module.ok()) << module.status();
  const SourceLines sources(**module);
  auto root_of = [&](std::string_view name) -> const HloInstruction& {
    for (const auto& computation : (*module)->computations()) {
      if (computation->name() == name) return *computation->root_instruction();
    }
    ADD_FAILURE() << "no computation " << name;
    return *(*module)->entry_computation()->root_instruction();
  };
  EXPECT_EQ(sources.Of(root_of("once")), "/m.py:5");
  EXPECT_EQ(sources.Of(root_of("twice")), "");
  EXPECT_EQ(sources.Of(root_of("e")), "/m.py:5");
}

}  // namespace
}  // namespace xlite
