#include "xlite/passes/dot_decomposer.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xlite/passes/instruction_maker.h"

namespace xlite {
namespace {

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

// Dimensions of `rank` that are neither batch nor contracting, ascending.
std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

// Canonical: batch dims are the leading ones on both sides, and then exactly
// one lhs free dim followed by one contracting dim ([B..., M, K]) and one
// contracting dim followed by one rhs free dim ([B..., K, N]).
bool IsCanonical(const HloInstruction& dot) {
  const DotDimensions& d = dot.attrs<DotAttrs>().dims;
  const int64_t nb = static_cast<int64_t>(d.lhs_batch.size());
  const std::vector<int64_t> batch = Iota(nb);
  return d.lhs_batch == batch && d.rhs_batch == batch && dot.operand(0)->shape().rank() == nb + 2 &&
         dot.operand(1)->shape().rank() == nb + 2 &&
         d.lhs_contracting == std::vector<int64_t>{nb + 1} &&
         d.rhs_contracting == std::vector<int64_t>{nb};
}

int64_t Product(const Shape& shape, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= shape.dimensions(d);
  return p;
}

// `x` transposed by `perm` (nothing when `perm` is the identity) and then
// reshaped to `dims` (nothing when the dimensions already match).
HloInstruction* Arrange(InstructionMaker& make, HloComputation& c, HloInstruction* x,
                        const std::vector<int64_t>& perm, const std::vector<int64_t>& dims) {
  const Shape& in = x->shape();
  if (perm != Iota(in.rank())) {
    std::vector<int64_t> permuted;
    for (int64_t p : perm) permuted.push_back(in.dimensions(p));
    x = make.Add(c, HloOpcode::kTranspose, Shape(in.element_type(), permuted), {x});
    x->set_dimensions(perm);
  }
  const absl::Span<const int64_t> now = x->shape().dimensions();
  if (!std::equal(now.begin(), now.end(), dims.begin(), dims.end())) {
    x = make.Reshape(c, x, Shape(in.element_type(), dims));
  }
  return x;
}

void Concat(std::vector<int64_t>& to, const std::vector<int64_t>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

HloInstruction* Decompose(InstructionMaker& make, HloComputation& c, HloInstruction* dot) {
  const DotAttrs& attrs = dot->attrs<DotAttrs>();
  const DotDimensions& d = attrs.dims;
  HloInstruction* lhs = dot->operand(0);
  HloInstruction* rhs = dot->operand(1);
  const Shape& ls = lhs->shape();
  const Shape& rs = rhs->shape();
  const std::vector<int64_t> lhs_free = FreeDims(ls.rank(), d.lhs_batch, d.lhs_contracting);
  const std::vector<int64_t> rhs_free = FreeDims(rs.rank(), d.rhs_batch, d.rhs_contracting);
  std::vector<int64_t> batch_sizes;
  for (int64_t b : d.lhs_batch) batch_sizes.push_back(ls.dimensions(b));
  // Contracting dims keep their listed order, so the flattened K runs through
  // the products in the same order as the original dot sums them.
  const int64_t m = Product(ls, lhs_free), k = Product(ls, d.lhs_contracting),
                n = Product(rs, rhs_free);

  std::vector<int64_t> lhs_perm = d.lhs_batch, rhs_perm = d.rhs_batch;
  Concat(lhs_perm, lhs_free);
  Concat(lhs_perm, d.lhs_contracting);
  Concat(rhs_perm, d.rhs_contracting);
  Concat(rhs_perm, rhs_free);
  std::vector<int64_t> lhs_dims = batch_sizes, rhs_dims = batch_sizes, out_dims = batch_sizes;
  Concat(lhs_dims, {m, k});
  Concat(rhs_dims, {k, n});
  Concat(out_dims, {m, n});

  auto canonical = std::make_unique<DotAttrs>();
  const int64_t nb = static_cast<int64_t>(batch_sizes.size());
  canonical->dims.lhs_batch = Iota(nb);
  canonical->dims.rhs_batch = Iota(nb);
  canonical->dims.lhs_contracting = {nb + 1};
  canonical->dims.rhs_contracting = {nb};
  canonical->precision = attrs.precision;
  HloInstruction* new_dot = make.Clone(
      c, *dot,
      {Arrange(make, c, lhs, lhs_perm, lhs_dims), Arrange(make, c, rhs, rhs_perm, rhs_dims)});
  new_dot->set_attrs(std::move(canonical));
  const absl::Span<const int64_t> dims = dot->shape().dimensions();
  if (std::equal(dims.begin(), dims.end(), out_dims.begin(), out_dims.end())) return new_dot;
  *new_dot->mutable_shape() = Shape(dot->shape().element_type(), out_dims);
  // The result is [batch, lhs free, rhs free] in row-major order either way.
  return make.Reshape(c, new_dot, dot->shape());
}

}  // namespace

absl::StatusOr<bool> DotDecomposerPass::Run(HloModule& module) {
  InstructionMaker make(module);
  bool changed = false;
  for (const auto& computation : module.computations()) {
    HloComputation& c = *computation;
    std::vector<HloInstruction*> dots;
    for (const auto& inst : c.instructions()) {
      // Sharded dots would need their sharding rewritten for the new shapes;
      // they, and dynamic shapes, are left alone.
      if (inst->opcode() != HloOpcode::kDot || IsCanonical(*inst) || inst->has_sharding() ||
          !inst->control_predecessors().empty() || !inst->control_successors().empty() ||
          !inst->shape().is_static() || !inst->operand(0)->shape().is_static() ||
          !inst->operand(1)->shape().is_static()) {
        continue;
      }
      dots.push_back(inst.get());
    }
    for (HloInstruction* dot : dots) {
      HloInstruction* replacement = Decompose(make, c, dot);
      dot->ReplaceAllUsesWith(replacement);
      changed = true;
    }
    if (!dots.empty()) {
      const absl::flat_hash_set<const HloInstruction*> dead(dots.begin(), dots.end());
      c.RemoveInstructionsIf([&](const HloInstruction* i) { return dead.contains(i); });
    }
  }
  make.Finish();
  return changed;
}

}  // namespace xlite
