// Ops with reduction factors: dot, convolution and reduce. Each is seen as
// an iteration space with one dim per factor of its FactorRule; a sharding
// of that space fixes the operands' shardings, the local op computes
// partial results where reduction factors are split, and one all-reduce (a
// reduce-scatter when the result wants that dim split) over the devices
// that differ only along those factors completes them. Candidate spaces
// come from the result's and the operands' shardings; the cheapest in bytes
// wins. Padding of uneven split reduction dims is masked with the reducer's
// identity first.
#include <algorithm>
#include <optional>

#include "xlite/analysis/reduction_kind.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/ir/sharding_transforms.h"
#include "xlite/spmd/factor_rule.h"
#include "xlite/spmd/partition_halo.h"
#include "xlite/spmd/partition_util.h"
#include "xlite/spmd/partitioner_internal.h"
#include "xlite/spmd/reshard.h"

namespace xlite::spmd {
namespace {

struct Space {
  const FactorRule* rule = nullptr;
  TensorFactors iter;                 // one dim per factor
  Shape shape;                        // the factor sizes (element type irrelevant)
  std::vector<int64_t> reduction;     // factors of kind kReduction
  std::vector<int64_t> unsplittable;  // factors that must stay whole
};

Space MakeSpace(const FactorRule& rule) {
  Space space;
  space.rule = &rule;
  for (int64_t f = 0; f < static_cast<int64_t>(rule.factor_sizes.size()); ++f) {
    space.iter.push_back({f});
    if (rule.kinds[f] == FactorKind::kReduction) space.reduction.push_back(f);
    if (rule.kinds[f] == FactorKind::kNeedReplication) space.unsplittable.push_back(f);
  }
  space.shape = Shape(PrimitiveType::F32, rule.factor_sizes);
  return space;
}

HloSharding ToSpace(const Space& space, const TensorFactors& tensor, const HloSharding& s) {
  if (!s.IsTiled()) return HloSharding::Replicated();
  return ForPartitioning(ProjectThrough(*space.rule, tensor, space.iter, s));
}

HloSharding FromSpace(const Space& space, const TensorFactors& tensor, const HloSharding& c) {
  if (!c.IsTiled()) return HloSharding::Replicated();
  return ForPartitioning(ProjectThrough(*space.rule, space.iter, tensor, c));
}

// Candidate space shardings: each given sharding and every compatible merge
// of two or all of them, made computable (unsplittable factors whole).
std::vector<HloSharding> Proposals(const Space& space, const std::vector<HloSharding>& seeds) {
  std::vector<HloSharding> out;
  auto add = [&](const HloSharding& s) {
    HloSharding fixed = s;
    if (fixed.IsTiled() && !space.unsplittable.empty()) {
      fixed = ForPartitioning(PartiallyReplicateDims(fixed, space.unsplittable));
    }
    if (std::find(out.begin(), out.end(), fixed) == out.end()) out.push_back(fixed);
  };
  if (seeds.size() >= 2) {
    std::optional<HloSharding> all = seeds[0];
    for (size_t i = 1; all && i < seeds.size(); ++i) all = MergeShardings(*all, seeds[i]);
    if (all) add(*all);
    for (size_t i = 0; i < seeds.size(); ++i) {
      for (size_t j = i + 1; j < seeds.size(); ++j) {
        if (auto merged = MergeShardings(seeds[i], seeds[j])) add(*merged);
      }
    }
  }
  for (const HloSharding& s : seeds) add(s);
  add(HloSharding::Replicated());
  return out;
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool SplitsAny(const HloSharding& c, const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    if (TilesAlong(c, d) > 1) return true;
  }
  return false;
}

// Masks the padding of `local` (a shard of `global` under `sharding`) along
// `dim` with `value` when the dim is split unevenly.
HloInstruction* MaskUneven(PartitionState& s, HloInstruction* local, const HloSharding& sharding,
                           const Shape& global, int64_t dim, const Literal& value) {
  const int64_t tiles = TilesAlong(sharding, dim);
  if (tiles <= 1 || global.dimensions(dim) % tiles == 0) return local;
  std::vector<int64_t> offsets;
  for (int64_t p = 0; p < s.num_partitions(); ++p) {
    offsets.push_back(TileRangeOf(sharding, global, dim, p).start);
  }
  return s.b().MaskBeyond(s.c(), local, dim, s.b().Offset(s.c(), offsets), global.dimensions(dim),
                          value);
}

// Completes partial results `local` (natural sharding `natural` once
// reduced over `groups`) as the target `target` wants them: a
// reduce-scatter when the target splits a dim the groups can scatter, else
// an all-reduce.
PValue AllReduceInto(PartitionState& s, const HloInstruction& inst, HloInstruction* local,
                     const DeviceGroups& groups, HloComputation* reducer,
                     const HloSharding& natural, const HloSharding& target, const Shape& global,
                     std::string reason) {
  const int64_t n = s.num_partitions();
  const int64_t g = static_cast<int64_t>(groups.front().size());
  Cause cause{&inst, natural, &inst, target, std::move(reason)};
  for (int64_t d = 0; target.IsTiled() && d < global.rank(); ++d) {
    if (TilesAlong(natural, d) != 1 || TilesAlong(target, d) != g) continue;
    bool other_dims_agree = true;
    for (int64_t e = 0; other_dims_agree && e < global.rank(); ++e) {
      if (e == d) continue;
      for (int64_t p = 0; p < n; ++p) {
        const TileRange a = TileRangeOf(natural, global, e, p);
        const TileRange b = TileRangeOf(target, global, e, p);
        if (a.start != b.start || a.size != b.size) other_dims_agree = false;
      }
    }
    if (!other_dims_agree) continue;
    // Each group holds every tile of d once: order it by that tile.
    DeviceGroups ordered;
    bool scatterable = true;
    for (const std::vector<int64_t>& group : groups) {
      std::vector<int64_t> by_tile(g, -1);
      for (int64_t p : group) {
        const int64_t tile = TileIndexOf(target, p)[d];
        if (tile < 0 || tile >= g || by_tile[tile] >= 0) scatterable = false;
        if (scatterable) by_tile[tile] = p;
      }
      if (!scatterable) break;
      ordered.push_back(by_tile);
    }
    if (!scatterable) continue;
    const int64_t tile = (global.dimensions(d) + g - 1) / g;
    std::vector<int64_t> high(global.rank(), 0);
    high[d] = tile * g - local->shape().dimensions(d);
    HloInstruction* padded = s.b().PadHigh(s.c(), local, high);
    cause.needed = target;
    HloInstruction* scattered = s.b().ReduceScatter(s.c(), padded, d, ordered, reducer, cause);
    return PValue{scattered, target, global};
  }
  cause.needed = natural;
  return PValue{s.b().AllReduce(s.c(), local, groups, reducer, cause), natural, global};
}

struct Choice {
  HloSharding space;
  std::vector<HloSharding> operands;
  HloSharding natural;
  int64_t bytes = 0;
};

// The cheapest space sharding for `inst`: operands `related` (in rule
// order) move to their projections, the result moves from its natural
// sharding to `wanted`, split reduction factors cost an all-reduce.
Choice Choose(PartitionState& s, const HloInstruction& inst, const Space& space,
              const std::vector<int64_t>& related, const TensorFactors& result_factors,
              const Shape& out, const HloSharding& wanted,
              const std::vector<HloSharding>& proposals) {
  std::optional<Choice> best;
  const Shape local_probe = out;
  for (const HloSharding& c : proposals) {
    Choice choice;
    choice.space = c;
    for (int64_t i : related) {
      HloSharding need = FromSpace(space, *space.rule->operands[i], c);
      choice.bytes += s.ReshardBytes(s.Value(inst.operand(i)), need);
      choice.operands.push_back(std::move(need));
    }
    choice.natural = FromSpace(space, result_factors, c);
    if (SplitsAny(c, space.reduction)) {
      choice.bytes += ShardShape(local_probe, choice.natural).ByteSizeOf();
    }
    choice.bytes += s.ReshardBytes(choice.natural, wanted, out);
    if (!best || choice.bytes < best->bytes) best = std::move(choice);
  }
  return *best;
}

absl::StatusOr<PValue> PartitionDotLike(const HloInstruction& inst, PartitionState& s) {
  if (inst.opcode() == HloOpcode::kDot && !inst.attrs<DotAttrs>().sparsity.empty()) {
    return PartitionReplicated(inst, s, "sparse dot");
  }
  std::optional<FactorRule> rule = FactorRuleOf(inst);
  if (!rule) return PartitionReplicated(inst, s, "no rule");
  Space space = MakeSpace(*rule);
  if (inst.opcode() == HloOpcode::kConvolution) {
    const ConvolutionAttrs& conv = inst.attrs<ConvolutionAttrs>();
    // Split true spatial dims exchange halos (an empty window or result
    // stays whole); a spatial dim the rule reads as a dot dim (a window
    // spanning the input: batch, contracting, rhs non-contracting) stays
    // whole; grouped convolutions keep only the spatial and batch splits.
    const ConvDimensions& dn = conv.dims;
    const TensorFactors& lhs = *rule->operands[0];
    const TensorFactors& rhs = *rule->operands[1];
    const TensorFactors& result = rule->results[0];
    std::vector<int64_t> spatial;
    for (size_t i = 0; i < dn.input_spatial.size(); ++i) {
      const int64_t f = lhs[dn.input_spatial[i]][0];
      const bool windowed =
          result[dn.output_spatial[i]][0] == f && rhs[dn.kernel_spatial[i]][0] != f;
      if (!windowed) {
        for (const std::vector<int64_t>& dim :
             {lhs[dn.input_spatial[i]], rhs[dn.kernel_spatial[i]], result[dn.output_spatial[i]]}) {
          space.unsplittable.push_back(dim[0]);
        }
        continue;
      }
      spatial.push_back(f);
      if (i >= conv.window.size() || conv.window[i].size < 1 ||
          inst.shape().dimensions(dn.output_spatial[i]) == 0) {
        space.unsplittable.push_back(f);
      }
    }
    if (conv.feature_group_count != 1 || conv.batch_group_count != 1) {
      for (int64_t f = 0; f < static_cast<int64_t>(rule->factor_sizes.size()); ++f) {
        const bool batch = f == lhs[dn.input_batch][0] && conv.batch_group_count == 1;
        if (!batch && !Contains(spatial, f)) space.unsplittable.push_back(f);
      }
    }
  }
  const HloSharding wanted = s.TargetOf(inst);
  const Shape& out = inst.shape();
  const TensorFactors& result_factors = rule->results[0];
  std::vector<HloSharding> seeds = {ToSpace(space, result_factors, wanted)};
  for (int64_t i = 0; i < 2; ++i) {
    seeds.push_back(ToSpace(space, *rule->operands[i], s.Value(inst.operand(i)).sharding));
  }
  Choice choice =
      Choose(s, inst, space, {0, 1}, result_factors, out, wanted, Proposals(space, seeds));
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < 2; ++i) {
    XLITE_ASSIGN_OR_RETURN(HloInstruction * local, s.OperandAs(inst, i, choice.operands[i]));
    // Uneven split contracting dims: zero both sides' padding.
    const TensorFactors& dims = *rule->operands[i];
    const Shape& global = inst.operand(i)->shape();
    Literal zero(Shape::Scalar(global.element_type()));
    for (int64_t d = 0; d < global.rank(); ++d) {
      if (rule->kinds[dims[d][0]] == FactorKind::kReduction) {
        local = MaskUneven(s, local, choice.operands[i], global, d, zero);
      }
    }
    operands.push_back(local);
  }
  Window window;
  if (inst.opcode() == HloOpcode::kConvolution) {
    window = inst.attrs<ConvolutionAttrs>().window;
    operands[0] = ConvolutionInputByHalo(s, inst, choice.operands[0], operands[0], window);
  }
  HloInstruction* local = s.Clone(inst, operands, ShardShape(out, choice.natural));
  if (inst.opcode() == HloOpcode::kConvolution) {
    local->mutable_attrs<ConvolutionAttrs>()->window = window;
  }
  if (!SplitsAny(choice.space, space.reduction)) return PValue{local, choice.natural, out};
  DeviceGroups groups = GroupsAlong(choice.space, space.reduction, s.num_partitions());
  HloComputation* add = s.b().Reducer(ReductionKind::kAdd, out.element_type());
  return AllReduceInto(s, inst, local, groups, add, choice.natural, wanted, out,
                       Cat(OpcodeName(inst.opcode()), " contracting dims split"));
}

bool IsConstantEqual(const HloInstruction& inst, const Literal& value) {
  return inst.opcode() == HloOpcode::kConstant && inst.literal() == value;
}

absl::StatusOr<PValue> PartitionReduce(const HloInstruction& inst, PartitionState& s) {
  std::optional<FactorRule> rule = FactorRuleOf(inst);
  if (!rule) return PartitionReplicated(inst, s, "no rule");
  const int64_t inputs = inst.operand_count() / 2;
  Space space = MakeSpace(*rule);
  const Shape& out0 = inst.shape().IsTuple() ? inst.shape().tuple_shapes(0) : inst.shape();
  const PrimitiveType type = inst.operand(0)->shape().element_type();
  std::optional<ReductionKind> kind = MatchReductionKind(*inst.to_apply());
  std::optional<Literal> identity;
  if (kind) identity = ReductionIdentity(*kind, type);
  // Only a single-input reduce with a known reducer completes across
  // devices; otherwise the reduced dims are gathered first.
  if (inputs != 1 || !identity) {
    for (int64_t f : space.reduction) space.unsplittable.push_back(f);
  }
  const HloSharding target = s.TargetOf(inst);
  const HloSharding wanted = inst.shape().IsTuple() ? target.tuple_elements()[0] : target;
  const TensorFactors& result_factors = rule->results[0];
  std::vector<HloSharding> seeds = {ToSpace(space, result_factors, wanted)};
  for (int64_t i = 0; i < inputs; ++i) {
    seeds.push_back(ToSpace(space, *rule->operands[i], s.Value(inst.operand(i)).sharding));
  }
  std::vector<int64_t> related;
  for (int64_t i = 0; i < inputs; ++i) related.push_back(i);
  Choice choice =
      Choose(s, inst, space, related, result_factors, out0, wanted, Proposals(space, seeds));
  const bool split_reduction = SplitsAny(choice.space, space.reduction);
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < inputs; ++i) {
    XLITE_ASSIGN_OR_RETURN(HloInstruction * local, s.OperandAs(inst, i, choice.operands[i]));
    if (split_reduction) {
      for (int64_t d : inst.dimensions()) {
        local = MaskUneven(s, local, choice.operands[i], inst.operand(i)->shape(), d, *identity);
      }
    }
    operands.push_back(local);
  }
  for (int64_t i = inputs; i < inst.operand_count(); ++i) {
    if (split_reduction) {
      operands.push_back(s.b().maker().Constant(s.c(), *identity));
    } else {
      XLITE_ASSIGN_OR_RETURN(HloInstruction * init,
                             s.OperandAs(inst, i, HloSharding::Replicated(), "init value"));
      operands.push_back(init);
    }
  }
  HloSharding natural = choice.natural;
  if (inst.shape().IsTuple()) {
    natural = HloSharding::Tuple(std::vector<HloSharding>(inst.shape().LeafCount(), natural));
  }
  HloInstruction* local = s.Clone(inst, operands, ShardShape(inst.shape(), natural));
  if (!split_reduction) return PValue{local, natural, inst.shape()};
  DeviceGroups groups = GroupsAlong(choice.space, space.reduction, s.num_partitions());
  PValue reduced = AllReduceInto(s, inst, local, groups, inst.to_apply(), choice.natural, wanted,
                                 out0, "reduced dims split");
  // The local reduces started from the identity; fold in the real init.
  const HloInstruction* init = inst.operand(1);
  if (!IsConstantEqual(*init, *identity)) {
    XLITE_ASSIGN_OR_RETURN(HloInstruction * init_local,
                           s.OperandAs(inst, 1, HloSharding::Replicated(), "init value"));
    InstructionMaker& m = s.b().maker();
    HloInstruction* spread = m.Broadcast(s.c(), init_local, reduced.local->shape(), {});
    reduced.local = m.Binary(s.c(), ReductionOpcode(*kind), reduced.local, spread);
  }
  return reduced;
}

}  // namespace

void RegisterContractionHandlers(PartitionHandlerTable& table) {
  table.Register(HloOpcode::kDot, PartitionDotLike);
  table.Register(HloOpcode::kConvolution, PartitionDotLike);
  table.Register(HloOpcode::kReduce, PartitionReduce);
}

}  // namespace xlite::spmd
