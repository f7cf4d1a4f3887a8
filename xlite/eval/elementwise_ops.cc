// Elementwise opcode family: the shared compute-type helpers and the entry
// point that registers every file's handlers.
#include "absl/strings/str_cat.h"
#include "xlite/eval/elementwise_internal.h"

namespace xlite::eval {

PrimitiveType ComputeType(PrimitiveType t) {
  using P = PrimitiveType;
  if (IsFloat(t) && t != P::F32 && t != P::F64) return P::F32;
  switch (t) {
    case P::S1: case P::S2: case P::S4: return P::S8;
    case P::U1: case P::U2: case P::U4: return P::U8;
    default: return t;
  }
}

absl::StatusOr<const Literal*> Widen(const Literal& l, Literal& storage) {
  if (!l.shape().IsArray()) {
    return InvalidArgument("expected an array operand, got ", l.shape().ToString());
  }
  PrimitiveType t = l.shape().element_type();
  PrimitiveType c = ComputeType(t);
  if (c == t) return &l;
  XLITE_ASSIGN_OR_RETURN(storage, l.Convert(c));
  return &storage;
}

Shape WithElementType(const Shape& shape, PrimitiveType t) {
  Shape out = shape;
  out.clear_layout();
  out.set_element_type(t);
  return out;
}

absl::StatusOr<Literal> Narrow(Literal computed, PrimitiveType declared) {
  if (computed.shape().element_type() == declared) return computed;
  return computed.Convert(declared);
}

absl::Status UnsupportedType(const HloInstruction& inst, PrimitiveType t) {
  return InvalidArgument(AsAbsl(OpcodeName(inst.opcode())), " does not accept element type ",
                         AsAbsl(PrimitiveTypeName(t)));
}

void RegisterElementwiseOps(OpHandlerTable& table) {
  RegisterUnaryOps(table);
  RegisterBinaryOps(table);
  RegisterConvertOps(table);
  RegisterRngOps(table);
  RegisterMapIotaOps(table);
}

}  // namespace xlite::eval
