// Binary and ternary elementwise opcodes: arithmetic with XLA's integer
// rules (wrap, x/0 = -1, x%0 = x, MIN/-1 = MIN, saturated shifts), NaN-
// propagating max/min, power, logic, mulhi, compare in every direction and
// comparison type, complex, select and clamp.
#include <bit>
#include <cmath>
#include <complex>
#include <limits>

#include "xlite/eval/combining_functors.h"
#include "xlite/eval/elementwise_internal.h"

namespace xlite::eval {
namespace {

using O = HloOpcode;

struct Subtract {
  template <Int T>
  T operator()(T a, T b) const {
    return WrapSub(a, b);
  }
  template <RealOrCplx T>
  T operator()(T a, T b) const {
    return a - b;
  }
};

struct Divide {
  template <SInt T>
  T operator()(T a, T b) const {
    if (b == 0) return -1;
    if (b == -1) return WrapSub(T{0}, a);  // MIN / -1 wraps to MIN
    return static_cast<T>(a / b);
  }
  template <UInt T>
  T operator()(T a, T b) const {
    return b == 0 ? std::numeric_limits<T>::max() : static_cast<T>(a / b);
  }
  template <RealOrCplx T>
  T operator()(T a, T b) const {
    return a / b;
  }
};

struct Remainder {
  template <SInt T>
  T operator()(T a, T b) const {
    if (b == 0) return a;
    if (b == -1) return 0;  // MIN % -1 would trap
    return static_cast<T>(a % b);
  }
  template <UInt T>
  T operator()(T a, T b) const {
    return b == 0 ? a : static_cast<T>(a % b);
  }
  template <Real T>
  T operator()(T a, T b) const {
    return std::fmod(a, b);
  }
};

struct Power {
  template <Int T>
  T operator()(T base, T exponent) const {
    if (base == 1 || exponent == 0) return 1;
    if constexpr (std::is_signed_v<T>) {
      if (exponent < 0) return 0;  // XLA: only 1 survives a negative power
    }
    // Squaring with wrap-around.
    T result = 1;
    auto e = static_cast<std::make_unsigned_t<T>>(exponent);
    while (e != 0) {
      if (e & 1) result = WrapMul(result, base);
      base = WrapMul(base, base);
      e >>= 1;
    }
    return result;
  }
  template <Real T>
  T operator()(T a, T b) const {
    return std::pow(a, b);
  }
  template <Cplx T>
  T operator()(T a, T b) const {
    if (a == T(1) || b == T(0)) return T(1);
    if (a == T(0)) {
      if (b.imag() == 0 && b.real() > 0) return T(0);
    }
    return std::pow(a, b);
  }
};

struct Atan2 {
  template <Real T>
  T operator()(T y, T x) const {
    return std::atan2(y, x);
  }
};

// The shift count read as an unsigned value of the operand's width.
template <Int T>
uint64_t ShiftCount(T n, int bits) {
  uint64_t u = static_cast<std::make_unsigned_t<T>>(n);
  return bits >= 64 ? u : u & ((uint64_t{1} << bits) - 1);
}

// The bits of `a` as a signed number of the operand's width.
template <Int T>
int64_t SignedOfWidth(T a, int bits) {
  return static_cast<int64_t>(ShiftCount(a, bits) << (64 - bits)) >> (64 - bits);
}

enum class ShiftKind { kLeft, kRightLogical, kRightArithmetic };

// Counts of the bit width or more shift every bit out: 0, or the sign fill
// for the arithmetic right shift.
template <ShiftKind kKind>
struct Shift {
  int bits = 0;
  template <Int T>
  T operator()(T a, T n) const {
    const uint64_t count = ShiftCount(n, bits);
    const int64_t value = SignedOfWidth(a, bits);
    if (count >= static_cast<uint64_t>(bits)) {
      return static_cast<T>(kKind == ShiftKind::kRightArithmetic && value < 0 ? -1 : 0);
    }
    switch (kKind) {
      case ShiftKind::kLeft:
        return static_cast<T>(static_cast<WideUnsigned<T>>(a) << count);
      case ShiftKind::kRightLogical:
        return static_cast<T>(ShiftCount(a, bits) >> count);
      case ShiftKind::kRightArithmetic:
        break;
    }
    return static_cast<T>(value >> count);
  }
};

// High half of the double-width product; signed types multiply as signed.
struct Mulhi {
  int bits = 0;
  template <Int T>
  T operator()(T a, T b) const {
    if constexpr (std::is_signed_v<T>) {
      __int128 p = static_cast<__int128>(a) * static_cast<__int128>(b);
      return static_cast<T>(p >> bits);
    } else {
      unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
      return static_cast<T>(p >> bits);
    }
  }
};

struct MakeComplex {
  template <Real T>
  std::complex<T> operator()(T re, T im) const {
    return {re, im};
  }
};

// -------------------------------------------------------------- compare

template <typename T>
bool Ordered(ComparisonDirection d, const T& a, const T& b) {
  switch (d) {
    case ComparisonDirection::kEq:
      return a == b;
    case ComparisonDirection::kNe:
      return a != b;
    case ComparisonDirection::kGe:
      return a >= b;
    case ComparisonDirection::kGt:
      return a > b;
    case ComparisonDirection::kLe:
      return a <= b;
    case ComparisonDirection::kLt:
      return a < b;
  }
  return false;
}

// A signed integer ordering floats as XLA's TOTALORDER does: -NaN < -inf <
// ... < -0 < +0 < ... < inf < NaN, by bit pattern.
template <Real T>
auto TotalOrderKey(T x) {
  using S = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  S bits = std::bit_cast<S>(x);
  return bits < 0 ? static_cast<S>(bits ^ std::numeric_limits<S>::max()) : bits;
}

struct Compare {
  ComparisonDirection direction = ComparisonDirection::kEq;
  ComparisonType type = ComparisonType::kFloat;
  int bits = 0;
  template <Pred T>
  bool operator()(T a, T b) const {
    return Ordered(direction, a, b);
  }
  template <Int T>
  bool operator()(T a, T b) const {
    if (type == ComparisonType::kUnsigned) {
      return Ordered(direction, ShiftCount(a, bits), ShiftCount(b, bits));
    }
    // Signed: sign-extend from the operand's width (unsigned operands too).
    return Ordered(direction, SignedOfWidth(a, bits), SignedOfWidth(b, bits));
  }
  template <Real T>
  bool operator()(T a, T b) const {
    if (type == ComparisonType::kTotalOrder) {
      return Ordered(direction, TotalOrderKey(a), TotalOrderKey(b));
    }
    return Ordered(direction, a, b);
  }
  template <Cplx T>
  bool operator()(T a, T b) const {
    return direction == ComparisonDirection::kNe ? a != b : a == b;
  }
};

absl::StatusOr<Literal> CompareHandler(const HloInstruction& inst, Operands ops, EvalContext&) {
  const auto& attrs = inst.attrs<CompareAttrs>();
  PrimitiveType t = ops[0]->shape().element_type();
  Compare f;
  f.direction = attrs.direction;
  f.type = attrs.type.value_or(DefaultComparisonType(t));
  bool ordering =
      attrs.direction != ComparisonDirection::kEq && attrs.direction != ComparisonDirection::kNe;
  if (IsComplex(t) && ordering) {
    return InvalidArgument("complex values compare only with EQ or NE");
  }
  bool float_type = f.type == ComparisonType::kFloat || f.type == ComparisonType::kTotalOrder;
  if ((IsFloat(t) || IsComplex(t)) != float_type) {
    return InvalidArgument("comparison type does not fit element type ",
                           AsAbsl(PrimitiveTypeName(t)));
  }
  return RunSameType<Compare, 2>(inst, ops, f);
}

// -------------------------------------------------------------- select, clamp

// Copies element bytes of on_true or on_false; the element type does not
// matter, only its storage width.
template <typename Word>
Literal SelectWords(Literal out, Operands ops) {
  const int64_t n = out.element_count();
  MapInto<Word>(
      out, [](bool p, Word t, Word f) { return p ? t : f; }, ReadAs<bool>(*ops[0], n),
      ReadAs<Word>(*ops[1], n), ReadAs<Word>(*ops[2], n));
  return out;
}

struct Bytes16 {
  uint64_t lo, hi;
};

absl::StatusOr<Literal> SelectHandler(const HloInstruction& inst, Operands ops, EvalContext&) {
  if (ops[0]->shape().element_type() != PrimitiveType::PRED || !ops[1]->shape().IsArray()) {
    return InvalidArgument("select needs a pred predicate and array operands");
  }
  Literal out(WithElementType(inst.shape(), ops[1]->shape().element_type()));
  switch (StorageBytes(out.shape().element_type())) {
    case 1:
      return SelectWords<uint8_t>(std::move(out), ops);
    case 2:
      return SelectWords<uint16_t>(std::move(out), ops);
    case 4:
      return SelectWords<uint32_t>(std::move(out), ops);
    case 8:
      return SelectWords<uint64_t>(std::move(out), ops);
    case 16:
      return SelectWords<Bytes16>(std::move(out), ops);
    default:
      return UnsupportedType(inst, out.shape().element_type());
  }
}

// clamp(lo, x, hi) = min(hi, max(lo, x)), NaN from any operand propagating.
struct Clamp {
  template <typename T>
  requires std::is_invocable_v<Maximum, T, T> && std::is_invocable_v<Minimum, T, T> T
  operator()(T lo, T x, T hi) const {
    return Minimum{}(hi, Maximum{}(lo, x));
  }
};

template <typename F>
constexpr OpHandler kBinary = SameTypeHandler<F, 2>;

}  // namespace

void RegisterBinaryOps(OpHandlerTable& table) {
  table.Register(O::kAdd, kBinary<Add>);
  table.Register(O::kSubtract, kBinary<Subtract>);
  table.Register(O::kMultiply, kBinary<Multiply>);
  table.Register(O::kDivide, kBinary<Divide>);
  table.Register(O::kRemainder, kBinary<Remainder>);
  table.Register(O::kMaximum, kBinary<Maximum>);
  table.Register(O::kMinimum, kBinary<Minimum>);
  table.Register(O::kPower, kBinary<Power>);
  table.Register(O::kAtan2, kBinary<Atan2>);
  table.Register(O::kAnd, kBinary<And>);
  table.Register(O::kOr, kBinary<Or>);
  table.Register(O::kXor, kBinary<Xor>);
  table.Register(O::kShiftLeft, kBinary<Shift<ShiftKind::kLeft>>);
  table.Register(O::kShiftRightLogical, kBinary<Shift<ShiftKind::kRightLogical>>);
  table.Register(O::kShiftRightArithmetic, kBinary<Shift<ShiftKind::kRightArithmetic>>);
  table.Register(O::kMulhi, kBinary<Mulhi>);
  table.Register(O::kComplex, kBinary<MakeComplex>);
  table.Register(O::kCompare, CompareHandler);
  table.Register(O::kSelect, SelectHandler);
  table.Register(O::kClamp, SameTypeHandler<Clamp, 3>);
}

}  // namespace xlite::eval
