// The HLO text parser: module header, stack-frame index, computations and
// instructions (spec §1). Values are in parser_values.cc, literals in
// literal_parser.cc, shardings in sharding_parser.cc, attributes in
// attribute_parser.cc.
//
// Conventions chosen where XLA leaves room:
// * Async sugar. `%s = ((f32[2]), f32[4], s32[]) custom-call-start(%p), ...`
//   (any `<opcode>-start/-update/-done` whose full name is not an opcode)
//   becomes an async-start wrapping a new computation, as XLA's parser does:
//   the computation is named `async_wrapped` (`async_wrapped.1`, ... when the
//   name is taken), holds one parameter per operand named `async_param`,
//   `async_param.1`, ... with the operand's shape, and a root `async_op` of the
//   wrapped opcode whose shape is element {1} of the start's shape. The
//   wrapped op's own attributes go to `async_op`; the shared ones (sharding,
//   metadata, backend_config, ...) and async_execution_thread stay on the
//   start. `<opcode>-update/-done` become async-update/done that inherit the
//   start's computation and thread. The wrapped computation is added to the
//   module just before the computation that holds the start.
// * Nested anonymous computations (`to_apply={...}`) are named `_` (`_.1`,
//   ...). Names of made-up computations are chosen once the whole module is
//   read, so they never clash with a computation defined later.
// * Shardings are kept exactly as written: a single sharding on a
//   tuple-shaped instruction is not expanded per leaf (XLA expands it), so
//   printing gives back the text.
// * Shapes keep the layout as written (no default layout is filled in).
// * Of the computation signature `(p: shape, ...) -> shape` only the result
//   shape is checked (against the root's, as XLA does); the verifier
//   compares parameter shapes.
#include "xlite/text/parser.h"

#include <algorithm>
#include <cstring>

#include "absl/container/flat_hash_set.h"
#include "xlite/base/status.h"
#include "xlite/inference/shape_inference.h"
#include "xlite/ir/computation.h"
#include "xlite/text/parser_impl.h"

namespace xlite {
namespace {

// Restores the innermost scope when a (nested) computation body ends.
template <typename T>
class ValueRestorer {
 public:
  ValueRestorer(T* slot, T value) : slot_(slot), saved_(*slot) { *slot = value; }
  ~ValueRestorer() { *slot_ = saved_; }
  ValueRestorer(const ValueRestorer&) = delete;
  ValueRestorer& operator=(const ValueRestorer&) = delete;

 private:
  T* slot_;
  T saved_;
};

bool IsNameToken(TokKind k) { return k == TokKind::kName || k == TokKind::kIdent; }

// Lines from `body_offset` up to the next `}` that starts a line, which is
// where printed computations end; sets `*scanned_to` there. Only an estimate
// for sizing the name map (avoiding rehashes as a large entry grows).
size_t EstimateInstructionCount(std::string_view text, size_t body_offset, size_t* scanned_to) {
  size_t end = text.find("\n}", body_offset);
  if (end == std::string_view::npos) end = text.size();
  *scanned_to = end;
  size_t lines = 0;
  const char* p = text.data() + body_offset;
  const char* stop = text.data() + end;
  while ((p = static_cast<const char*>(std::memchr(p, '\n', stop - p))) != nullptr) {
    ++lines;
    ++p;
  }
  return lines;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> HloTextParser::ParseModule() {
  module_ = std::make_unique<HloModule>("");
  bool has_header = AtIdent("HloModule");
  if (has_header) {
    XLITE_RETURN_IF_ERROR(ParseHeader(module_.get()));
  } else if (!AtIdent("ENTRY") && !IsNameToken(kind())) {
    return Expected("'HloModule' or a computation");
  }
  while (kind() != TokKind::kEof) XLITE_RETURN_IF_ERROR(ParseComputation());
  if (last_computation_ == nullptr) return Error("the module has no computation");
  if (entry_ == nullptr) module_->set_entry_computation(last_computation_);
  if (!has_header) module_->set_name("module_" + module_->entry_computation()->name());
  NameSyntheticComputations();
  if (is_scheduled_) module_->set_schedule(HloSchedule::FromDefinitionOrder(*module_));
  return std::move(module_);
}

absl::StatusOr<Shape> HloTextParser::ParseShapeOnly() {
  Shape shape;
  XLITE_RETURN_IF_ERROR(ParseShape(&shape));
  if (kind() != TokKind::kEof) return Expected("end of input after the shape");
  return shape;
}

absl::StatusOr<HloSharding> HloTextParser::ParseShardingOnly() {
  HloSharding sharding;
  XLITE_RETURN_IF_ERROR(ParseSharding(&sharding));
  if (kind() != TokKind::kEof) return Expected("end of input after the sharding");
  return sharding;
}

absl::Status HloTextParser::ParseHeader(HloModule* module) {
  Advance();  // HloModule
  if (!IsNameToken(kind()) && kind() != TokKind::kString) return Expected("a module name");
  module->set_name(std::string(kind() == TokKind::kString ? lexer_.string_value() : tok().text));
  Advance();
  Consume(TokKind::kColon);  // some dumps write `HloModule name:`
  absl::InlinedVector<std::string_view, 8> seen;
  while (Consume(TokKind::kComma)) {
    if (kind() != TokKind::kAttrName) return Expected("a module attribute name=");
    std::string_view name = tok().text;
    size_t offset = tok().offset;
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      return ErrorAt(offset, Cat("duplicate attribute '", name, "'"));
    }
    seen.push_back(name);
    Advance();
    XLITE_RETURN_IF_ERROR(ParseHeaderAttribute(name, module));
  }
  if (AtIdent("FileNames") || AtIdent("FunctionNames") || AtIdent("FileLocations") ||
      AtIdent("StackFrames")) {
    XLITE_RETURN_IF_ERROR(ParseStackFrameIndex(&module->stack_frames()));
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseHeaderAttribute(std::string_view name, HloModule* module) {
  ModuleConfig& config = module->config();
  auto bool_or_list = [&](std::vector<bool>* out) -> absl::Status {
    if (kind() == TokKind::kLbrace) return ParseBoolList(out);
    bool b;
    XLITE_RETURN_IF_ERROR(ParseBool(&b));
    *out = {b};
    return absl::OkStatus();
  };
  auto positive = [&](int64_t* out) -> absl::Status {
    if (kind() == TokKind::kInt && tok().int_value <= 0) {
      return Error(Cat(name, " must be positive"));
    }
    return ParseInt(out);
  };
  if (name == "is_scheduled") {
    XLITE_RETURN_IF_ERROR(ParseBool(&is_scheduled_));
  } else if (name == "input_output_alias") {
    return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
      InputOutputAlias alias;
      XLITE_RETURN_IF_ERROR(ParseIntList(&alias.output_index));
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kColon, "':'"));
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
      XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&alias.parameter));
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kComma, "','"));
      XLITE_RETURN_IF_ERROR(ParseIntList(&alias.parameter_index));
      if (Consume(TokKind::kComma)) {
        static constexpr std::string_view kKinds[] = {"may-alias", "must-alias"};
        int index;
        XLITE_RETURN_IF_ERROR(ParseEnum(EnumSpelling{kKinds, "", false}, &index));
        alias.must_alias = index == 1;
      }
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
      config.input_output_alias.push_back(std::move(alias));
      return absl::OkStatus();
    });
  } else if (name == "buffer_donor") {
    return ParseDelimited(TokKind::kLbrace, TokKind::kRbrace, "{", [&]() -> absl::Status {
      BufferDonor donor;
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
      XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&donor.parameter));
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kComma, "','"));
      XLITE_RETURN_IF_ERROR(ParseIntList(&donor.parameter_index));
      XLITE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
      config.buffer_donors.push_back(std::move(donor));
      return absl::OkStatus();
    });
  } else if (name == "alias_passthrough_params") {
    return ParseBool(&config.alias_passthrough_params);
  } else if (name == "entry_computation_layout") {
    return ParseEntryLayout(&config);
  } else if (name == "allow_spmd_sharding_propagation_to_parameters") {
    return bool_or_list(&config.allow_spmd_sharding_propagation_to_parameters);
  } else if (name == "allow_spmd_sharding_propagation_to_output") {
    return bool_or_list(&config.allow_spmd_sharding_propagation_to_output);
  } else if (name == "replica_count") {
    return positive(&config.replica_count);
  } else if (name == "num_partitions") {
    return positive(&config.num_partitions);
  } else if (name == "frontend_attributes") {
    return ParseFrontendAttributes(&config.frontend_attributes);
  } else if (name == "origin_recovery_table") {
    std::string_view block;
    if (kind() != TokKind::kLbrace) return Expected("'{'");
    if (!lexer_.ScanBraceBlock(&block)) return Error("unbalanced '{' in origin_recovery_table");
    config.origin_recovery_table = std::string(block);
  } else {
    return Error(Cat("unknown module attribute '", name, "'"));
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseStackFrameIndex(StackFrameIndex* index) {
  auto next_id = [&](size_t count) -> absl::Status {
    int64_t id = 0;
    XLITE_RETURN_IF_ERROR(ParseInt(&id));
    if (id != static_cast<int64_t>(count) + 1) {
      return Error(Cat("stack-frame index ids must count up from 1 (expected ", count + 1, ", got ",
                       id, ")"));
    }
    return absl::OkStatus();
  };
  // `{key=int ...}` with every key of `fields` present at most once.
  auto int_fields =
      [&](std::initializer_list<std::pair<std::string_view, int64_t*>> fields) -> absl::Status {
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{'"));
    while (!Consume(TokKind::kRbrace)) {
      if (Consume(TokKind::kComma)) continue;
      if (kind() != TokKind::kAttrName) return Expected("a field name=");
      std::string_view key = tok().text;
      int64_t* slot = nullptr;
      for (const auto& [name, ptr] : fields) {
        if (name == key) slot = ptr;
      }
      if (slot == nullptr) return Error(Cat("unknown field '", key, "'"));
      Advance();
      XLITE_RETURN_IF_ERROR(ParseInt(slot));
    }
    return absl::OkStatus();
  };
  while (true) {
    if (AtIdent("FileNames") || AtIdent("FunctionNames")) {
      auto* names = AtIdent("FileNames") ? &index->file_names : &index->function_names;
      Advance();
      while (kind() == TokKind::kInt) {
        XLITE_RETURN_IF_ERROR(next_id(names->size()));
        names->emplace_back();
        XLITE_RETURN_IF_ERROR(ParseString(&names->back()));
      }
    } else if (AtIdent("FileLocations")) {
      Advance();
      while (kind() == TokKind::kInt) {
        XLITE_RETURN_IF_ERROR(next_id(index->file_locations.size()));
        StackFrameIndex::FileLocation l;
        XLITE_RETURN_IF_ERROR(int_fields({{"file_name_id", &l.file_name_id},
                                          {"function_name_id", &l.function_name_id},
                                          {"line", &l.line},
                                          {"end_line", &l.end_line},
                                          {"column", &l.column},
                                          {"end_column", &l.end_column}}));
        index->file_locations.push_back(l);
      }
    } else if (AtIdent("StackFrames")) {
      Advance();
      while (kind() == TokKind::kInt) {
        XLITE_RETURN_IF_ERROR(next_id(index->frames.size()));
        StackFrameIndex::Frame f;
        XLITE_RETURN_IF_ERROR(int_fields(
            {{"file_location_id", &f.file_location_id}, {"parent_frame_id", &f.parent_frame_id}}));
        index->frames.push_back(f);
      }
    } else {
      return absl::OkStatus();
    }
  }
}

absl::Status HloTextParser::ParseComputation() {
  bool is_entry = false;
  if (AtIdent("ENTRY")) {
    is_entry = true;
    Advance();
  }
  if (!IsNameToken(kind())) return Expected("a computation name");
  std::string_view name = tok().text;
  size_t name_offset = tok().offset;
  if (computations_.contains(name)) {
    return ErrorAt(name_offset, Cat("duplicate computation name '", name, "'"));
  }
  if (is_entry && entry_ != nullptr) {
    return ErrorAt(name_offset, "more than one ENTRY computation");
  }
  Advance();
  std::optional<Shape> written_result;
  size_t result_offset = 0;
  if (kind() == TokKind::kLparen) {
    XLITE_RETURN_IF_ERROR(
        ParseDelimited(TokKind::kLparen, TokKind::kRparen, "(", [&]() -> absl::Status {
          if (!IsNameToken(kind())) return Expected("a parameter name");
          Advance();
          XLITE_RETURN_IF_ERROR(Expect(TokKind::kColon, "':'"));
          Shape ignored;
          return ParseShape(&ignored);
        }));
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kArrow, "'->'"));
    result_offset = tok().offset;
    written_result.emplace();
    XLITE_RETURN_IF_ERROR(ParseShape(&*written_result));
  }
  auto computation = std::make_unique<HloComputation>(std::string(name));
  XLITE_RETURN_IF_ERROR(ParseComputationBody(computation.get()));
  const HloInstruction* root = computation->root_instruction();
  if (written_result && !written_result->CompatibleIgnoringDynamic(root->shape())) {
    return ErrorAt(result_offset,
                   Cat("shape of computation '", name, "', ", written_result->ToString(),
                       ", is not compatible with that of its root instruction '", root->name(),
                       "', ", root->shape().ToString()));
  }
  if (Consume(TokKind::kComma)) {
    if (kind() != TokKind::kAttrName || tok().text != "execution_thread") {
      return Expected("execution_thread=");
    }
    Advance();
    std::string thread;
    XLITE_RETURN_IF_ERROR(ParseString(&thread));
    computation->set_execution_thread(std::move(thread));
  }
  HloComputation* c = module_->AddComputation(std::move(computation), is_entry);
  computations_[name] = c;
  last_computation_ = c;
  if (is_entry) entry_ = c;
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseComputationBody(HloComputation* computation) {
  XLITE_RETURN_IF_ERROR(Enter());
  NestingScope nesting(&depth_);
  size_t offset = tok().offset;
  XLITE_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' starting a computation"));
  Scope scope;
  scope.computation = computation;
  // A body inside text already scanned (unusual formatting) is not sized, so
  // that no byte is scanned twice.
  if (offset >= sized_up_to_) {
    size_t estimate = EstimateInstructionCount(lexer_.text(), offset, &sized_up_to_);
    scope.names.reserve(estimate);
    computation->ReserveInstructions(static_cast<int64_t>(estimate));
  }
  ValueRestorer<Scope*> restore(&scope_, &scope);
  while (kind() != TokKind::kRbrace) {
    if (kind() == TokKind::kEof || kind() == TokKind::kError) {
      return Expected("an instruction or '}'");
    }
    XLITE_RETURN_IF_ERROR(ParseInstruction(&scope));
  }
  Advance();
  if (scope.last == nullptr) return ErrorAt(offset, "computation has no instructions");
  NameAnonymousInstructions(&scope);
  computation->set_root_instruction(scope.root != nullptr ? scope.root : scope.last);
  return absl::OkStatus();
}

HloInstruction* HloTextParser::AddToScope(Scope* scope, std::unique_ptr<HloInstruction> inst) {
  HloInstruction* raw = scope->computation->AddInstruction(std::move(inst));
  scope->last = raw;
  return raw;
}

absl::Status HloTextParser::ParseInstruction(Scope* scope) {
  const size_t start_offset = tok().offset;
  bool is_root = false;
  if (AtIdent("ROOT")) {
    TokKind next = lexer_.Peek().kind;
    if (IsNameToken(next) || next == TokKind::kAttrName) {
      is_root = true;
      Advance();
    }
  }
  std::string_view name;
  size_t name_offset = tok().offset;
  if (kind() == TokKind::kAttrName) {
    name = tok().text;
    Advance();
  } else if (IsNameToken(kind())) {
    name = tok().text;
    Advance();
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kEqual, "'='"));
  } else {
    return Expected("an instruction");
  }
  std::optional<Shape> shape;
  std::optional<PrimitiveType> type =
      kind() == TokKind::kIdent ? PrimitiveTypeFromName(tok().text) : std::nullopt;
  if (type.has_value()) {
    // The common plain array shape skips the general shape grammar.
    shape.emplace();
    if (!ParseSimpleShape(*type, &*shape)) XLITE_RETURN_IF_ERROR(ParseShape(&*shape));
  } else if (AtShapeStart()) {
    shape.emplace();
    XLITE_RETURN_IF_ERROR(ParseShape(&*shape));
  }
  HloInstruction* raw = nullptr;
  XLITE_RETURN_IF_ERROR(ParseInstructionRhs(scope, std::move(shape), &raw));
  // Checked once the line is read, so that each name is hashed only once.
  if (!scope->names.try_emplace(name, raw).second) {
    return ErrorAt(name_offset, Cat("duplicate instruction name '", name, "'"));
  }
  raw->set_name(std::string(name));
  if (options_.positions != nullptr) {
    SourcePosition position = lines_.At(start_offset);
    position.line += options_.line_offset;
    options_.positions->Record(raw, position);
    // What async sugar made up is checked as written on this line.
    if (HloComputation* wrapper = SugarWrapper(*raw)) {
      for (const auto& made : wrapper->instructions()) {
        options_.positions->Record(made.get(), position);
      }
    }
  }
  if (is_root) {
    if (scope->root != nullptr) return ErrorAt(name_offset, "more than one ROOT instruction");
    scope->root = raw;
  }
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseInstructionRhs(Scope* scope, std::optional<Shape> written,
                                                HloInstruction** added) {
  const bool has_shape = written.has_value();
  Shape shape = has_shape ? std::move(*written) : Shape();
  if (kind() != TokKind::kIdent) return Expected("an opcode");
  std::string_view opcode_text = tok().text;
  const size_t opcode_offset = tok().offset;
  std::optional<HloOpcode> opcode = OpcodeFromName(opcode_text);
  std::optional<HloOpcode> wrapped_opcode;
  if (!opcode) {
    static constexpr std::pair<std::string_view, HloOpcode> kSuffixes[] = {
        {"-start", HloOpcode::kAsyncStart},
        {"-update", HloOpcode::kAsyncUpdate},
        {"-done", HloOpcode::kAsyncDone}};
    for (const auto& [suffix, async_opcode] : kSuffixes) {
      if (opcode_text.size() > suffix.size() && opcode_text.ends_with(suffix)) {
        wrapped_opcode = OpcodeFromName(opcode_text.substr(0, opcode_text.size() - suffix.size()));
        if (wrapped_opcode) {
          opcode = async_opcode;
          break;
        }
      }
    }
    if (!opcode) return ErrorAt(opcode_offset, Cat("unknown opcode '", opcode_text, "'"));
  }
  Advance();
  if (!has_shape && (!CanOmitResultShape(*opcode) || wrapped_opcode.has_value())) {
    return ErrorAt(opcode_offset, Cat(opcode_text, " needs a result shape"));
  }
  auto inst = std::make_unique<HloInstruction>(*opcode, std::move(shape));
  inst->set_unique_id(module_->NextUniqueId());

  int64_t parameter_number = -1;
  std::optional<Literal> literal;
  bool elided = false;
  if (*opcode == HloOpcode::kParameter) {
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
    size_t number_offset = tok().offset;
    XLITE_RETURN_IF_ERROR(ParseNonNegativeInt(&parameter_number));
    // A computation with N parameters has at least N lines of text.
    if (parameter_number >= static_cast<int64_t>(lexer_.text().size())) {
      return ErrorAt(number_offset, "parameter number is too large");
    }
    if (scope->computation->parameter_instruction(parameter_number) != nullptr) {
      return ErrorAt(number_offset, Cat("duplicate parameter number ", parameter_number));
    }
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')'"));
  } else if (*opcode == HloOpcode::kConstant) {
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'('"));
    literal.emplace();
    XLITE_RETURN_IF_ERROR(ParseLiteral(inst->shape(), &*literal, &elided));
    XLITE_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' after the literal"));
  } else {
    XLITE_RETURN_IF_ERROR(ParseOperands(scope, inst.get()));
    const int64_t count = inst->operand_count();
    int arity = OpcodeArity(*opcode);
    // A sparse dot's metadata operands follow lhs and rhs; their number
    // (sparsity=) is checked once the attributes are read.
    const bool sparse_dot = *opcode == HloOpcode::kDot && count > 2;
    if (arity != kVariadic && count != arity && !sparse_dot) {
      return ErrorAt(opcode_offset, Cat(opcode_text, " expects ", arity, " operand",
                                        arity == 1 ? "" : "s", ", got ", count));
    }
    if ((*opcode == HloOpcode::kAsyncUpdate || *opcode == HloOpcode::kAsyncDone) && count != 1) {
      return ErrorAt(opcode_offset, Cat(opcode_text, " expects 1 operand, got ", count));
    }
  }

  // The dot itself, or the one a dot-start wraps.
  HloInstruction* dot = *opcode == HloOpcode::kDot ? inst.get() : nullptr;
  if (wrapped_opcode && *opcode == HloOpcode::kAsyncStart) {
    HloInstruction* wrapped = nullptr;
    XLITE_RETURN_IF_ERROR(BuildAsyncSugar(inst.get(), *wrapped_opcode, opcode_offset, &wrapped));
    if (wrapped->opcode() == HloOpcode::kDot) dot = wrapped;
  } else {
    XLITE_RETURN_IF_ERROR(ParseOpcodeAttributes(inst.get(), inst.get(), opcode_offset));
  }
  if (dot != nullptr && dot->operand_count() != DotOperandCount(dot->attrs<DotAttrs>())) {
    return ErrorAt(opcode_offset, Cat("dot expects ", DotOperandCount(dot->attrs<DotAttrs>()),
                                      " operands (lhs, rhs and one metadata operand per "
                                      "sparsity descriptor), got ",
                                      dot->operand_count()));
  }
  if (*opcode == HloOpcode::kAsyncUpdate || *opcode == HloOpcode::kAsyncDone) {
    HloInstruction* previous = inst->operand(0);
    if (previous->opcode() != HloOpcode::kAsyncStart &&
        previous->opcode() != HloOpcode::kAsyncUpdate) {
      return ErrorAt(opcode_offset,
                     Cat(opcode_text, " expects the previous async op as its operand"));
    }
    HloComputation* callee =
        previous->called_computations().empty() ? nullptr : previous->called_computations()[0];
    if (wrapped_opcode && (callee == nullptr || callee->root_instruction() == nullptr ||
                           callee->root_instruction()->opcode() != *wrapped_opcode)) {
      return ErrorAt(opcode_offset, Cat(opcode_text, " does not match the async op it waits on"));
    }
    if (inst->called_computations().empty()) {
      if (callee != nullptr) inst->AppendCalledComputation(callee);
    } else if (inst->called_computations()[0] != callee) {
      return ErrorAt(opcode_offset, "calls= differs from the async-start's computation");
    }
    const std::string& thread = previous->attrs<AsyncAttrs>().execution_thread;
    if (written_async_thread_ && *written_async_thread_ != thread) {
      return ErrorAt(opcode_offset, Cat("async_execution_thread=\"", *written_async_thread_,
                                        "\" differs from the async-start's \"", thread, "\""));
    }
    inst->mutable_attrs<AsyncAttrs>()->execution_thread = thread;
  }
  if (*opcode == HloOpcode::kParameter) {
    inst->mutable_attrs<ParameterAttrs>()->number = parameter_number;
  } else if (*opcode == HloOpcode::kConstant) {
    auto attrs = std::make_unique<ConstantAttrs>();
    attrs->literal = std::move(*literal);
    attrs->elided = elided;
    inst->set_attrs(std::move(attrs));
  }
  if (!has_shape) XLITE_RETURN_IF_ERROR(InferShape(inst.get(), opcode_offset));
  *added = AddToScope(scope, std::move(inst));
  return absl::OkStatus();
}

absl::Status HloTextParser::ParseNestedOperand(Scope* scope, std::optional<Shape> shape,
                                               HloInstruction** added) {
  XLITE_RETURN_IF_ERROR(Enter());
  NestingScope nesting(&depth_);
  ValueRestorer<bool> no_attributes(&in_nested_operand_, true);
  XLITE_RETURN_IF_ERROR(ParseInstructionRhs(scope, std::move(shape), added));
  scope->anonymous.push_back(*added);
  return absl::OkStatus();
}

// XLA names an inline operand `<opcode>.anon`, made unique with `.N`; the
// names are chosen after the body so that none clashes with a later line.
void HloTextParser::NameAnonymousInstructions(Scope* scope) {
  absl::flat_hash_set<std::string> used;
  for (HloInstruction* inst : scope->anonymous) {
    std::string base = Cat(OpcodeName(inst->opcode()), ".anon");
    std::string name = base;
    for (int64_t n = 1; scope->names.contains(name) || used.contains(name); ++n) {
      name = Cat(base, ".", n);
    }
    used.insert(name);
    inst->set_name(std::move(name));
  }
}

// Most operand lists are `(%a, %b, ...)` with every name already defined:
// read straight from the bytes. Anything else (shapes, comments, nested
// instructions, unknown names, odd spacing) goes to the general path.
bool HloTextParser::ParseSimpleOperands(Scope* scope, HloInstruction* inst) {
  const std::string_view text = lexer_.text();
  const char* p = text.data() + tok().offset + 1;  // after `(`
  const char* end = text.data() + text.size();
  absl::InlinedVector<HloInstruction*, 8> found;
  if (p < end && *p == ')') {
    ++p;
  } else {
    while (true) {
      if (p >= end || *p != '%') return false;
      const char* start = ++p;
      while (p < end && IsNameChar(*p)) ++p;
      if (p == start || p >= end) return false;
      auto it = scope->names.find(std::string_view(start, static_cast<size_t>(p - start)));
      if (it == scope->names.end()) return false;
      found.push_back(it->second);
      if (*p == ')') {
        ++p;
        break;
      }
      if (*p != ',') return false;
      ++p;
      while (p < end && *p == ' ') ++p;
    }
  }
  for (HloInstruction* operand : found) inst->AppendOperand(operand);
  lexer_.ResetTo(static_cast<size_t>(p - text.data()));
  return true;
}

absl::Status HloTextParser::ParseOperands(Scope* scope, HloInstruction* inst) {
  if (kind() == TokKind::kLparen && ParseSimpleOperands(scope, inst)) return absl::OkStatus();
  return ParseDelimited(TokKind::kLparen, TokKind::kRparen, "(", [&]() -> absl::Status {
    std::optional<Shape> written;
    size_t offset = tok().offset;
    if (AtShapeStart()) {
      written.emplace();
      XLITE_RETURN_IF_ERROR(ParseShape(&*written));
    }
    if (!IsNameToken(kind())) return Expected("an operand name");
    // As in XLA, a bare word followed by `(` is always a nested instruction,
    // even when an instruction of that name exists (`add(add, add)`).
    if (kind() == TokKind::kIdent && lexer_.Peek().kind == TokKind::kLparen) {
      HloInstruction* nested = nullptr;
      XLITE_RETURN_IF_ERROR(ParseNestedOperand(scope, std::move(written), &nested));
      inst->AppendOperand(nested);
      return absl::OkStatus();
    }
    auto it = scope->names.find(tok().text);
    if (it == scope->names.end()) return Error(Cat("undefined operand '", tok().text, "'"));
    // XLA checks a written operand shape with ShapeUtil::Compatible, which
    // ignores dynamic marks: `s32[<=3] p` may name a static s32[3] operand.
    if (written && !written->CompatibleIgnoringDynamic(it->second->shape())) {
      return ErrorAt(offset, Cat("operand shape ", written->ToString(), " differs from ",
                                 it->second->shape().ToString(), " of '", tok().text, "'"));
    }
    inst->AppendOperand(it->second);
    Advance();
    return absl::OkStatus();
  });
}

absl::Status HloTextParser::BuildAsyncSugar(HloInstruction* start, HloOpcode wrapped_opcode,
                                            size_t offset, HloInstruction** wrapped) {
  const Shape& shape = start->shape();
  if (!shape.IsTuple() || shape.tuple_size() < 2) {
    return ErrorAt(offset, "an async start's shape must be ((operands...), result, ...)");
  }
  if (wrapped_opcode == HloOpcode::kParameter || wrapped_opcode == HloOpcode::kConstant) {
    return NotSupportedAt(offset, Cat("async ", OpcodeName(wrapped_opcode)));
  }
  auto computation = std::make_unique<HloComputation>(std::string(kAsyncWrapperName));
  auto op = std::make_unique<HloInstruction>(wrapped_opcode, shape.tuple_shapes(1));
  op->set_name("async_op");
  op->set_unique_id(module_->NextUniqueId());
  for (int64_t i = 0; i < start->operand_count(); ++i) {
    auto param =
        std::make_unique<HloInstruction>(HloOpcode::kParameter, start->operand(i)->shape());
    param->set_name(i == 0 ? std::string("async_param") : Cat("async_param.", i));
    param->set_unique_id(module_->NextUniqueId());
    auto attrs = std::make_unique<ParameterAttrs>();
    attrs->number = i;
    param->set_attrs(std::move(attrs));
    op->AppendOperand(computation->AddInstruction(std::move(param)));
  }
  auto start_attrs = std::make_unique<AsyncAttrs>();
  AsyncAttrs* async = start_attrs.get();
  start->set_attrs(std::move(start_attrs));
  auto thread = [&] { return ParseString(&async->execution_thread); };
  AttrSpec thread_spec{"async_execution_thread", false, thread};
  XLITE_RETURN_IF_ERROR(ParseOpcodeAttributes(op.get(), start, offset, &thread_spec));
  *wrapped = computation->AddInstruction(std::move(op));
  computation->set_root_instruction(*wrapped);
  // As XLA's async-start does, down through what the wrapped op calls.
  computation->set_execution_thread(async->execution_thread);
  std::vector<HloComputation*> callees((*wrapped)->called_computations().begin(),
                                       (*wrapped)->called_computations().end());
  while (!callees.empty()) {
    HloComputation* callee = callees.back();
    callees.pop_back();
    if (callee->execution_thread() == async->execution_thread) continue;
    callee->set_execution_thread(async->execution_thread);
    for (const auto& inst : callee->instructions()) {
      if (inst->opcode() == HloOpcode::kAsyncStart) continue;  // a nested async keeps its thread
      callees.insert(callees.end(), inst->called_computations().begin(),
                     inst->called_computations().end());
    }
  }
  start->AppendCalledComputation(
      AddSyntheticComputation(std::move(computation), std::string(kAsyncWrapperName)));
  return absl::OkStatus();
}

// Only opcodes with CanOmitResultShape get here. xlite/inference's rules
// decide every shape, so an instruction left without one reads the same in
// every caller, and mismatched operands are rejected as XLA's parser does.
absl::Status HloTextParser::InferShape(HloInstruction* inst, size_t offset) {
  absl::StatusOr<Shape> inferred = InferOmittedShape(*inst);
  if (inferred.ok()) {
    *inst->mutable_shape() = *std::move(inferred);
    return absl::OkStatus();
  }
  std::string_view message(inferred.status().message().data(), inferred.status().message().size());
  constexpr std::string_view kNotSupported = "not supported yet: ";
  if (absl::IsUnimplemented(inferred.status()) && message.starts_with(kNotSupported)) {
    return NotSupportedAt(offset, message.substr(kNotSupported.size()));
  }
  return ErrorAt(
      offset, Cat("cannot infer the result shape of ", OpcodeName(inst->opcode()), ": ", message));
}

HloComputation* HloTextParser::SugarWrapper(const HloInstruction& inst) const {
  if (inst.opcode() != HloOpcode::kAsyncStart || synthetic_.empty()) return nullptr;
  const auto& [computation, base] = synthetic_.back();
  const bool made_here = base == kAsyncWrapperName && !inst.called_computations().empty() &&
                         inst.called_computations().front() == computation;
  return made_here ? computation : nullptr;
}

HloComputation* HloTextParser::AddSyntheticComputation(std::unique_ptr<HloComputation> c,
                                                       std::string base_name) {
  HloComputation* raw = module_->AddComputation(std::move(c), false);
  synthetic_.emplace_back(raw, std::move(base_name));
  return raw;
}

void HloTextParser::NameSyntheticComputations() {
  if (synthetic_.empty()) return;
  absl::flat_hash_set<std::string> used;
  for (const auto& [name, computation] : computations_) used.insert(std::string(name));
  for (auto& [computation, base] : synthetic_) {
    std::string name = base;
    for (int64_t n = 1; used.contains(name); ++n) name = Cat(base, ".", n);
    used.insert(name);
    computation->set_name(std::move(name));
  }
}

namespace {

// StableHLO or MHLO (MLIR) text, which users often pass by mistake: its
// markers in the first few lines.
bool LooksLikeMlir(std::string_view text) {
  std::string_view head = text.substr(0, 4096);
  for (std::string_view marker : {"module @", "func.func", "stablehlo.", "mhlo.", "#loc"}) {
    if (head.find(marker) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(std::string_view text,
                                                          const ParseOptions& options) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = HloTextParser(text, options).ParseModule();
  if (!module.ok() && LooksLikeMlir(text)) {
    return absl::Status(
        module.status().code(),
        Cat(module.status().message(),
            "\nnote: this looks like StableHLO/MLIR text; xlite reads HLO text: take "
            "`jax.jit(f).lower(*args).as_text(dialect=\"hlo\")`, or the "
            "*.before_optimizations.txt files of XLA_FLAGS=--xla_dump_to=DIR"));
  }
  return module;
}

absl::StatusOr<HloSharding> ParseSharding(std::string_view text) {
  ParseOptions options;
  options.filename = "<sharding>";
  return HloTextParser(text, options).ParseShardingOnly();
}

absl::StatusOr<Shape> ParseShape(std::string_view text) {
  ParseOptions options;
  options.filename = "<shape>";
  return HloTextParser(text, options).ParseShapeOnly();
}

std::vector<InputChunk> SplitInputFile(std::string_view text) {
  std::vector<InputChunk> chunks;
  size_t chunk_start = 0;
  int64_t chunk_line = 0;
  int64_t line = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = pos;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    size_t next = end;
    if (next < text.size())
      next += (text[next] == '\r' && next + 1 < text.size() && text[next + 1] == '\n') ? 2 : 1;
    std::string_view content = text.substr(pos, end - pos);
    size_t first = content.find_first_not_of(" \t");
    size_t last = content.find_last_not_of(" \t");
    if (first != std::string_view::npos && content.substr(first, last - first + 1) == "// -----") {
      chunks.push_back({text.substr(chunk_start, pos - chunk_start), chunk_line});
      chunk_start = next;
      chunk_line = line + 1;
    }
    ++line;
    if (end >= text.size()) break;
    pos = next;
  }
  chunks.push_back({text.substr(chunk_start), chunk_line});
  return chunks;
}

}  // namespace xlite
