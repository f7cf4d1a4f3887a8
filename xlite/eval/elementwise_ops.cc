// Elementwise opcode family: the shared compute-type helpers and the entry
// point that registers every file's handlers.
#include "absl/strings/str_cat.h"
#include "xlite/eval/element_types.h"
#include "xlite/eval/elementwise_internal.h"

namespace xlite::eval {

PrimitiveType ComputeType(PrimitiveType t) {
  using P = PrimitiveType;
  if (IsFloat(t) && t != P::F32 && t != P::F64) return P::F32;
  switch (t) {
    case P::S1:
    case P::S2:
    case P::S4:
      return P::S8;
    case P::U1:
    case P::U2:
    case P::U4:
      return P::U8;
    default:
      return t;
  }
}

Shape WithElementType(const Shape& shape, PrimitiveType t) {
  Shape out = shape;
  out.clear_layout();
  out.set_element_type(t);
  return out;
}

namespace {

// `from` copied into a literal of element type `to`, one of `narrow` and
// ComputeType(narrow) being `from`'s type and the other `to`: values widen
// exactly, or narrow with StoreElement's rounding (RNE) or wrapping.
absl::StatusOr<Literal> ConvertElements(const Literal& from, PrimitiveType narrow,
                                        PrimitiveType to) {
  Literal out(WithElementType(from.shape(), to));
  const bool widening = to != narrow;
  absl::Status status = DispatchArrayType(narrow, [&](auto tag) -> absl::Status {
    constexpr PrimitiveType kNarrow = decltype(tag)::kType;
    if constexpr (IsNarrowFloat(kNarrow) || SubByteBits(kNarrow) > 0) {
      constexpr PrimitiveType kWide = IsNarrowFloat(kNarrow)        ? PrimitiveType::F32
                                      : IntNative<kNarrow>::kSigned ? PrimitiveType::S8
                                                                    : PrimitiveType::U8;
      const int64_t n = from.element_count();
      if (widening) {
        for (int64_t i = 0; i < n; ++i) StoreElement<kWide>(out, i, LoadElement<kNarrow>(from, i));
      } else {
        for (int64_t i = 0; i < n; ++i) StoreElement<kNarrow>(out, i, LoadElement<kWide>(from, i));
      }
      return absl::OkStatus();
    } else {
      return InvalidArgument(AsAbsl(PrimitiveTypeName(kNarrow)), " is not a narrow type");
    }
  });
  XLITE_RETURN_IF_ERROR(status);
  return out;
}

}  // namespace

absl::StatusOr<const Literal*> Widen(const Literal& l, Literal& storage) {
  if (!l.shape().IsArray()) {
    return InvalidArgument("expected an array operand, got ", l.shape().ToString());
  }
  PrimitiveType t = l.shape().element_type();
  PrimitiveType c = ComputeType(t);
  if (c == t) return &l;
  XLITE_ASSIGN_OR_RETURN(storage, ConvertElements(l, t, c));
  return &storage;
}

absl::StatusOr<Literal> Narrow(Literal computed, PrimitiveType declared) {
  if (computed.shape().element_type() == declared) return computed;
  return ConvertElements(computed, declared, declared);
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
