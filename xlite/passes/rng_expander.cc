// rng-expander: rng (uniform / normal floats) -> rng-get-and-update-state +
// rng-bit-generator + bit manipulation; see expanders.h. The stream differs
// from the evaluator's own `rng`, so differential tests may only compare
// shapes and ranges of rng-expanded modules, never values.
#include <numbers>

#include "xlite/passes/expander_util.h"
#include "xlite/passes/expanders.h"

namespace xlite {
namespace {

using O = HloOpcode;

// Builds the rewrite of one rng instruction in computation `c`.
class RngBuilder {
 public:
  RngBuilder(InstructionMaker& make, HloComputation& c, const Shape& shape)
      : make_(make),
        c_(c),
        wide_(shape.element_type() == PrimitiveType::F64),
        float_shape_(shape),
        bits_shape_(shape) {
    float_shape_.set_element_type(wide_ ? PrimitiveType::F64 : PrimitiveType::F32);
    bits_shape_.set_element_type(wide_ ? PrimitiveType::U64 : PrimitiveType::U32);
    int64_t count = 1;
    for (int64_t d : shape.dimensions()) count *= d;
    auto attrs = std::make_unique<IntAttrs>();
    attrs->value = count;
    state_ = make_.Add(c_, O::kRngGetAndUpdateState, Shape(PrimitiveType::U64, {2}), {},
                       std::move(attrs));
  }

  const Shape& float_shape() const { return float_shape_; }

  // Uniform in [0, 1): random mantissa bits under the exponent of 1.0 give
  // [1, 2), less 1. Each call draws fresh bits and advances the state.
  HloInstruction* Unit() {
    Shape state_shape = state_->shape();
    HloInstruction* generator =
        make_.Add(c_, O::kRngBitGenerator, Shape::Tuple({state_shape, bits_shape_}), {state_});
    state_ = Element(generator, 0, state_shape);
    HloInstruction* bits = Element(generator, 1, bits_shape_);
    const int width = wide_ ? 64 : 32;
    const int mantissa = wide_ ? 52 : 23;
    const int64_t one = wide_ ? int64_t{0x3FF0000000000000} : int64_t{0x3F800000};
    HloInstruction* high = make_.Binary(c_, O::kShiftRightLogical, bits,
                                        IntSplat(make_, c_, bits_shape_, width - mantissa));
    HloInstruction* in_one_two =
        BitcastTo(make_, c_, make_.Binary(c_, O::kOr, high, IntSplat(make_, c_, bits_shape_, one)),
                  float_shape_.element_type());
    return make_.Binary(c_, O::kSubtract, in_one_two, Splat(1.0));
  }
  HloInstruction* Splat(double v) { return make_.Splat(c_, float_shape_, v); }
  // A scalar operand, in the compute type, broadcast to the result.
  HloInstruction* Spread(HloInstruction* scalar) {
    if (scalar->shape().element_type() != float_shape_.element_type()) {
      scalar = make_.Convert(c_, scalar, float_shape_.element_type());
    }
    return make_.Broadcast(c_, scalar, float_shape_, {});
  }
  HloInstruction* Bin(HloOpcode op, HloInstruction* a, HloInstruction* b) {
    return make_.Binary(c_, op, a, b);
  }
  HloInstruction* Un(HloOpcode op, HloInstruction* a) { return make_.Unary(c_, op, a); }

 private:
  HloInstruction* Element(HloInstruction* tuple, int64_t index, const Shape& shape) {
    auto attrs = std::make_unique<IntAttrs>();
    attrs->value = index;
    return make_.Add(c_, O::kGetTupleElement, shape, {tuple}, std::move(attrs));
  }

  InstructionMaker& make_;
  HloComputation& c_;
  bool wide_;
  Shape float_shape_, bits_shape_;
  HloInstruction* state_ = nullptr;
};

}  // namespace

absl::StatusOr<bool> RngExpanderPass::Run(HloModule& module) {
  return ExpandInstructions(
      module, [](HloOpcode op) { return op == O::kRng; },
      [](InstructionMaker& make, HloComputation& c,
         HloInstruction& rng) -> absl::StatusOr<HloInstruction*> {
        const Shape& shape = rng.shape();
        PrimitiveType type = shape.element_type();
        if (!shape.IsArray() || !shape.is_static() || rng.operand_count() != 2 ||
            (!IsF16OrBF16(type) && type != PrimitiveType::F32 && type != PrimitiveType::F64)) {
          return nullptr;  // integer rng stays: no unbiased cheap expansion
        }
        RngBuilder b(make, c, shape);
        HloInstruction* a = b.Spread(rng.operand(0));
        HloInstruction* second = b.Spread(rng.operand(1));
        HloInstruction* result;
        if (rng.attrs<RngAttrs>().distribution == RandomDistribution::kNormal) {
          // Box-Muller; 1 - u lies in (0, 1], so the logarithm is finite.
          HloInstruction* u1 = b.Bin(O::kSubtract, b.Splat(1.0), b.Unit());
          HloInstruction* radius =
              b.Un(O::kSqrt, b.Bin(O::kMultiply, b.Splat(-2.0), b.Un(O::kLog, u1)));
          HloInstruction* angle = b.Bin(O::kMultiply, b.Splat(2 * std::numbers::pi), b.Unit());
          HloInstruction* z = b.Bin(O::kMultiply, radius, b.Un(O::kCos, angle));
          result = b.Bin(O::kAdd, a, b.Bin(O::kMultiply, second, z));
          if (type != b.float_shape().element_type()) result = make.Convert(c, result, type);
          return result;
        }
        result = b.Bin(O::kAdd, a, b.Bin(O::kMultiply, b.Bin(O::kSubtract, second, a), b.Unit()));
        if (type != b.float_shape().element_type()) {
          result = make.Convert(c, result, type);
          a = make.Convert(c, a, type);
          second = make.Convert(c, second, type);
        }
        // Rounding may reach b itself; the range is [a, b), so fold it to a.
        return make.Select(c, make.Compare(c, result, second, ComparisonDirection::kGe), a, result);
      });
}

}  // namespace xlite
