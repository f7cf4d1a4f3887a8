// The elementwise kernels of the ops a reduction can combine with (add,
// multiply, maximum, minimum, and, or, xor) on compute types, with XLA's
// rules: integers wrap, pred add/multiply are or/and, maximum/minimum
// propagate NaN. Shared by the elementwise handlers, reduce and the
// collectives, so the three cannot disagree.
#ifndef XLITE_EVAL_COMBINING_FUNCTORS_H_
#define XLITE_EVAL_COMBINING_FUNCTORS_H_

#include <cmath>

#include "xlite/analysis/reduction_kind.h"
#include "xlite/eval/elementwise_internal.h"

namespace xlite::eval {

template <Int T>
T WrapAdd(T a, T b) {
  using W = WideUnsigned<T>;
  return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
}
template <Int T>
T WrapSub(T a, T b) {
  using W = WideUnsigned<T>;
  return static_cast<T>(static_cast<W>(a) - static_cast<W>(b));
}
template <Int T>
T WrapMul(T a, T b) {
  using W = WideUnsigned<T>;
  return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
}

// pred arithmetic behaves like int8(a) OP int8(b) != 0, as in XLA.
struct Add {
  template <Pred T>
  bool operator()(T a, T b) const {
    return a || b;
  }
  template <Int T>
  T operator()(T a, T b) const {
    return WrapAdd(a, b);
  }
  template <RealOrCplx T>
  T operator()(T a, T b) const {
    return a + b;
  }
};

struct Multiply {
  template <Pred T>
  bool operator()(T a, T b) const {
    return a && b;
  }
  template <Int T>
  T operator()(T a, T b) const {
    return WrapMul(a, b);
  }
  template <RealOrCplx T>
  T operator()(T a, T b) const {
    return a * b;
  }
};

// maximum (kMax) and minimum: pred as or/and; floats propagate NaN; equal
// values give the first operand (std::max's rule, as XLA's evaluator).
template <bool kMax>
struct Extremum {
  template <Pred T>
  bool operator()(T a, T b) const {
    return kMax ? (a || b) : (a && b);
  }
  template <typename T>
  requires Int<T> || Real<T> T operator()(T a, T b) const {
    if constexpr (Real<T>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return (kMax ? a < b : b < a) ? b : a;
  }
};
using Maximum = Extremum<true>;
using Minimum = Extremum<false>;

struct And {
  template <Pred T>
  bool operator()(T a, T b) const {
    return a && b;
  }
  template <Int T>
  T operator()(T a, T b) const {
    return static_cast<T>(a & b);
  }
};
struct Or {
  template <Pred T>
  bool operator()(T a, T b) const {
    return a || b;
  }
  template <Int T>
  T operator()(T a, T b) const {
    return static_cast<T>(a | b);
  }
};
struct Xor {
  template <Pred T>
  bool operator()(T a, T b) const {
    return a != b;
  }
  template <Int T>
  T operator()(T a, T b) const {
    return static_cast<T>(a ^ b);
  }
};

// Calls fn(functor) with the kernel of `kind` (the one mapping from the IR's
// ReductionKind to eval's kernels).
template <typename Fn>
decltype(auto) WithCombiningFunctor(ReductionKind kind, Fn&& fn) {
  switch (kind) {
    case ReductionKind::kAdd:
      return fn(Add{});
    case ReductionKind::kMultiply:
      return fn(Multiply{});
    case ReductionKind::kMaximum:
      return fn(Maximum{});
    case ReductionKind::kMinimum:
      return fn(Minimum{});
    case ReductionKind::kAnd:
      return fn(And{});
    case ReductionKind::kOr:
      return fn(Or{});
    case ReductionKind::kXor:
      return fn(Xor{});
  }
  return fn(Add{});
}

}  // namespace xlite::eval

#endif  // XLITE_EVAL_COMBINING_FUNCTORS_H_
