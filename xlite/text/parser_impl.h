// Internal to the parser: the HloTextParser class shared by parser.cc (module,
// computations, instructions), parser_values.cc (numbers, lists, shapes),
// literal_parser.cc, sharding_parser.cc, attribute_reader.cc and
// attribute_parser.cc.
#ifndef XLITE_TEXT_PARSER_IMPL_H_
#define XLITE_TEXT_PARSER_IMPL_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xlite/base/name_hash.h"
#include "xlite/ir/attribute_names.h"
#include "xlite/ir/module.h"
#include "xlite/text/lexer.h"
#include "xlite/text/parser.h"
#include "xlite/text/source_positions.h"

namespace xlite {

// One attribute taken besides the opcode's own (an async sugar's thread):
// `parse` reads the value (the current token is its first token).
struct AttrSpec {
  std::string_view name;
  bool required;
  absl::FunctionRef<absl::Status()> parse;
};

class HloTextParser {
 public:
  // Walks attribute_schema.h with the value readers below.
  friend class AttributeReader;

  HloTextParser(std::string_view text, const ParseOptions& options);

  absl::StatusOr<std::unique_ptr<HloModule>> ParseModule();
  // Whole-input forms of the public helpers (the input must end after it).
  absl::StatusOr<Shape> ParseShapeOnly();
  absl::StatusOr<HloSharding> ParseShardingOnly();

 private:
  // Instruction names of the computation being parsed.
  struct Scope {
    HloComputation* computation = nullptr;
    NameMap<HloInstruction*> names;
    HloInstruction* root = nullptr;
    HloInstruction* last = nullptr;
    // Instructions written inline as operands; named once the body is read.
    std::vector<HloInstruction*> anonymous;
  };

  // ------------------------------------------------ tokens and errors
  const Token& tok() const { return lexer_.current(); }
  TokKind kind() const { return lexer_.current().kind; }
  void Advance() { lexer_.Next(); }
  bool Consume(TokKind k) {
    if (kind() != k) return false;
    Advance();
    return true;
  }
  bool AtIdent(std::string_view text) const {
    return kind() == TokKind::kIdent && tok().text == text;
  }
  // `file:line:col: error: message` + source line + caret.
  absl::Status ErrorAt(size_t offset, std::string_view message) const;
  absl::Status Error(std::string_view message) const;
  absl::Status NotSupportedAt(size_t offset, std::string_view what) const;
  // Error for an unexpected current token ("expected X").
  absl::Status Expected(std::string_view what) const;
  absl::Status Expect(TokKind k, std::string_view what);
  // Counts one level of nesting; fails beyond kMaxNesting.
  absl::Status Enter();

  // ------------------------------------------------ values (parser_values.cc)
  absl::Status ParseInt(int64_t* value);
  absl::Status ParseNonNegativeInt(int64_t* value);
  absl::Status ParseDouble(double* value);
  absl::Status ParseBool(bool* value);
  absl::Status ParseString(std::string* value);
  absl::Status ParseIdentifier(std::string_view* value);
  // `open` element (`,` element)* `close`, or just `open` `close`.
  absl::Status ParseDelimited(TokKind open, TokKind close, std::string_view open_text,
                              absl::FunctionRef<absl::Status()> element);
  absl::Status ParseDelimitedInts(TokKind open, TokKind close, std::string_view open_text,
                                  std::vector<int64_t>* values);
  // `{1,2,3}` (an empty `{}` allowed).
  absl::Status ParseIntList(std::vector<int64_t>* values);
  // `[1,2,3]`
  absl::Status ParseBracketIntList(std::vector<int64_t>* values);
  // `(1,2,3)`
  absl::Status ParseParenIntList(std::vector<int64_t>* values);
  absl::Status ParseIntListList(std::vector<std::vector<int64_t>>* values);
  absl::Status ParseBoolList(std::vector<bool>* values);
  absl::Status ParseShape(Shape* shape);
  // `type[d,...]{m,...}` without spaces or extras, read from the bytes;
  // false (nothing consumed) for any other form.
  bool ParseSimpleShape(PrimitiveType type, Shape* shape);
  absl::Status ParseLayout(Shape* shape);
  absl::Status ParseLayoutExtras(Layout* layout);
  absl::Status ParseShapeList(std::vector<Shape>* shapes);  // `{s, s}`
  bool AtShapeStart();
  // `{(shapes)->shape}`
  absl::Status ParseEntryLayout(ModuleConfig* config);

  // ------------------------------------------------ literals (literal_parser.cc)
  // The value inside `constant(...)` for `shape`.
  absl::Status ParseLiteral(const Shape& shape, Literal* literal, bool* elided);
  // A custom-call `literal=`: `shape value`, or for a tuple XLA's
  // `( shape value, shape value )` with every element's shape written.
  absl::Status ParseShapedLiteral(Literal* literal);
  absl::Status ParseDenseLiteral(const Shape& shape, Literal* literal, bool* elided);
  // One `{...}` level `d` of a dense literal; `literal` null = check only.
  absl::Status ParseLiteralLevel(const Shape& shape, int64_t d, Literal* literal, int64_t* index);
  absl::Status ParseLiteralElement(PrimitiveType type, Literal* literal, int64_t index);
  // `*nan_payload`: the NaN payload written, when not the type's default.
  absl::Status ParseFloatValue(PrimitiveType type, double* value, uint64_t* nan_payload);

  // ------------------------------------------------ sharding (sharding_parser.cc)
  absl::Status ParseSharding(HloSharding* sharding);
  absl::Status ParseSingleSharding(HloSharding* sharding);
  // The mesh ("V3") form, from the word `mesh` / `maximal_mesh` after the
  // opening brace at `offset` through the closing brace.
  absl::Status ParseNamedSharding(size_t offset, HloSharding* sharding);
  absl::Status ParseMeshAxisRef(const Mesh& mesh, MeshAxisRef* ref);
  absl::Status ParseMeshDeviceIds(Mesh* mesh);
  // Iota device forms: `reshape` positive with `devices` in all (perm
  // filled in as the identity when empty, else checked to be a permutation).
  absl::Status CheckIotaForm(size_t offset, const std::vector<int64_t>& reshape,
                             std::vector<int64_t>* perm, int64_t devices);
  absl::Status ParseShardingMetadata(std::vector<OpMetadata>* metadata);

  // ------------------------------------------------ attributes (attribute_reader.cc)
  // The `, name=value` pairs after the operands of `inst` (an instruction whose
  // operands are set): its opcode's own (attribute_schema.h) plus `extra`, and
  // the ones every instruction takes, stored on `common`.
  absl::Status ParseOpcodeAttributes(HloInstruction* inst, HloInstruction* common,
                                     size_t instruction_offset, const AttrSpec* extra = nullptr);
  absl::Status ParseCommonAttribute(std::string_view name, HloInstruction* inst, bool* handled);
  // ------------------------------------------------ attribute values (attribute_parser.cc)
  absl::Status ParseMetadata(OpMetadata* metadata);
  absl::Status ParseFrontendAttributes(FrontendAttributes* attributes);
  absl::Status ParseStatistics(Statistics* statistics);
  absl::Status ParseWindow(Window* window);
  absl::Status ParseConvDims(ConvDimensions* dims);
  absl::Status ParsePadding(PaddingConfig* padding);
  absl::Status ParseSliceRanges(SliceAttrs* slice);
  absl::Status ParseReplicaGroups(ReplicaGroups* groups);
  // After `mesh`: `['a'=2,'b'=2] {'b'}`.
  absl::Status ParseMeshReplicaGroups(size_t offset, ReplicaGroups* groups);
  // `['a'=2,'b'=4]` (possibly empty) and one axis name, quoted or bare
  // (`quoted`, when given, says which the text used).
  absl::Status ParseMeshAxes(std::vector<MeshAxis>* axes, bool* quoted);
  absl::Status ParseMeshAxisName(std::string* name, bool* quoted);
  absl::Status ParsePairs(std::vector<std::pair<int64_t, int64_t>>* pairs);
  absl::Status ParseOutputOperandAliasing(std::vector<OutputOperandAlias>* aliasing);
  absl::Status ParsePrecisionList(std::vector<Precision>* precision);
  absl::Status ParseResultAccuracy(ResultAccuracy* accuracy);
  // `L.1@2:4` or `L.1@2:4_R.0@2:4`, read from the bytes.
  absl::Status ParseSparsity(std::vector<SparsityDescriptor>* sparsity);
  absl::Status ParseDomain(DomainAttrs* domain);
  absl::Status ParseComputationRef(HloComputation** computation);
  absl::Status ParseComputationList(std::vector<HloComputation*>* computations);
  absl::Status ParseControlPredecessors(HloInstruction* inst);
  // An enumerator written as `spelling` says (index returned).
  absl::Status ParseEnum(const EnumSpelling& spelling, int* index);
  template <typename E>
  absl::Status ParseEnum(E* value) {
    int index = 0;
    absl::Status status = ParseEnum(SpellingOf<E>(), &index);
    if (status.ok()) *value = static_cast<E>(index);
    return status;
  }

  // ------------------------------------------------ structure (parser.cc)
  absl::Status ParseHeader(HloModule* module);
  absl::Status ParseHeaderAttribute(std::string_view name, HloModule* module);
  absl::Status ParseStackFrameIndex(StackFrameIndex* index);
  absl::Status ParseComputation();
  // Instructions up to and including the closing `}` into `computation`.
  absl::Status ParseComputationBody(HloComputation* computation);
  absl::Status ParseInstruction(Scope* scope);
  // From the opcode on (the optional result shape already read into `shape`);
  // the new instruction, not yet named, is added to the scope as `*added`.
  absl::Status ParseInstructionRhs(Scope* scope, std::optional<Shape> shape,
                                   HloInstruction** added);
  // An operand written as an instruction, e.g. `reshape(f32[4] parameter(0))`,
  // which XLA accepts without attributes and names `<opcode>.anon`.
  absl::Status ParseNestedOperand(Scope* scope, std::optional<Shape> shape, HloInstruction** added);
  void NameAnonymousInstructions(Scope* scope);
  // `(operands)`, appended to `inst`.
  absl::Status ParseOperands(Scope* scope, HloInstruction* inst);
  // `(%a, %b)` read from the bytes; false (nothing consumed) for other forms.
  bool ParseSimpleOperands(Scope* scope, HloInstruction* inst);
  absl::Status InferShape(HloInstruction* inst, size_t offset);
  absl::Status BuildAsyncSugar(HloInstruction* inst, HloOpcode wrapped_opcode, size_t offset,
                               HloInstruction** wrapped);
  HloInstruction* AddToScope(Scope* scope, std::unique_ptr<HloInstruction> inst);
  // Computations the parser made up (async wrappers, nested bodies) get their
  // names at the end, so that they never clash with a name defined later.
  HloComputation* AddSyntheticComputation(std::unique_ptr<HloComputation> c, std::string base_name);
  // The computation that async sugar (`dot-start(...)`) just made for `inst`,
  // if it did.
  HloComputation* SugarWrapper(const HloInstruction& inst) const;
  static constexpr std::string_view kAsyncWrapperName = "async_wrapped";
  void NameSyntheticComputations();

  Lexer lexer_;
  ParseOptions options_;
  // Lines of the instructions for options_.positions.
  LineCounter lines_;
  int depth_ = 0;
  bool in_nested_operand_ = false;  // attributes belong to the outer instruction
  // async_execution_thread= as written on the async-update/-done being read,
  // checked against its async-start's.
  std::optional<std::string> written_async_thread_;
  std::unique_ptr<HloModule> module_;
  NameMap<HloComputation*> computations_;
  std::vector<std::pair<HloComputation*, std::string>> synthetic_;
  Scope* scope_ = nullptr;  // innermost computation being parsed
  // End of the text already scanned to size name maps (each byte once).
  size_t sized_up_to_ = 0;
  HloComputation* entry_ = nullptr;
  HloComputation* last_computation_ = nullptr;
  // is_scheduled=true: the text order becomes the schedule once parsed.
  bool is_scheduled_ = false;
};

inline constexpr int kMaxNesting = 1000;

// RAII partner of HloTextParser::Enter(): one level is left when the scope ends.
class NestingScope {
 public:
  explicit NestingScope(int* depth) : depth_(depth) {}
  ~NestingScope() { --*depth_; }
  NestingScope(const NestingScope&) = delete;
  NestingScope& operator=(const NestingScope&) = delete;

 private:
  int* depth_;
};

}  // namespace xlite

#endif  // XLITE_TEXT_PARSER_IMPL_H_
