#include "xlite/eval/reducer.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "xlite/base/status.h"
#include "xlite/eval/combining_functors.h"
#include "xlite/eval/element_types.h"
#include "xlite/eval/reduction_internal.h"

namespace xlite::eval {
namespace {

using O = HloOpcode;

// Rounds a narrow float's compute value to the type, as storing each
// intermediate result of the reducer would.
template <PrimitiveType PT>
inline NativeT<PT> RoundToType(NativeT<PT> v) {
  if constexpr (!IsNarrowFloat(PT)) {
    return v;
  } else {
    if constexpr (PT == PrimitiveType::BF16) {
      // Round to nearest even on the top 16 bits (the common case, kept
      // fast; NaN takes the general path to keep its payload rules).
      if (!std::isnan(v)) {
        uint32_t bits = std::bit_cast<uint32_t>(v);
        bits += 0x7fffu + ((bits >> 16) & 1u);
        return std::bit_cast<float>(bits & 0xffff0000u);
      }
    }
    uint8_t buffer[2] = {0, 0};
    StoreElement<PT>(buffer, 0, v);
    return LoadElement<PT>(buffer, 0);
  }
}

// kRound: narrow floats round to their type after every step (else only
// when stored).
template <PrimitiveType PT, typename Op, bool kRound>
class NativeCombiner final : public Combiner {
  using T = NativeT<PT>;

 public:
  NativeCombiner(const Literal& input, bool accumulator_last)
      : input_(input.raw_data().data()), accumulator_last_(accumulator_last) {}

  void Load(absl::Span<const Literal* const> values, int64_t index) override {
    acc_ = LoadElement<PT>(values[0]->raw_data().data(), index);
  }

  absl::Status Fold(int64_t start, int64_t stride, int64_t count) override {
    Op op;
    T acc = acc_;
    const uint8_t* in = input_;
    int64_t i = start;
    if (accumulator_last_) {
      for (int64_t n = 0; n < count; ++n, i += stride) {
        acc = Step(op(LoadElement<PT>(in, i), acc));
      }
    } else {
      for (int64_t n = 0; n < count; ++n, i += stride) {
        acc = Step(op(acc, LoadElement<PT>(in, i)));
      }
    }
    acc_ = acc;
    return absl::OkStatus();
  }

  void Store(absl::Span<Literal* const> outputs, int64_t index) const override {
    StoreElement<PT>(outputs[0]->mutable_raw_data().data(), index, acc_);
  }

  bool is_native() const override { return true; }

 private:
  static T Step(T v) {
    if constexpr (kRound) {
      return RoundToType<PT>(v);
    } else {
      return v;
    }
  }

  const uint8_t* input_;
  bool accumulator_last_;
  T acc_{};
};

// Whether kernel Op covers element type PT (and/or/xor need integers or
// pred, maximum/minimum reject complex): its overloads decide.
template <PrimitiveType PT, typename Op>
constexpr bool kNativeSupports = std::is_invocable_v<const Op&, NativeT<PT>, NativeT<PT>>;

template <PrimitiveType PT, typename Op>
std::unique_ptr<Combiner> MakeNative(const Literal& input, bool accumulator_last, bool widened) {
  if constexpr (!kNativeSupports<PT, Op>) {
    return nullptr;
  } else if constexpr (IsNarrowFloat(PT)) {
    if (widened) return std::make_unique<NativeCombiner<PT, Op, false>>(input, accumulator_last);
    return std::make_unique<NativeCombiner<PT, Op, true>>(input, accumulator_last);
  } else {
    return std::make_unique<NativeCombiner<PT, Op, false>>(input, accumulator_last);
  }
}

// widened: a narrow-float add accumulates in f32 (NarrowSum::kWidened).
std::unique_ptr<Combiner> MakeNativeCombiner(ReductionKind kind, const Literal& input,
                                             bool accumulator_last, bool widened) {
  absl::StatusOr<std::unique_ptr<Combiner>> made = DispatchArrayType(
      input.shape().element_type(), [&](auto tag) -> absl::StatusOr<std::unique_ptr<Combiner>> {
        constexpr PrimitiveType PT = decltype(tag)::kType;
        return WithCombiningFunctor(kind, [&](auto op) {
          return MakeNative<PT, decltype(op)>(input, accumulator_last, widened);
        });
      });
  return made.ok() ? *std::move(made) : nullptr;
}

// The general path: one call of the reducer per element.
class CallCombiner final : public Combiner {
 public:
  CallCombiner(const HloComputation& reducer, absl::Span<const Literal* const> inputs,
               EvalContext& ctx, bool accumulator_last)
      : reducer_(reducer), inputs_(inputs.begin(), inputs.end()), ctx_(ctx) {
    size_t n = inputs.size();
    int64_t acc_base = accumulator_last ? static_cast<int64_t>(n) : 0;
    int64_t x_base = accumulator_last ? 0 : static_cast<int64_t>(n);
    for (size_t k = 0; k < n; ++k) {
      acc_.emplace_back(reducer.parameter_instruction(acc_base + k)->shape());
      x_.emplace_back(reducer.parameter_instruction(x_base + k)->shape());
    }
    args_.resize(2 * n);
    for (size_t k = 0; k < n; ++k) {
      args_[acc_base + k] = &acc_[k];
      args_[x_base + k] = &x_[k];
    }
  }

  void Load(absl::Span<const Literal* const> values, int64_t index) override {
    for (size_t k = 0; k < acc_.size(); ++k) CopyElement(*values[k], index, acc_[k], 0);
  }

  absl::Status Fold(int64_t start, int64_t stride, int64_t count) override {
    size_t n = acc_.size();
    for (int64_t c = 0, i = start; c < count; ++c, i += stride) {
      for (size_t k = 0; k < n; ++k) CopyElement(*inputs_[k], i, x_[k], 0);
      XLITE_ASSIGN_OR_RETURN(Literal result, ctx_.Call(reducer_, args_));
      if (result.shape().IsTuple()) {
        if (static_cast<size_t>(result.shape().tuple_size()) != n) {
          return InvalidArgument("the reducer returned ", result.shape().ToString(), " for ", n,
                                 " accumulator(s)");
        }
        for (size_t k = 0; k < n; ++k) {
          XLITE_RETURN_IF_ERROR(Accept(std::move(result.mutable_tuple_elements()[k]), k));
        }
      } else {
        if (n != 1) {
          return InvalidArgument("the reducer returned ", result.shape().ToString(), " for ", n,
                                 " accumulators");
        }
        XLITE_RETURN_IF_ERROR(Accept(std::move(result), 0));
      }
    }
    return absl::OkStatus();
  }

  void Store(absl::Span<Literal* const> outputs, int64_t index) const override {
    for (size_t k = 0; k < acc_.size(); ++k) CopyElement(acc_[k], 0, *outputs[k], index);
  }

  bool is_native() const override { return false; }

 private:
  absl::Status Accept(Literal value, size_t k) {
    if (!value.shape().IsScalar() ||
        value.shape().element_type() != acc_[k].shape().element_type()) {
      return InvalidArgument("the reducer returned ", value.shape().ToString(),
                             " for an accumulator of ", acc_[k].shape().ToString());
    }
    acc_[k] = std::move(value);
    return absl::OkStatus();
  }

  const HloComputation& reducer_;
  std::vector<const Literal*> inputs_;
  EvalContext& ctx_;
  std::vector<Literal> acc_, x_;
  std::vector<const Literal*> args_;
};

bool IsScalarParameter(const HloInstruction* inst) {
  return inst->opcode() == O::kParameter && inst->shape().IsScalar();
}

}  // namespace

void CopyElement(const Literal& from, int64_t from_index, Literal& to, int64_t to_index) {
  PrimitiveType type = from.shape().element_type();
  int bytes = StorageBytes(type);
  if (type == to.shape().element_type()) {
    std::memcpy(to.mutable_raw_data().data() + to_index * bytes,
                from.raw_data().data() + from_index * bytes, bytes);
    return;
  }
  Literal one(Shape::Scalar(type));
  std::memcpy(one.mutable_raw_data().data(), from.raw_data().data() + from_index * bytes, bytes);
  absl::StatusOr<Literal> converted = one.Convert(to.shape().element_type());
  if (!converted.ok()) return;  // non-array types never reach reductions
  int to_bytes = StorageBytes(to.shape().element_type());
  std::memcpy(to.mutable_raw_data().data() + to_index * to_bytes, converted->raw_data().data(),
              to_bytes);
}

bool CombineElementwise(ReductionKind kind, Literal& acc, const Literal& x) {
  if (acc.shape().element_type() != x.shape().element_type() ||
      acc.element_count() != x.element_count()) {
    return false;
  }
  absl::StatusOr<bool> done =
      DispatchArrayType(acc.shape().element_type(), [&](auto tag) -> absl::StatusOr<bool> {
        constexpr PrimitiveType PT = decltype(tag)::kType;
        return WithCombiningFunctor(kind, [&](auto op) {
          if constexpr (kNativeSupports<PT, decltype(op)>) {
            // StoreElement rounds narrow floats to the type after each step.
            for (int64_t i = 0, n = acc.element_count(); i < n; ++i) {
              StoreElement<PT>(acc, i, op(LoadElement<PT>(acc, i), LoadElement<PT>(x, i)));
            }
            return true;
          } else {
            return false;
          }
        });
      });
  return done.ok() && *done;
}

std::optional<ParameterCompare> MatchParameterCompare(const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr || root->opcode() != O::kCompare || root->operand_count() != 2) {
    return std::nullopt;
  }
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  if (!IsScalarParameter(a) || !IsScalarParameter(b) ||
      a->shape().element_type() != b->shape().element_type() || !root->has_attrs()) {
    return std::nullopt;
  }
  const auto& attrs = root->attrs<CompareAttrs>();
  ParameterCompare match;
  match.lhs_parameter = a->parameter_number();
  match.rhs_parameter = b->parameter_number();
  match.direction = attrs.direction;
  match.type = attrs.type.value_or(DefaultComparisonType(a->shape().element_type()));
  return match;
}

ComparisonDirection SwappedDirection(ComparisonDirection direction) {
  using D = ComparisonDirection;
  switch (direction) {
    case D::kLt:
      return D::kGt;
    case D::kGt:
      return D::kLt;
    case D::kLe:
      return D::kGe;
    case D::kGe:
      return D::kLe;
    default:
      return direction;
  }
}

std::optional<CompareKeys> CompareKeys::Make(const Literal& array, ComparisonType type) {
  PrimitiveType t = array.shape().element_type();
  int64_t n = array.element_count();
  CompareKeys keys;
  if (IsFloat(t) && type == ComparisonType::kFloat) {
    keys.is_float_ = true;
    keys.floats_.resize(n);
    for (int64_t i = 0; i < n; ++i) keys.floats_[i] = array.GetDouble(i);
    return keys;
  }
  keys.ints_.resize(n);
  if (IsFloat(t) && type == ComparisonType::kTotalOrder) {
    // Every float type widens to f64 exactly (NaN signs and payload order
    // kept); negative values are sign-magnitude, so flip their magnitude
    // bits to make the bit pattern order the numeric one.
    for (int64_t i = 0; i < n; ++i) {
      int64_t bits = std::bit_cast<int64_t>(array.GetDouble(i));
      keys.ints_[i] = bits < 0 ? bits ^ INT64_MAX : bits;
    }
    return keys;
  }
  if (IsSignedInt(t) && type == ComparisonType::kSigned) {
    for (int64_t i = 0; i < n; ++i) keys.ints_[i] = array.GetInt64(i);
    return keys;
  }
  if ((IsUnsignedInt(t) || IsPred(t)) && type == ComparisonType::kUnsigned) {
    // Flipping the top bit maps unsigned order onto signed order.
    for (int64_t i = 0; i < n; ++i) keys.ints_[i] = array.GetInt64(i) ^ INT64_MIN;
    return keys;
  }
  return std::nullopt;
}

namespace {

template <typename K>
bool CompareValues(K a, K b, ComparisonDirection direction) {
  using D = ComparisonDirection;
  switch (direction) {
    case D::kEq:
      return a == b;
    case D::kNe:
      return a != b;
    case D::kGe:
      return a >= b;
    case D::kGt:
      return a > b;
    case D::kLe:
      return a <= b;
    case D::kLt:
      return a < b;
  }
  return false;
}

}  // namespace

bool CompareKeys::Compare(int64_t a, int64_t b, ComparisonDirection direction) const {
  return is_float_ ? CompareValues(floats_[a], floats_[b], direction)
                   : CompareValues(ints_[a], ints_[b], direction);
}

absl::StatusOr<std::unique_ptr<Combiner>> Combiner::Make(const HloComputation& reducer,
                                                         absl::Span<const Literal* const> inputs,
                                                         EvalContext& ctx, bool accumulator_last,
                                                         NarrowSum narrow_sum) {
  size_t n = inputs.size();
  if (n == 0 || reducer.num_parameters() != static_cast<int64_t>(2 * n)) {
    return InvalidArgument("reducer ", reducer.name(), " takes ", reducer.num_parameters(),
                           " parameters; ", n, " input(s) need ", 2 * n);
  }
  for (int64_t i = 0; i < reducer.num_parameters(); ++i) {
    const HloInstruction* p = reducer.parameter_instruction(i);
    if (p == nullptr || !p->shape().IsScalar()) {
      return InvalidArgument("reducer ", reducer.name(), " parameter ", i, " is not a scalar");
    }
  }
  if (n == 1) {
    std::optional<ReductionKind> kind = MatchReductionKind(reducer);
    PrimitiveType t = inputs[0]->shape().element_type();
    if (kind && reducer.parameter_instruction(0)->shape().element_type() == t) {
      const bool widened = narrow_sum == NarrowSum::kWidened && *kind == ReductionKind::kAdd;
      if (std::unique_ptr<Combiner> native =
              MakeNativeCombiner(*kind, *inputs[0], accumulator_last, widened)) {
        return native;
      }
    }
  }
  return std::unique_ptr<Combiner>(new CallCombiner(reducer, inputs, ctx, accumulator_last));
}

}  // namespace xlite::eval
