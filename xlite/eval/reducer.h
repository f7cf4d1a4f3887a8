// Reducer and comparator computations as the reduction-family handlers call
// them: a Combiner that folds elements natively when analysis/reduction_kind
// recognises the reducer (else through EvalContext::Call), the comparator
// recogniser, and compare keys that order elements like `compare`.
#ifndef XLITE_EVAL_REDUCER_H_
#define XLITE_EVAL_REDUCER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/analysis/reduction_kind.h"
#include "xlite/eval/eval_context.h"
#include "xlite/ir/computation.h"
#include "xlite/ir/literal.h"

namespace xlite::eval {

// acc[i] = op(acc[i], x[i]) for every element with the combining kernel of
// `kind` (combining_functors.h); false, with `acc` untouched, when the kernel
// does not cover the element type or the arrays differ in type or size (the
// caller then calls the reducer).
bool CombineElementwise(ReductionKind kind, Literal& acc, const Literal& x);

// A comparator whose root is `compare(parameter(lhs), parameter(rhs))`.
struct ParameterCompare {
  int64_t lhs_parameter = 0;
  int64_t rhs_parameter = 0;
  ComparisonDirection direction = ComparisonDirection::kLt;
  ComparisonType type = ComparisonType::kFloat;  // the default filled in
};
std::optional<ParameterCompare> MatchParameterCompare(const HloComputation& computation);

// The direction that gives the same answer with the operands swapped
// (LT <-> GT, LE <-> GE, EQ and NE unchanged).
ComparisonDirection SwappedDirection(ComparisonDirection direction);

// The elements of one array as keys that compare, with the native operators,
// exactly as `compare` of that comparison type does: IEEE for FLOAT (NaN
// unordered, -0 == +0), the sign-magnitude total order for TOTALORDER
// (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN), by value for integers.
class CompareKeys {
 public:
  // nullopt when `type` does not apply natively to the element type (complex,
  // or a mismatching explicit type): callers then call the comparator.
  static std::optional<CompareKeys> Make(const Literal& array, ComparisonType type);

  // compare(element a, element b) with `direction`.
  bool Compare(int64_t a, int64_t b, ComparisonDirection direction) const;
  // Element a orders strictly before element b (a < b in the key order).
  bool Less(int64_t a, int64_t b) const {
    return is_float_ ? floats_[a] < floats_[b] : ints_[a] < ints_[b];
  }

 private:
  bool is_float_ = false;
  std::vector<double> floats_;  // FLOAT: the values
  std::vector<int64_t> ints_;   // everything else: an order-preserving image
};

// How a native sum of narrow floats (f16, bf16, f8) accumulates: rounded to
// the type after every add, as the reducer is written, or in f32 and rounded
// once when stored (reduce and reduce-window: within one ulp of the f32 sum,
// where a long sum rounded per step drifts by many).
enum class NarrowSum : uint8_t { kRoundEachStep, kWidened };

// Folds scalars with a reducer computation, N accumulators against N input
// arrays: acc = reducer(acc..., x...) (or reducer(x..., acc...) with
// accumulator_last, the order select-and-scatter's scatter uses). One
// accumulator with a MatchReductionKind reducer folds natively with the op's
// exact semantics (integers wrap, maximum/minimum propagate NaN, narrow
// floats round to their type after every step, except an add under
// NarrowSum::kWidened); anything else calls the computation once per element.
class Combiner {
 public:
  static absl::StatusOr<std::unique_ptr<Combiner>> Make(
      const HloComputation& reducer, absl::Span<const Literal* const> inputs, EvalContext& ctx,
      bool accumulator_last = false, NarrowSum narrow_sum = NarrowSum::kRoundEachStep);
  virtual ~Combiner() = default;

  // Sets accumulator k to element `index` of values[k].
  virtual void Load(absl::Span<const Literal* const> values, int64_t index) = 0;
  // Folds input elements start, start + stride, ... (`count` of them), in
  // that order.
  virtual absl::Status Fold(int64_t start, int64_t stride, int64_t count) = 0;
  // Writes accumulator k to element `index` of outputs[k].
  virtual void Store(absl::Span<Literal* const> outputs, int64_t index) const = 0;
  // True on the native path (tests check which path ran).
  virtual bool is_native() const = 0;
};

}  // namespace xlite::eval

#endif  // XLITE_EVAL_REDUCER_H_
