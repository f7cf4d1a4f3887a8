#include "xlite/ir/instruction.h"

#include <algorithm>

#include "xlite/ir/computation.h"
#include "xlite/ir/module.h"

namespace xlite {

AttrsKind AttrsKindOf(HloOpcode opcode) {
  using O = HloOpcode;
  switch (opcode) {
    case O::kParameter:
      return AttrsKind::kParameter;
    case O::kConstant:
      return AttrsKind::kConstant;
    case O::kIota:
    case O::kGetTupleElement:
    case O::kReshape:
    case O::kTopK:
    case O::kRngGetAndUpdateState:
    case O::kCopyStart:
    case O::kCholesky:
    case O::kSort:
    case O::kCall:
      return AttrsKind::kInt;
    case O::kCompare:
      return AttrsKind::kCompare;
    case O::kSlice:
      return AttrsKind::kSlice;
    case O::kDynamicSlice:
      return AttrsKind::kDynamicSlice;
    case O::kPad:
      return AttrsKind::kPad;
    case O::kReduceWindow:
    case O::kSelectAndScatter:
      return AttrsKind::kWindow;
    case O::kConvolution:
      return AttrsKind::kConvolution;
    case O::kDot:
    case O::kRaggedDot:
    case O::kScaledDot:
      return AttrsKind::kDot;
    case O::kGather:
      return AttrsKind::kGather;
    case O::kScatter:
      return AttrsKind::kScatter;
    case O::kFft:
      return AttrsKind::kFft;
    case O::kTriangularSolve:
      return AttrsKind::kTriangularSolve;
    case O::kBatchNormGrad:
    case O::kBatchNormInference:
    case O::kBatchNormTraining:
      return AttrsKind::kBatchNorm;
    case O::kReducePrecision:
      return AttrsKind::kReducePrecision;
    case O::kRng:
    case O::kRngBitGenerator:
      return AttrsKind::kRng;
    case O::kAllGather:
    case O::kAllGatherStart:
    case O::kAllReduce:
    case O::kAllReduceStart:
    case O::kAllToAll:
    case O::kCollectiveBroadcast:
    case O::kCollectivePermute:
    case O::kCollectivePermuteStart:
    case O::kCollectiveReduce:
    case O::kRaggedAllToAll:
    case O::kReduceScatter:
      return AttrsKind::kCollective;
    case O::kSend:
    case O::kSendDone:
    case O::kRecv:
    case O::kRecvDone:
      return AttrsKind::kSendRecv;
    case O::kInfeed:
    case O::kOutfeed:
      return AttrsKind::kFeed;
    case O::kFusion:
      return AttrsKind::kFusion;
    case O::kCustomCall:
      return AttrsKind::kCustomCall;
    case O::kAsyncStart:
    case O::kAsyncUpdate:
    case O::kAsyncDone:
      return AttrsKind::kAsync;
    case O::kDomain:
      return AttrsKind::kDomain;
    case O::kScan:
      return AttrsKind::kScan;
    // The unary math ops whose parser accepts result_accuracy.
    case O::kAcos:
    case O::kAcosh:
    case O::kAsin:
    case O::kAsinh:
    case O::kAtanh:
    case O::kCbrt:
    case O::kCos:
    case O::kCosh:
    case O::kErf:
    case O::kExp:
    case O::kExpm1:
    case O::kLog:
    case O::kLog1p:
    case O::kLogistic:
    case O::kRsqrt:
    case O::kSin:
    case O::kSinh:
    case O::kSqrt:
    case O::kTan:
    case O::kTanh:
      return AttrsKind::kAccuracy;
    default:
      return AttrsKind::kNone;
  }
}

std::unique_ptr<OpAttrs> MakeDefaultAttrs(AttrsKind kind) {
  switch (kind) {
    case AttrsKind::kNone:
      return nullptr;
    case AttrsKind::kParameter:
      return std::make_unique<ParameterAttrs>();
    case AttrsKind::kConstant:
      return std::make_unique<ConstantAttrs>();
    case AttrsKind::kInt:
      return std::make_unique<IntAttrs>();
    case AttrsKind::kCompare:
      return std::make_unique<CompareAttrs>();
    case AttrsKind::kSlice:
      return std::make_unique<SliceAttrs>();
    case AttrsKind::kDynamicSlice:
      return std::make_unique<DynamicSliceAttrs>();
    case AttrsKind::kPad:
      return std::make_unique<PadAttrs>();
    case AttrsKind::kWindow:
      return std::make_unique<WindowAttrs>();
    case AttrsKind::kConvolution:
      return std::make_unique<ConvolutionAttrs>();
    case AttrsKind::kDot:
      return std::make_unique<DotAttrs>();
    case AttrsKind::kGather:
      return std::make_unique<GatherAttrs>();
    case AttrsKind::kScatter:
      return std::make_unique<ScatterAttrs>();
    case AttrsKind::kFft:
      return std::make_unique<FftAttrs>();
    case AttrsKind::kTriangularSolve:
      return std::make_unique<TriangularSolveAttrs>();
    case AttrsKind::kBatchNorm:
      return std::make_unique<BatchNormAttrs>();
    case AttrsKind::kReducePrecision:
      return std::make_unique<ReducePrecisionAttrs>();
    case AttrsKind::kRng:
      return std::make_unique<RngAttrs>();
    case AttrsKind::kCollective:
      return std::make_unique<CollectiveAttrs>();
    case AttrsKind::kSendRecv:
      return std::make_unique<SendRecvAttrs>();
    case AttrsKind::kFeed:
      return std::make_unique<FeedAttrs>();
    case AttrsKind::kFusion:
      return std::make_unique<FusionAttrs>();
    case AttrsKind::kCustomCall:
      return std::make_unique<CustomCallAttrs>();
    case AttrsKind::kAsync:
      return std::make_unique<AsyncAttrs>();
    case AttrsKind::kDomain:
      return std::make_unique<DomainAttrs>();
    case AttrsKind::kScan:
      return std::make_unique<ScanAttrs>();
    case AttrsKind::kAccuracy:
      return std::make_unique<AccuracyAttrs>();
  }
  return nullptr;
}

namespace {

template <typename Vec>
void EraseValue(Vec& v, HloInstruction* x) {
  v.erase(std::remove(v.begin(), v.end(), x), v.end());
}

template <typename Vec>
bool Contains(const Vec& v, const HloInstruction* x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
template <typename Vec>
void PushUnique(Vec& v, HloInstruction* x) {
  if (!Contains(v, x)) v.push_back(x);
}

const RareInstructionFields& EmptyRare() {
  static const RareInstructionFields* const kEmpty = new RareInstructionFields();
  return *kEmpty;
}

}  // namespace

HloInstruction::HloInstruction(HloOpcode opcode, Shape shape)
    : opcode_(opcode), shape_(std::move(shape)) {}

HloInstruction::~HloInstruction() = default;

RareInstructionFields* HloInstruction::rare() {
  if (!rare_) rare_ = std::make_unique<RareInstructionFields>();
  return rare_.get();
}

// `this` is among an operand's users exactly when the operand is among its
// operands, so the shorter of the two lists tells whether the user is already
// recorded (scanning either one alone was quadratic: users_ for values with
// thousands of users, operands_ for a tuple of thousands of values).
void HloInstruction::AppendOperand(HloInstruction* operand) {
  const bool recorded = operand->users_.size() < operands_.size() ? Contains(operand->users_, this)
                                                                  : Contains(operands_, operand);
  if (!recorded) operand->users_.push_back(this);
  operands_.push_back(operand);
}

void HloInstruction::ReplaceOperandWith(int64_t i, HloInstruction* new_operand) {
  HloInstruction* old = operands_[i];
  if (old == new_operand) return;
  if (!Contains(operands_, new_operand)) new_operand->users_.push_back(this);
  operands_[i] = new_operand;
  if (!Contains(operands_, old)) EraseValue(old->users_, this);
}

void HloInstruction::ReplaceAllUsesWith(HloInstruction* other) {
  if (other == this) return;
  InstructionVector users = std::move(users_);
  users_.clear();
  for (HloInstruction* user : users) {
    for (auto& op : user->operands_) {
      if (op == this) op = other;
    }
    PushUnique(other->users_, user);
  }
  if (parent_ != nullptr && parent_->root_instruction() == this) {
    parent_->set_root_instruction(other);
  }
}

void HloInstruction::DetachFromOperands() {
  for (HloInstruction* op : operands_) EraseValue(op->users_, this);
  operands_.clear();
}

void HloInstruction::set_sharding(HloSharding s) {
  rare()->sharding = std::make_unique<HloSharding>(std::move(s));
}

void HloInstruction::clear_sharding() {
  if (rare_) rare_->sharding.reset();
}

Shape HloInstruction::ShardedShape() const {
  if (opcode_ == HloOpcode::kOutfeed && has_sharding() && sharding().IsTuple() &&
      operand_count() > 0) {
    return OutfeedShardingShape(sharding(), operand(0)->shape());
  }
  return shape_;
}

const OpMetadata& HloInstruction::metadata() const {
  return rare_ ? rare_->metadata : EmptyRare().metadata;
}

const FrontendAttributes& HloInstruction::frontend_attributes() const {
  return rare_ ? rare_->frontend_attributes : EmptyRare().frontend_attributes;
}

const std::string& HloInstruction::backend_config() const {
  return rare_ ? rare_->backend_config : EmptyRare().backend_config;
}

void HloInstruction::set_backend_config(std::string text, bool is_json) {
  RareInstructionFields* r = rare();
  r->backend_config = std::move(text);
  r->backend_config_is_json = is_json;
}

void HloInstruction::set_statistics(Statistics s) {
  rare()->statistics = std::make_unique<Statistics>(std::move(s));
}

void HloInstruction::CopySharedAttributesFrom(const HloInstruction& original) {
  dimensions_ = original.dimensions_;
  has_dimensions_ = original.has_dimensions_;
  if (original.rare_ == nullptr) {
    rare_.reset();
    return;
  }
  // Only allocated when the original has rare fields of its own.
  const RareInstructionFields& from = *original.rare_;
  RareInstructionFields* to = rare();
  to->sharding = from.sharding ? std::make_unique<HloSharding>(*from.sharding) : nullptr;
  to->metadata = from.metadata;
  to->frontend_attributes = from.frontend_attributes;
  to->backend_config = from.backend_config;
  to->backend_config_is_json = from.backend_config_is_json;
  to->statistics = from.statistics ? std::make_unique<Statistics>(*from.statistics) : nullptr;
  to->origin = from.origin;
}

const std::string& HloInstruction::origin() const {
  return rare_ ? rare_->origin : EmptyRare().origin;
}

absl::Span<HloInstruction* const> HloInstruction::control_predecessors() const {
  if (!rare_) return {};
  return rare_->control_predecessors;
}

absl::Span<HloInstruction* const> HloInstruction::control_successors() const {
  if (!rare_) return {};
  return rare_->control_successors;
}

void HloInstruction::AddControlDependencyTo(HloInstruction* successor) {
  PushUnique(rare()->control_successors, successor);
  PushUnique(successor->rare()->control_predecessors, this);
}

void HloInstruction::DropAllControlDeps() {
  if (!rare_) return;
  for (HloInstruction* pred : rare_->control_predecessors) {
    EraseValue(pred->rare()->control_successors, this);
  }
  for (HloInstruction* succ : rare_->control_successors) {
    EraseValue(succ->rare()->control_predecessors, this);
  }
  rare_->control_predecessors.clear();
  rare_->control_successors.clear();
}

bool HloInstruction::HasSideEffectNoRecurse() const {
  if (IsSideEffectOpcode(opcode_)) return true;
  if (opcode_ == HloOpcode::kCustomCall) {
    return has_attrs() && attrs<CustomCallAttrs>().has_side_effect;
  }
  switch (opcode_) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllToAll:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectivePermute: {
      if (!has_attrs()) return false;
      const auto& c = attrs<CollectiveAttrs>();
      if (c.constrain_layout && opcode_ != HloOpcode::kCollectivePermute) return true;
      // XLA counts a channel id as a side effect unless the module is SPMD
      // partitioned; our config has no such flag, so more than one partition
      // stands for it.
      const HloModule* module = parent_ ? parent_->parent() : nullptr;
      bool spmd = module != nullptr && module->config().num_partitions > 1;
      return c.channel_id.has_value() && !spmd;
    }
    default:
      return false;
  }
}

bool HloInstruction::IsRoot() const {
  return parent_ != nullptr && parent_->root_instruction() == this;
}

}  // namespace xlite
