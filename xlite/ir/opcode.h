// HloOpcode and its properties, generated from opcodes.def (the only list).
#ifndef XLITE_IR_OPCODE_H_
#define XLITE_IR_OPCODE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace xlite {

enum class HloOpcode : uint8_t {
#define XLITE_OPCODE(e, name, arity, props) e,
#include "xlite/ir/opcodes.def"
#undef XLITE_OPCODE
};

inline constexpr int kNumOpcodes = 0
#define XLITE_OPCODE(e, name, arity, props) +1
#include "xlite/ir/opcodes.def"
#undef XLITE_OPCODE
    ;

namespace op_property {
enum : uint32_t {
  kNone = 0,
  kElementwise = 1u << 0,
  kCommutative = 1u << 1,
  kTranscendental = 1u << 2,
  kCollective = 1u << 3,
  kAsync = 1u << 4,
  kSideEffect = 1u << 5,
};
}  // namespace op_property

inline constexpr int kVariadic = -1;

std::string_view OpcodeName(HloOpcode opcode);
std::optional<HloOpcode> OpcodeFromName(std::string_view name);
// Operand count, or kVariadic.
int OpcodeArity(HloOpcode opcode);
uint32_t OpcodeProperties(HloOpcode opcode);

// Whether HLO text may leave out the result shape of `opcode` for it to be
// inferred from the operands and attributes: the opcodes XLA's parser infers
// (hlo_parser.cc, CanInferShape), plus the elementwise atan and mulhi. The
// others (parameter, constant, iota, reshape, convert, slice, custom-call,
// collectives, ...) declare their shape in the text.
bool CanOmitResultShape(HloOpcode opcode);

inline bool IsElementwiseOpcode(HloOpcode op) {
  return OpcodeProperties(op) & op_property::kElementwise;
}
inline bool IsCommutativeOpcode(HloOpcode op) {
  return OpcodeProperties(op) & op_property::kCommutative;
}
inline bool IsTranscendentalOpcode(HloOpcode op) {
  return OpcodeProperties(op) & op_property::kTranscendental;
}
inline bool IsCollectiveOpcode(HloOpcode op) {
  return OpcodeProperties(op) & op_property::kCollective;
}
inline bool IsAsyncOpcode(HloOpcode op) { return OpcodeProperties(op) & op_property::kAsync; }
// Always side effecting, whatever the attributes (see HloInstruction::HasSideEffect).
inline bool IsSideEffectOpcode(HloOpcode op) {
  return OpcodeProperties(op) & op_property::kSideEffect;
}

}  // namespace xlite

#endif  // XLITE_IR_OPCODE_H_
