// Reads an instruction's `, key=value` attributes: the opcode's own by walking
// attribute_schema.h's rows (which keys it takes, which are required, where
// each value goes, the defaults), and the ones every instruction takes
// (sharding, metadata, frontend_attributes, backend_config, ...).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/text/attribute_schema.h"
#include "xlite/ir/named_sharding.h"
#include "xlite/text/parser_impl.h"

namespace xlite {

using attr_schema::Presence;
namespace syntax = attr_schema::syntax;

// The parser's walker of the schema. Every walk visits the same rows in the
// same order; what a row does depends on the phase of the walk.
class AttributeReader {
 public:
  AttributeReader(HloTextParser* parser, HloInstruction* inst, OpAttrs* record)
      : parser_(parser), inst_(inst), record_(record) {}

  // Gives every optional member its default and sizes the bookkeeping.
  void SetDefaults() {
    Walk(Phase::kDefaults);
    seen_.assign(next_row_, false);
    called_.resize(next_slot_);
  }
  // Reads the value of attribute `key` (the current token starts it) when a
  // row of the opcode has that key; `*claimed` says whether one had.
  absl::Status Read(std::string_view key, size_t key_offset, bool* claimed) {
    key_ = key;
    key_offset_ = key_offset;
    claimed_ = false;
    Walk(Phase::kRead);
    *claimed = claimed_;
    return status_;
  }
  // After the last attribute: a missing required one is an error at the
  // instruction; absent dimensions that default to {} are set.
  absl::Status Finish(size_t instruction_offset) {
    instruction_offset_ = instruction_offset;
    Walk(Phase::kFinish);
    return status_;
  }
  // The called computations read, in the opcode's order.
  std::vector<HloComputation*> Called() const {
    std::vector<HloComputation*> all;
    for (const std::vector<HloComputation*>& slot : called_) {
      all.insert(all.end(), slot.begin(), slot.end());
    }
    return all;
  }
  bool Saw(std::string_view key) const {
    return std::find(claimed_keys_.begin(), claimed_keys_.end(), key) != claimed_keys_.end();
  }

  // ------------------------------------------------ the walker interface
  template <typename T>
  T& record() {
    return *static_cast<T*>(record_);
  }

  template <typename Syntax, typename M, typename D = M>
  void Row(std::string_view key, Syntax syntax, M& member, Presence presence,
           const D& default_value = D{}) {
    const size_t row = next_row_++;
    switch (phase_) {
      case Phase::kDefaults:
        if constexpr (attr_schema::IsOptional<M>::value) {
          member.reset();
        } else if (presence != Presence::kRequired) {
          member = default_value;
        }
        return;
      case Phase::kRead:
        if (Claims(key, row)) status_ = ReadMember(syntax, &member, default_value);
        return;
      case Phase::kFinish:
        Require(key, row, presence);
        return;
    }
  }

  void Dimensions(Presence presence, bool empty_when_absent = false) {
    const size_t row = next_row_++;
    if (phase_ == Phase::kRead && Claims("dimensions", row)) {
      std::vector<int64_t> dims;
      status_ = parser_->ParseIntList(&dims);
      if (status_.ok()) inst_->set_dimensions(std::move(dims));
    } else if (phase_ == Phase::kFinish) {
      Require("dimensions", row, presence);
      if (!seen_[row] && empty_when_absent) inst_->set_dimensions({});
    }
  }

  void Computation(std::string_view key, Presence presence) {
    const size_t row = next_row_++;
    const size_t slot = next_slot_++;
    if (phase_ == Phase::kRead && Claims(key, row)) {
      called_[slot].assign(1, nullptr);
      status_ = parser_->ParseComputationRef(&called_[slot][0]);
    } else if (phase_ == Phase::kFinish) {
      Require(key, row, presence);
    }
  }

  void ComputationList(std::string_view key, Presence presence) {
    const size_t row = next_row_++;
    const size_t slot = next_slot_++;
    if (phase_ == Phase::kRead && Claims(key, row)) {
      status_ = parser_->ParseComputationList(&called_[slot]);
    } else if (phase_ == Phase::kFinish) {
      Require(key, row, presence);
    }
  }

  template <typename Syntax>
  void Ignored(std::string_view key, Syntax syntax) {
    const size_t row = next_row_++;
    if (phase_ == Phase::kRead && Claims(key, row)) {
      std::string ignored;
      status_ = ReadValue(syntax, &ignored);
    }
  }

 private:
  enum class Phase { kDefaults, kRead, kFinish };

  void Walk(Phase phase) {
    phase_ = phase;
    next_row_ = 0;
    next_slot_ = 0;
    status_ = absl::OkStatus();
    attr_schema::WalkAttributes(*this, *inst_);
  }

  // True when this row takes the attribute being read (a second one of the
  // same key is an error).
  bool Claims(std::string_view key, size_t row) {
    if (claimed_ || key != key_) return false;
    claimed_ = true;
    if (seen_[row]) {
      status_ = parser_->ErrorAt(key_offset_, Cat("duplicate attribute '", key, "'"));
      return false;
    }
    seen_[row] = true;
    claimed_keys_.push_back(key);
    return true;
  }

  void Require(std::string_view key, size_t row, Presence presence) {
    if (status_.ok() && presence == Presence::kRequired && !seen_[row]) {
      status_ =
          parser_->ErrorAt(instruction_offset_, Cat("missing required attribute '", key, "'"));
    }
  }

  template <typename Syntax, typename M, typename D>
  absl::Status ReadMember(Syntax syntax, M* member, const D& default_value) {
    if constexpr (attr_schema::IsOptional<M>::value) {
      typename M::value_type value{};
      XLITE_RETURN_IF_ERROR(ReadValue(syntax, &value));
      // A spelled-out default reads as left out (the form the printer writes).
      if (default_value == value) {
        member->reset();
      } else {
        *member = std::move(value);
      }
      return absl::OkStatus();
    } else {
      return ReadValue(syntax, member);
    }
  }

  // One overload per value syntax of attribute_schema.h.
  absl::Status ReadValue(syntax::Int, int64_t* v) { return parser_->ParseInt(v); }
  absl::Status ReadValue(syntax::IntList, std::vector<int64_t>* v) {
    return parser_->ParseIntList(v);
  }
  absl::Status ReadValue(syntax::IntListList, std::vector<std::vector<int64_t>>* v) {
    return parser_->ParseIntListList(v);
  }
  absl::Status ReadValue(syntax::Pairs, std::vector<std::pair<int64_t, int64_t>>* v) {
    return parser_->ParsePairs(v);
  }
  absl::Status ReadValue(syntax::Bool, bool* v) { return parser_->ParseBool(v); }
  absl::Status ReadValue(syntax::BoolList, std::vector<bool>* v) {
    return parser_->ParseBoolList(v);
  }
  template <typename E>
  absl::Status ReadValue(syntax::Enum, E* v) {
    return parser_->ParseEnum(v);
  }
  absl::Status ReadValue(syntax::Quoted, std::string* v) { return parser_->ParseString(v); }
  absl::Status ReadValue(syntax::Identifier, std::string* v) {
    std::string_view name;
    XLITE_RETURN_IF_ERROR(parser_->ParseIdentifier(&name));
    *v = std::string(name);
    return absl::OkStatus();
  }
  absl::Status ReadValue(syntax::F32, float* v) {
    double value;
    XLITE_RETURN_IF_ERROR(parser_->ParseDouble(&value));
    *v = static_cast<float>(value);
    return absl::OkStatus();
  }
  absl::Status ReadValue(syntax::ShapeText, Shape* v) { return parser_->ParseShape(v); }
  absl::Status ReadValue(syntax::ShapeList, std::vector<Shape>* v) {
    return parser_->ParseShapeList(v);
  }
  absl::Status ReadValue(syntax::LiteralText, Literal* v) { return parser_->ParseShapedLiteral(v); }
  absl::Status ReadValue(syntax::Padding, PaddingConfig* v) { return parser_->ParsePadding(v); }
  absl::Status ReadValue(syntax::Slices, SliceAttrs* v) { return parser_->ParseSliceRanges(v); }
  absl::Status ReadValue(syntax::Aliasing, std::vector<OutputOperandAlias>* v) {
    return parser_->ParseOutputOperandAliasing(v);
  }
  absl::Status ReadValue(syntax::Groups, ReplicaGroups* v) {
    return parser_->ParseReplicaGroups(v);
  }
  absl::Status ReadValue(syntax::Domain, DomainAttrs* v) { return parser_->ParseDomain(v); }
  absl::Status ReadValue(syntax::Accuracy, ResultAccuracy* v) {
    return parser_->ParseResultAccuracy(v);
  }
  absl::Status ReadValue(syntax::Sparsity, std::vector<SparsityDescriptor>* v) {
    return parser_->ParseSparsity(v);
  }
  absl::Status ReadValue(syntax::ConvLabels, ConvDimensions* v) {
    return parser_->ParseConvDims(v);
  }
  absl::Status ReadValue(syntax::WindowText, Window* v) { return parser_->ParseWindow(v); }
  absl::Status ReadValue(syntax::PrecisionList, std::vector<Precision>* v) {
    return parser_->ParsePrecisionList(v);
  }

  HloTextParser* parser_;
  HloInstruction* inst_;
  OpAttrs* record_;
  Phase phase_ = Phase::kDefaults;
  size_t next_row_ = 0;
  size_t next_slot_ = 0;
  absl::Status status_;
  // The attribute being read.
  std::string_view key_;
  size_t key_offset_ = 0;
  bool claimed_ = false;
  size_t instruction_offset_ = 0;
  absl::InlinedVector<bool, 16> seen_;  // by row
  absl::InlinedVector<std::string_view, 8> claimed_keys_;
  absl::InlinedVector<std::vector<HloComputation*>, 2> called_;  // by computation row
};

absl::Status HloTextParser::ParseOpcodeAttributes(HloInstruction* inst, HloInstruction* common,
                                                  size_t offset, const AttrSpec* extra) {
  const HloOpcode op = inst->opcode();
  const AttrsKind attrs_kind = AttrsKindOf(op);
  if (op == HloOpcode::kConditional) {
    if (inst->operand_count() == 0 || !inst->operand(0)->shape().IsScalar()) {
      return ErrorAt(offset, "the first operand of a conditional must be a scalar");
    }
    const PrimitiveType selector = inst->operand(0)->shape().element_type();
    if (selector != PrimitiveType::PRED && selector != PrimitiveType::S32) {
      return ErrorAt(offset, "the first operand of a conditional must be a pred[] or s32[] scalar");
    }
  }
  // A constant's record is made by the caller from the parenthesised literal.
  std::unique_ptr<OpAttrs> record =
      attrs_kind == AttrsKind::kConstant ? nullptr : MakeDefaultAttrs(attrs_kind);
  AttributeReader reader(this, inst, record.get());
  reader.SetDefaults();

  bool extra_seen = false;
  absl::InlinedVector<std::string_view, 4> seen_common;
  while (!in_nested_operand_ && kind() == TokKind::kComma) {
    Advance();
    if (kind() != TokKind::kAttrName) return Expected("an attribute name=");
    std::string_view name = tok().text;
    size_t name_offset = tok().offset;
    Advance();
    bool claimed = false;
    XLITE_RETURN_IF_ERROR(reader.Read(name, name_offset, &claimed));
    if (claimed) continue;
    if (extra != nullptr && extra->name == name) {
      if (extra_seen) return ErrorAt(name_offset, Cat("duplicate attribute '", name, "'"));
      extra_seen = true;
      XLITE_RETURN_IF_ERROR(extra->parse());
      continue;
    }
    if (std::find(seen_common.begin(), seen_common.end(), name) != seen_common.end()) {
      return ErrorAt(name_offset, Cat("duplicate attribute '", name, "'"));
    }
    bool handled = false;
    XLITE_RETURN_IF_ERROR(ParseCommonAttribute(name, common, &handled));
    if (!handled) return ErrorAt(name_offset, Cat("unknown attribute '", name, "'"));
    seen_common.push_back(name);
  }
  XLITE_RETURN_IF_ERROR(reader.Finish(offset));

  for (HloComputation* c : reader.Called()) inst->AppendCalledComputation(c);
  // Unary math ops keep a record only when result_accuracy= is written.
  if (attrs_kind == AttrsKind::kAccuracy && !reader.Saw("result_accuracy")) record = nullptr;
  if (attrs_kind == AttrsKind::kAsync) {
    written_async_thread_.reset();
    if (reader.Saw("async_execution_thread")) {
      written_async_thread_ = static_cast<AsyncAttrs*>(record.get())->execution_thread;
    }
  }
  if (record) inst->set_attrs(std::move(record));
  if (attrs_kind == AttrsKind::kFusion) {
    inst->called_computations()[0]->set_is_fusion_computation(true);
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseCommonAttribute(std::string_view name, HloInstruction* inst,
                                                 bool* handled) {
  *handled = true;
  if (name == "sharding") {
    HloSharding sharding;
    XLITE_RETURN_IF_ERROR(ParseSharding(&sharding));
    inst->set_sharding(FitNamedShardingToShape(sharding, inst->shape()));
  } else if (name == "metadata") {
    return ParseMetadata(inst->mutable_metadata());
  } else if (name == "frontend_attributes") {
    return ParseFrontendAttributes(inst->mutable_frontend_attributes());
  } else if (name == "backend_config") {
    if (kind() == TokKind::kString) {
      std::string text;
      XLITE_RETURN_IF_ERROR(ParseString(&text));
      inst->set_backend_config(std::move(text), false);
    } else if (kind() == TokKind::kLbrace) {
      std::string_view block;
      if (!lexer_.ScanBraceBlock(&block)) return Error("unbalanced '{' in backend_config");
      inst->set_backend_config(std::string(block), true);
    } else {
      return Expected("a string or a JSON dict");
    }
  } else if (name == "statistics") {
    Statistics statistics;
    XLITE_RETURN_IF_ERROR(ParseStatistics(&statistics));
    inst->set_statistics(std::move(statistics));
  } else if (name == "origin" || name == "original_value") {  // original_value: 2024 dumps
    std::string_view block;
    if (kind() != TokKind::kLbrace) return Expected("'{'");
    if (!lexer_.ScanBraceBlock(&block)) return Error("unbalanced '{' in origin");
    inst->set_origin(std::string(block));
  } else if (name == "control-predecessors") {
    return ParseControlPredecessors(inst);
  } else {
    *handled = false;
  }
  return absl::OkStatus();
}

}  // namespace xlite
