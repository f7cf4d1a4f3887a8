// Random numbers: rng (uniform / normal from the evaluation's seeded stream),
// rng-bit-generator (ThreeFry-2x32-20 and Philox-4x32-10 laid out as XLA's
// RngBitGeneratorExpander and prng library do; DEFAULT is Philox, as XLA's
// CPU compiler chooses) and rng-get-and-update-state.
#include <array>
#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

#include "xlite/eval/elementwise_internal.h"
#include "xlite/eval/index_util.h"

namespace xlite::eval {
namespace {

using O = HloOpcode;

// ------------------------------------------------------------ rng

// A double in [0, 1) from the top 53 bits of a draw.
double UnitInterval(std::mt19937_64& gen) { return static_cast<double>(gen() >> 11) * 0x1p-53; }

absl::StatusOr<Literal> RngHandler(const HloInstruction& inst, Operands ops, EvalContext& ctx) {
  const Shape& shape = inst.shape();
  const PrimitiveType t = shape.element_type();
  Literal out(WithElementType(shape, t));
  std::mt19937_64& gen = ctx.rng();
  const bool normal = inst.attrs<RngAttrs>().distribution == RandomDistribution::kNormal;
  if (IsFloat(t)) {
    const double a = ops[0]->GetDouble(0), b = ops[1]->GetDouble(0);
    for (int64_t i = 0; i < out.element_count(); ++i) {
      double v;
      if (normal) {  // Box-Muller; 1 - u keeps the logarithm finite
        double radius = std::sqrt(-2 * std::log(1 - UnitInterval(gen)));
        v = a + b * radius * std::cos(2 * std::numbers::pi * UnitInterval(gen));
      } else {
        v = a + (b - a) * UnitInterval(gen);
      }
      out.SetDouble(i, v);
    }
    return out;
  }
  if (normal || !IsInteger(t)) return UnsupportedType(inst, t);
  const int64_t a = ops[0]->GetInt64(0), b = ops[1]->GetInt64(0);
  // The range as an unsigned count (b - a may exceed int64 for u64 bounds).
  const uint64_t range = static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
  for (int64_t i = 0; i < out.element_count(); ++i) {
    uint64_t offset = range == 0 || b <= a ? 0 : gen() % range;
    out.SetInt64(i, static_cast<int64_t>(static_cast<uint64_t>(a) + offset));
  }
  return out;
}

// ------------------------------------------------------------ bit generators

using Words2 = std::array<uint32_t, 2>;
using Words4 = std::array<uint32_t, 4>;

constexpr uint32_t Lo32(uint64_t v) { return static_cast<uint32_t>(v); }
constexpr uint32_t Hi32(uint64_t v) { return static_cast<uint32_t>(v >> 32); }
constexpr uint64_t Join32(uint32_t lo, uint32_t hi) { return lo | (uint64_t{hi} << 32); }

// Threefry-2x32 with 20 rounds (Salmon et al., SC'11).
Words2 ThreeFry2x32(Words2 x, Words2 key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  for (int group = 0; group < 5; ++group) {
    for (int r = 0; r < 4; ++r) {
      int rotation = kRotations[(group % 2) * 4 + r];
      x[0] += x[1];
      x[1] = (x[1] << rotation) | (x[1] >> (32 - rotation));
      x[1] ^= x[0];
    }
    // Key injection after every four rounds.
    x[0] += ks[(group + 1) % 3];
    x[1] += ks[(group + 2) % 3] + static_cast<uint32_t>(group + 1);
  }
  return x;
}

// Philox-4x32 with 10 rounds.
Words4 Philox4x32(Words4 x, Words2 key) {
  constexpr uint64_t kMulA = 0xD2511F53, kMulB = 0xCD9E8D57;
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = kMulA * x[0], p1 = kMulB * x[2];
    x = {Hi32(p1) ^ x[1] ^ key[0], Lo32(p1), Hi32(p0) ^ x[3] ^ key[1], Lo32(p0)};
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
  return x;
}

// Writes the low bits of `value` as element i (the result's storage width).
void StoreBits(Literal& out, int64_t i, uint64_t value) {
  const int bytes = StorageBytes(out.shape().element_type());
  const int bits = BitWidth(out.shape().element_type());
  if (bits < 64) value &= (uint64_t{1} << bits) - 1;
  std::memcpy(out.mutable_raw_data().data() + i * bytes, &value, bytes);  // little endian
}

// ThreeFry as XLA lays it out. 64-bit results: element i (row-major) is
// the generator on counter + i. Narrower results come from 32-bit words:
// one dimension (the first even one, else the largest) is halved, each
// counter of the halved shape gives the words of two neighbours along it.
// Returns the new counter.
uint64_t ThreeFryFill(uint64_t key, uint64_t counter, Literal& out) {
  const Words2 k = {Lo32(key), Hi32(key)};
  const Shape& shape = out.shape();
  const int64_t n = out.element_count();
  if (BitWidth(shape.element_type()) == 64) {
    for (int64_t i = 0; i < n; ++i) {
      uint64_t c = counter + static_cast<uint64_t>(i);
      Words2 w = ThreeFry2x32({Lo32(c), Hi32(c)}, k);
      StoreBits(out, i, Join32(w[0], w[1]));
    }
    return counter + static_cast<uint64_t>(n);
  }
  if (shape.rank() == 0) {
    StoreBits(out, 0, ThreeFry2x32({Lo32(counter), Hi32(counter)}, k)[0]);
    return counter + 1;
  }
  auto dims = shape.dimensions();
  int64_t split = -1;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (dims[d] % 2 == 0) {
      split = d;
      break;
    }
  }
  if (split < 0) {
    split = 0;
    for (int64_t d = 1; d < shape.rank(); ++d) {
      if (dims[d] > dims[split]) split = d;
    }
  }
  std::vector<int64_t> half(dims.begin(), dims.end());
  half[split] = (dims[split] + 1) / 2;
  const std::vector<int64_t> half_strides = RowMajorStrides(half);
  int64_t half_elements = 1;
  for (int64_t d : half) half_elements *= d;
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t h = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      h += (static_cast<int64_t>(d) == split ? index[d] / 2 : index[d]) * half_strides[d];
    }
    uint64_t c = counter + static_cast<uint64_t>(h);
    StoreBits(out, i, ThreeFry2x32({Lo32(c), Hi32(c)}, k)[index[split] % 2]);
    for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return counter + static_cast<uint64_t>(half_elements);
}

// Philox as XLA lays it out: blocks of four 32-bit words on a 128-bit
// counter (low word first); 32-bit-or-narrower element i takes word i % 4 of
// block i / 4, 64-bit element i takes word pair i % 2 of block i / 2.
// Updates the counter.
void PhiloxFill(uint64_t key, uint64_t counter[2], Literal& out) {
  const Words2 k = {Lo32(key), Hi32(key)};
  const int64_t n = out.element_count();
  const bool wide = BitWidth(out.shape().element_type()) == 64;
  const int64_t per_block = wide ? 2 : 4;
  const int64_t blocks = (n + per_block - 1) / per_block;
  for (int64_t b = 0; b < blocks; ++b) {
    uint64_t lo = counter[0] + static_cast<uint64_t>(b);
    uint64_t hi = counter[1] + (lo < counter[0] ? 1 : 0);
    Words4 w = Philox4x32({Lo32(lo), Hi32(lo), Lo32(hi), Hi32(hi)}, k);
    for (int64_t j = 0; j < per_block && b * per_block + j < n; ++j) {
      uint64_t v = wide ? Join32(w[2 * j], w[2 * j + 1]) : w[j];
      StoreBits(out, b * per_block + j, v);
    }
  }
  uint64_t lo = counter[0] + static_cast<uint64_t>(blocks);
  counter[1] += lo < counter[0] ? 1 : 0;
  counter[0] = lo;
}

absl::StatusOr<Literal> RngBitGeneratorHandler(const HloInstruction& inst, Operands ops,
                                               EvalContext&) {
  const Literal& state = *ops[0];
  const Shape& shape = inst.shape();
  if (!shape.IsTuple() || shape.tuple_size() != 2 || !shape.tuple_shapes(1).IsArray()) {
    return InvalidArgument("rng-bit-generator result must be (state, bits)");
  }
  const PrimitiveType st = state.shape().element_type();
  if ((st != PrimitiveType::U64 && st != PrimitiveType::S64) || state.shape().rank() != 1 ||
      state.element_count() < 2) {
    return InvalidArgument("rng-bit-generator state must be u64[n] with n >= 2, got ",
                           state.shape().ToString());
  }
  const Shape& bits_shape = shape.tuple_shapes(1);
  const PrimitiveType bt = bits_shape.element_type();
  if (IsComplex(bt) || IsPred(bt) || BitWidth(bt) > 64) return UnsupportedType(inst, bt);
  Literal bits(WithElementType(bits_shape, bt));
  Literal new_state = state;
  std::vector<uint64_t> s(state.element_count());
  std::memcpy(s.data(), state.raw_data().data(), s.size() * 8);
  RandomAlgorithm algorithm = inst.attrs<RngAttrs>().algorithm;
  if (algorithm == RandomAlgorithm::kThreeFry) {
    s[1] = ThreeFryFill(s[0], s[1], bits);
  } else {
    // A two-word state uses (state[1], state[0]) as its 128-bit counter and
    // keeps only the new low word, as XLA's expander does.
    uint64_t counter[2] = {s[1], s.size() >= 3 ? s[2] : s[0]};
    PhiloxFill(s[0], counter, bits);
    s[1] = counter[0];
    if (s.size() >= 3) s[2] = counter[1];
  }
  std::memcpy(new_state.mutable_raw_data().data(), s.data(), s.size() * 8);
  std::vector<Literal> elements;
  elements.push_back(std::move(new_state));
  elements.push_back(std::move(bits));
  return Literal::Tuple(std::move(elements));
}

// ------------------------------------------------------------ state

absl::StatusOr<Literal> RngGetAndUpdateStateHandler(const HloInstruction& inst, Operands,
                                                    EvalContext& ctx) {
  const Shape& shape = inst.shape();
  if (!shape.IsArray() || !IsInteger(shape.element_type())) {
    return InvalidArgument("rng-get-and-update-state result must be an integer array, got ",
                           shape.ToString());
  }
  Literal out(WithElementType(shape, shape.element_type()));
  uint64_t& counter = ctx.rng_state_counter();
  if (out.element_count() > 0) out.SetInt64(0, static_cast<int64_t>(counter));
  counter += static_cast<uint64_t>(inst.attrs<IntAttrs>().value);
  return out;
}

}  // namespace

void RegisterRngOps(OpHandlerTable& table) {
  table.Register(O::kRng, RngHandler);
  table.Register(O::kRngBitGenerator, RngBitGeneratorHandler);
  table.Register(O::kRngGetAndUpdateState, RngGetAndUpdateStateHandler);
}

}  // namespace xlite::eval
