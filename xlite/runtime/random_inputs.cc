#include "xlite/runtime/random_inputs.h"

#include <algorithm>
#include <complex>

#include "absl/container/flat_hash_set.h"
#include "xlite/ir/computation.h"

namespace xlite::runtime {
namespace {

using O = HloOpcode;

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1) with 53 random bits.
double UniformSigned(uint64_t& state) {
  return static_cast<double>(SplitMix64(state) >> 11) * 0x1p-52 - 1.0;
}

// The smallest valid start of a window of `window` in a dimension of
// `size` is 0 and the largest size - window: starts in [0, size - window].
int64_t StartRange(int64_t size, int64_t window) { return std::max<int64_t>(1, size - window + 1); }

// The bound `user` puts on the values of its operand `j`, if that operand
// holds start indices.
std::optional<int64_t> DirectBound(const HloInstruction& user, int64_t j) {
  const Shape& operand = user.operand(0)->shape();
  std::optional<int64_t> bound;
  auto take = [&](int64_t b) { bound = bound ? std::min(*bound, b) : b; };
  switch (user.opcode()) {
    case O::kGather: {
      if (j != 1) break;
      const auto& attrs = user.attrs<GatherAttrs>();
      for (int64_t d : attrs.dims.start_index_map) {
        if (d >= 0 && d < operand.rank() && d < static_cast<int64_t>(attrs.slice_sizes.size())) {
          take(StartRange(operand.dimensions(d), attrs.slice_sizes[d]));
        }
      }
      break;
    }
    case O::kScatter: {
      if (j != (user.operand_count() - 1) / 2) break;
      for (int64_t d : user.attrs<ScatterAttrs>().dims.scatter_dims_to_operand_dims) {
        if (d >= 0 && d < operand.rank()) take(std::max<int64_t>(1, operand.dimensions(d)));
      }
      break;
    }
    case O::kDynamicSlice: {
      const auto& sizes = user.attrs<DynamicSliceAttrs>().sizes;
      int64_t d = j - 1;
      if (j >= 1 && d < operand.rank() && d < static_cast<int64_t>(sizes.size())) {
        take(StartRange(operand.dimensions(d), sizes[d]));
      }
      break;
    }
    case O::kDynamicUpdateSlice: {
      int64_t d = j - 2;
      if (j >= 2 && d < operand.rank() && d < user.operand(1)->shape().rank()) {
        take(StartRange(operand.dimensions(d), user.operand(1)->shape().dimensions(d)));
      }
      break;
    }
    case O::kSetDimensionSize: {
      // The new size of the dimension: anything from 0 up to its bound.
      const std::vector<int64_t>& dims = user.dimensions();
      if (j == 1 && dims.size() == 1 && dims[0] >= 0 && dims[0] < operand.rank()) {
        take(operand.dimensions(dims[0]) + 1);
      }
      break;
    }
    default:
      break;
  }
  return bound;
}

bool PassesValuesThrough(O opcode) {
  switch (opcode) {
    case O::kConvert:
    case O::kReshape:
    case O::kBroadcast:
    case O::kCopy:
    case O::kTranspose:
    case O::kSlice:
    case O::kConcatenate:
    case O::kBitcast:
    case O::kReverse:
      return true;
    default:
      return false;
  }
}

void FillArray(Literal& literal, uint64_t& state, std::optional<int64_t> index_bound) {
  PrimitiveType type = literal.shape().element_type();
  int64_t n = literal.element_count();
  for (int64_t i = 0; i < n; ++i) {
    if (IsPred(type)) {
      literal.SetInt64(i, static_cast<int64_t>(SplitMix64(state) >> 63));
    } else if (IsInteger(type)) {
      uint64_t r = SplitMix64(state);
      int64_t v;
      if (index_bound) {
        // Never past what the type holds (an s8 index into a long dimension).
        int bits = BitWidth(type) - (IsSignedInt(type) ? 1 : 0);
        int64_t limit = bits >= 63 ? *index_bound : std::min(*index_bound, int64_t{1} << bits);
        v = limit <= 0 ? 0 : static_cast<int64_t>(r % static_cast<uint64_t>(limit));
      } else if (IsSignedInt(type) && BitWidth(type) >= 4) {
        v = static_cast<int64_t>(r % 9) - 4;
      } else {
        // Sub-4-bit and unsigned types: small non-negative values that fit.
        v = static_cast<int64_t>(r % (BitWidth(type) >= 4 ? 8 : 2));
      }
      literal.SetInt64(i, v);
    } else if (IsComplex(type)) {
      double re = UniformSigned(state);
      literal.SetComplex(i, {re, UniformSigned(state)});
    } else {
      literal.SetDouble(i, UniformSigned(state));
    }
  }
}

}  // namespace

Literal RandomLiteral(const Shape& shape, uint64_t& state, std::optional<int64_t> index_bound) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& element : shape.tuple_shapes()) {
      elements.push_back(RandomLiteral(element, state, std::nullopt));
    }
    return Literal::Tuple(std::move(elements));
  }
  Literal literal(shape);
  if (shape.IsArray()) FillArray(literal, state, index_bound);
  return literal;
}

std::optional<int64_t> IndexBound(const HloInstruction& value) {
  std::optional<int64_t> bound;
  std::vector<const HloInstruction*> work = {&value};
  absl::flat_hash_set<const HloInstruction*> seen = {&value};
  while (!work.empty()) {
    const HloInstruction* v = work.back();
    work.pop_back();
    for (const HloInstruction* user : v->users()) {
      for (int64_t j = 0; j < user->operand_count(); ++j) {
        if (user->operand(j) != v) continue;
        if (std::optional<int64_t> b = DirectBound(*user, j)) {
          bound = bound ? std::min(*bound, *b) : *b;
        }
        const HloInstruction* next = nullptr;
        if (PassesValuesThrough(user->opcode())) {
          next = user;
        } else if ((user->opcode() == O::kFusion || user->opcode() == O::kCall) &&
                   user->to_apply() != nullptr && j < user->to_apply()->num_parameters()) {
          next = user->to_apply()->parameter_instruction(j);
        }
        if (next != nullptr && seen.insert(next).second) work.push_back(next);
      }
    }
  }
  return bound;
}

std::vector<Literal> RandomArguments(const HloModule& module, uint64_t seed) {
  std::vector<Literal> args;
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return args;
  uint64_t state = seed;
  for (const HloInstruction* param : entry->parameter_instructions()) {
    args.push_back(RandomLiteral(param->shape(), state, IndexBound(*param)));
  }
  return args;
}

int64_t FillElidedConstants(HloModule& module, uint64_t seed) {
  // A different stream than the arguments', so adding a parameter does not
  // shift every constant.
  uint64_t state = seed ^ 0xc0de5eed0f1e1dedull;
  int64_t filled = 0;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() != O::kConstant) continue;
      auto* attrs = inst->mutable_attrs<ConstantAttrs>();
      if (!attrs->elided) continue;
      attrs->literal = RandomLiteral(attrs->literal.shape(), state, IndexBound(*inst));
      attrs->elided = false;
      ++filled;
    }
  }
  return filled;
}

}  // namespace xlite::runtime
