#include "xlite/ir/instruction.h"

#include <algorithm>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xlite/ir/builder.h"

namespace xlite {
namespace {

using PT = PrimitiveType;
using ::testing::ElementsAre;

// Devices are row-major over the mesh; a group walks the listed axes in
// the written order and the groups follow the remaining axes.
TEST(ReplicaGroupsTest, MeshGroupsVaryOnlyAlongListedAxes) {
  ReplicaGroups g;
  g.mesh.axes = {{"x", 2}, {"y", 3}, {"z", 2}};
  g.mesh_group_axes = {{.axis = 2}, {.axis = 0}};
  EXPECT_THAT(g.Groups(), ElementsAre(ElementsAre(0, 6, 1, 7), ElementsAre(2, 8, 3, 9),
                                      ElementsAre(4, 10, 5, 11)));
  g.mesh_group_axes = {};
  EXPECT_EQ(g.Groups().size(), 12u);
  g.mesh.axes = {{"a", 2}, {"b", 2}};
  g.mesh_group_axes = {{.axis = 1}};
  EXPECT_THAT(g.Groups(), ElementsAre(ElementsAre(0, 1), ElementsAre(2, 3)));
  g.mesh_group_axes = {{.axis = 2}};
  EXPECT_TRUE(g.Groups().empty());
}

TEST(AttrsKindTest, MapsOpcodeFamilies) {
  EXPECT_EQ(AttrsKindOf(HloOpcode::kParameter), AttrsKind::kParameter);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kGetTupleElement), AttrsKind::kInt);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kSort), AttrsKind::kInt);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kCopyStart), AttrsKind::kInt);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kAllReduceStart), AttrsKind::kCollective);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kRaggedAllToAll), AttrsKind::kCollective);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kCollectiveBroadcast), AttrsKind::kCollective);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kAllReduceDone), AttrsKind::kNone);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kRecvDone), AttrsKind::kSendRecv);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kScaledDot), AttrsKind::kDot);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kSelectAndScatter), AttrsKind::kWindow);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kExp), AttrsKind::kAccuracy);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kTanh), AttrsKind::kAccuracy);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kAtan), AttrsKind::kNone);
  EXPECT_EQ(AttrsKindOf(HloOpcode::kAdd), AttrsKind::kNone);
  // Every kind's default record compares equal to a clone of itself only.
  for (int k = 0; k <= static_cast<int>(AttrsKind::kAccuracy); ++k) {
    auto attrs = MakeDefaultAttrs(static_cast<AttrsKind>(k));
    if (k == 0) {
      EXPECT_EQ(attrs, nullptr);
      continue;
    }
    ASSERT_NE(attrs, nullptr);
    EXPECT_TRUE(attrs->Equals(*attrs->Clone()));
    auto other = MakeDefaultAttrs(static_cast<AttrsKind>(k == 1 ? 2 : 1));
    EXPECT_FALSE(attrs->Equals(*other));
  }
}

class InstructionGraphTest : public ::testing::Test {
 protected:
  InstructionGraphTest() : b_("c") {
    Shape s(PT::F32, {4});
    p0_ = b_.AddParameter(0, s);
    p1_ = b_.AddParameter(1, s);
    add_ = b_.AddInstruction(HloOpcode::kAdd, s, {p0_, p0_});
    mul_ = b_.AddInstruction(HloOpcode::kMultiply, s, {add_, p1_});
    computation_ = b_.Build();
  }
  HloBuilder b_;
  HloInstruction *p0_, *p1_, *add_, *mul_;
  std::unique_ptr<HloComputation> computation_;
};

TEST_F(InstructionGraphTest, UsersAreUniqueAndKeptInSync) {
  EXPECT_THAT(p0_->users(), ElementsAre(add_));
  add_->ReplaceOperandWith(0, p1_);
  EXPECT_THAT(p0_->users(), ElementsAre(add_));  // still operand 1
  add_->ReplaceOperandWith(1, p1_);
  EXPECT_TRUE(p0_->users().empty());
  EXPECT_THAT(p1_->users(), ElementsAre(mul_, add_));
  EXPECT_EQ(computation_->root_instruction(), mul_);
  EXPECT_TRUE(mul_->IsRoot());
}

// AppendOperand looks in the shorter of the operand and user lists: a wide
// tuple (many operands, each with few users) and a value with many users
// both record each user once.
TEST(InstructionTest, WideTupleRecordsEachUserOnce) {
  HloBuilder b("wide");
  Shape s(PT::F32, {4});
  HloInstruction* p = b.AddParameter(0, s);
  std::vector<HloInstruction*> operands;
  for (int i = 0; i < 1000; ++i) operands.push_back(b.AddInstruction(HloOpcode::kNegate, s, {p}));
  operands.push_back(p);
  operands.push_back(operands[0]);
  operands.push_back(p);
  HloInstruction* tuple = b.AddInstruction(
      HloOpcode::kTuple, Shape::Tuple(std::vector<Shape>(operands.size(), s)), operands);
  std::unique_ptr<HloComputation> computation = b.Build();
  EXPECT_EQ(p->users().size(), 1001u);
  EXPECT_EQ(std::count(p->users().begin(), p->users().end(), tuple), 1);
  EXPECT_THAT(operands[0]->users(), ElementsAre(tuple));
  EXPECT_THAT(operands[999]->users(), ElementsAre(tuple));
}

TEST_F(InstructionGraphTest, ReplaceAllUsesWithMovesRoot) {
  add_->ReplaceAllUsesWith(p0_);
  EXPECT_THAT(mul_->operands(), ElementsAre(p0_, p1_));
  EXPECT_TRUE(add_->users().empty());
  mul_->ReplaceAllUsesWith(p1_);
  EXPECT_EQ(computation_->root_instruction(), p1_);
  computation_->RemoveInstruction(mul_);
  computation_->RemoveInstruction(add_);
  EXPECT_EQ(computation_->instruction_count(), 2);
  EXPECT_THAT(p0_->users(), ElementsAre());
}

TEST_F(InstructionGraphTest, ControlDependenciesAreSymmetric) {
  EXPECT_TRUE(p1_->control_predecessors().empty());
  p1_->AddControlDependencyTo(p0_);
  p1_->AddControlDependencyTo(p0_);
  EXPECT_THAT(p1_->control_successors(), ElementsAre(p0_));
  EXPECT_THAT(p0_->control_predecessors(), ElementsAre(p1_));
  p0_->DropAllControlDeps();
  EXPECT_TRUE(p1_->control_successors().empty());
}

TEST_F(InstructionGraphTest, PostOrderFollowsOperandsThenControlDeps) {
  std::vector<HloInstruction*> order = computation_->MakeInstructionPostOrder();
  EXPECT_THAT(order, ElementsAre(p0_, add_, p1_, mul_));
  add_->AddControlDependencyTo(p0_);  // a cycle: must still terminate
  p1_->AddControlDependencyTo(add_);
  order = computation_->MakeInstructionPostOrder();
  EXPECT_EQ(order.size(), 4u);
  EXPECT_EQ(order.back(), mul_);
}

TEST_F(InstructionGraphTest, RareFieldsOnlyWhenSet) {
  EXPECT_TRUE(add_->metadata().empty());
  EXPECT_EQ(add_->backend_config(), "");
  EXPECT_FALSE(add_->has_sharding());
  add_->set_backend_config("{\"x\":1}", true);
  add_->set_sharding(HloSharding::Maximal(0));
  EXPECT_TRUE(add_->backend_config_is_json());
  EXPECT_TRUE(add_->has_sharding());
  add_->clear_sharding();
  EXPECT_FALSE(add_->has_sharding());
  EXPECT_EQ(computation_->parameter_instruction(1), p1_);
  EXPECT_EQ(computation_->parameter_instruction(2), nullptr);
}

TEST(InstructionTest, SideEffects) {
  HloBuilder b("c");
  Shape s(PT::F32, {});
  HloInstruction* x = b.AddParameter(0, s);
  HloInstruction* cc = b.AddInstruction(HloOpcode::kCustomCall, s, {x});
  EXPECT_FALSE(cc->HasSideEffectNoRecurse());
  cc->mutable_attrs<CustomCallAttrs>()->has_side_effect = true;
  EXPECT_TRUE(cc->HasSideEffectNoRecurse());
  HloInstruction* ar = b.AddInstruction(HloOpcode::kAllReduce, s, {x});
  EXPECT_FALSE(ar->HasSideEffectNoRecurse());
  ar->mutable_attrs<CollectiveAttrs>()->constrain_layout = true;
  EXPECT_TRUE(ar->HasSideEffectNoRecurse());
  HloInstruction* cp = b.AddInstruction(HloOpcode::kCollectivePermute, s, {x});
  cp->mutable_attrs<CollectiveAttrs>()->channel_id = 1;
  EXPECT_TRUE(cp->HasSideEffectNoRecurse());
  EXPECT_TRUE(b.AddInstruction(HloOpcode::kInfeed, s, {x})->HasSideEffectNoRecurse());
  EXPECT_FALSE(b.AddInstruction(HloOpcode::kAdd, s, {x, x})->HasSideEffectNoRecurse());
}

TEST(InstructionTest, StaysSmall) {
  // 50k instructions must fit in 16 MB with their names and attributes.
  EXPECT_LE(sizeof(HloInstruction), 224u);
}

}  // namespace
}  // namespace xlite
