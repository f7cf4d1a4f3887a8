// HloInstruction: one HLO operation — opcode, shape, name, operands, users,
// called computations, control predecessors, and its attributes: the shared
// ones here, the opcode's own in one typed OpAttrs record (attributes.h).
#ifndef XLITE_IR_INSTRUCTION_H_
#define XLITE_IR_INSTRUCTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "xlite/base/check.h"
#include "xlite/ir/attributes.h"
#include "xlite/ir/metadata.h"
#include "xlite/ir/opcode.h"
#include "xlite/ir/shape.h"
#include "xlite/ir/sharding.h"

namespace xlite {

class HloComputation;
class HloInstruction;

// Which OpAttrs record an opcode carries.
enum class AttrsKind : uint8_t {
  kNone,
  kParameter,
  kConstant,
  kInt,
  kCompare,
  kSlice,
  kDynamicSlice,
  kPad,
  kWindow,
  kConvolution,
  kDot,
  kGather,
  kScatter,
  kFft,
  kTriangularSolve,
  kBatchNorm,
  kReducePrecision,
  kRng,
  kCollective,
  kSendRecv,
  kFeed,
  kFusion,
  kCustomCall,
  kAsync,
  kDomain,
  kScan,
  kAccuracy
};
AttrsKind AttrsKindOf(HloOpcode opcode);
// A default-valued record of `kind` (nullptr for kNone).
std::unique_ptr<OpAttrs> MakeDefaultAttrs(AttrsKind kind);

// Attributes rarely present, kept behind one pointer to keep instructions small.
struct RareInstructionFields {
  std::unique_ptr<HloSharding> sharding;
  OpMetadata metadata;
  FrontendAttributes frontend_attributes;
  std::string backend_config;  // raw text: JSON dict verbatim, or unescaped string
  bool backend_config_is_json = false;
  std::unique_ptr<Statistics> statistics;
  std::string origin;  // `origin=` kept verbatim (no semantics)
  std::vector<HloInstruction*> control_predecessors;
  std::vector<HloInstruction*> control_successors;
};

class HloInstruction {
 public:
  using InstructionVector = absl::InlinedVector<HloInstruction*, 2>;

  HloInstruction(HloOpcode opcode, Shape shape);
  ~HloInstruction();
  HloInstruction(const HloInstruction&) = delete;
  HloInstruction& operator=(const HloInstruction&) = delete;

  HloOpcode opcode() const { return opcode_; }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // Stable per-module id, in creation order (for deterministic output).
  int64_t unique_id() const { return unique_id_; }
  void set_unique_id(int64_t id) { unique_id_ = static_cast<int32_t>(id); }

  HloComputation* parent() const { return parent_; }
  void set_parent(HloComputation* c) { parent_ = c; }

  // Operands and users. AppendOperand / ReplaceOperandWith keep users in sync.
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  HloInstruction* operand(int64_t i) const { return operands_[i]; }
  absl::Span<HloInstruction* const> operands() const { return operands_; }
  void AppendOperand(HloInstruction* operand);
  void ReplaceOperandWith(int64_t i, HloInstruction* new_operand);
  absl::Span<HloInstruction* const> users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }
  // Makes every user of this instruction use `other` instead.
  void ReplaceAllUsesWith(HloInstruction* other);
  // Drops this instruction from its operands' user lists (before deletion).
  void DetachFromOperands();

  // Called computations, in the order the opcode defines: while {condition,
  // body}; conditional {true, false} or the branches; select-and-scatter
  // {select, scatter}; everything else {to_apply} / {calls} / the list.
  const std::vector<HloComputation*>& called_computations() const { return called_; }
  void AppendCalledComputation(HloComputation* c) { called_.push_back(c); }
  void set_called_computation(int64_t i, HloComputation* c) { called_[i] = c; }
  HloComputation* to_apply() const { return called_.empty() ? nullptr : called_[0]; }

  // The `dimensions={...}` list (broadcast, transpose, reduce, reverse,
  // concatenate, sort, map, all-gather, reduce-scatter, all-to-all,
  // get/set-dimension-size, scan).
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  std::vector<int64_t>* mutable_dimensions() { return &dimensions_; }
  bool has_dimensions_attr() const { return has_dimensions_; }
  void set_dimensions(std::vector<int64_t> dims) {
    dimensions_ = std::move(dims);
    has_dimensions_ = true;
  }

  // The opcode's own attribute record; `attrs<T>()` checks the kind.
  template <typename T>
  const T& attrs() const {
    XLITE_CHECK(attrs_ != nullptr);
    return static_cast<const T&>(*attrs_);
  }
  template <typename T>
  T* mutable_attrs() {
    XLITE_CHECK(attrs_ != nullptr);
    return static_cast<T*>(attrs_.get());
  }
  bool has_attrs() const { return attrs_ != nullptr; }
  void set_attrs(std::unique_ptr<OpAttrs> attrs) { attrs_ = std::move(attrs); }
  const OpAttrs* raw_attrs() const { return attrs_.get(); }

  // Shared attributes.
  bool has_sharding() const { return rare_ && rare_->sharding; }
  const HloSharding& sharding() const { return *rare_->sharding; }
  void set_sharding(HloSharding s);
  void clear_sharding();
  // The shape a sharding on this instruction covers: its shape, except that
  // an outfeed's tuple sharding covers (data, token).
  Shape ShardedShape() const;
  const OpMetadata& metadata() const;
  OpMetadata* mutable_metadata() { return &rare()->metadata; }
  const FrontendAttributes& frontend_attributes() const;
  FrontendAttributes* mutable_frontend_attributes() { return &rare()->frontend_attributes; }
  const std::string& backend_config() const;
  bool backend_config_is_json() const { return rare_ && rare_->backend_config_is_json; }
  void set_backend_config(std::string text, bool is_json);
  const Statistics* statistics() const { return rare_ ? rare_->statistics.get() : nullptr; }
  void set_statistics(Statistics s);
  const std::string& origin() const;
  void set_origin(std::string text) { rare()->origin = std::move(text); }

  // Copies the shared attributes of `original` (dimensions, sharding,
  // metadata, frontend attributes, backend config, statistics, origin); not
  // the opcode's record, operands, called computations or control deps.
  void CopySharedAttributesFrom(const HloInstruction& original);

  // Control dependencies (kept symmetric).
  absl::Span<HloInstruction* const> control_predecessors() const;
  absl::Span<HloInstruction* const> control_successors() const;
  void AddControlDependencyTo(HloInstruction* successor);
  void DropAllControlDeps();

  // Convenience accessors for common scalar attributes.
  int64_t parameter_number() const { return attrs<ParameterAttrs>().number; }
  int64_t tuple_index() const { return attrs<IntAttrs>().value; }  // gte
  const Literal& literal() const { return attrs<ConstantAttrs>().literal; }

  // Side effects per XLA's HasSideEffectNoRecurse (opcode table plus the
  // attribute-dependent cases: custom-call has_side_effect, collectives with
  // constrain_layout), not looking into called computations.
  bool HasSideEffectNoRecurse() const;

  bool IsRoot() const;

 private:
  RareInstructionFields* rare();

  HloOpcode opcode_;
  bool has_dimensions_ = false;
  // 32 bits (packed beside the opcode) are plenty for ids within a module.
  int32_t unique_id_ = -1;
  Shape shape_;
  std::string name_;
  HloComputation* parent_ = nullptr;
  InstructionVector operands_;
  InstructionVector users_;
  std::vector<HloComputation*> called_;
  std::vector<int64_t> dimensions_;
  std::unique_ptr<OpAttrs> attrs_;
  std::unique_ptr<RareInstructionFields> rare_;
};

}  // namespace xlite

#endif  // XLITE_IR_INSTRUCTION_H_
