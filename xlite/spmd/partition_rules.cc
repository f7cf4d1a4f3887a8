// Ops partitioned through their FactorRule (the rule propagation uses):
// elementwise, broadcast, transpose, reshape, slice/pad/concatenate on
// unsplit dims, dynamic-slice, dynamic-update-slice, gather (after the
// masked lookup of partition_gather.cc), scatter, sort.
// The local op runs on shards when every split dim of the result is carried
// exactly by the operands; operands are resharded to what the op needs,
// choosing by bytes between following the result's sharding and an
// operand's. Constants and iota (with per-partition offsets) live here too.
#include <algorithm>
#include <optional>

#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/ir/sharding_transforms.h"
#include "xlite/spmd/factor_rule.h"
#include "xlite/spmd/partition_halo.h"
#include "xlite/spmd/partition_util.h"
#include "xlite/spmd/partitioner_internal.h"

namespace xlite::spmd {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Result dims the op itself cannot compute on shards, beyond its rule's
// kNeedReplication factors: dims it slices, pads, reverses, concatenates,
// sorts, windows or updates in part; a reverse, the reversed dims `wanted` does not
// split evenly (even ones are exact with the tile order mirrored).
std::vector<int64_t> OpFixedDims(const HloInstruction& inst, const Shape& out,
                                 const HloSharding& wanted) {
  std::vector<int64_t> fixed;
  const int64_t rank = out.rank();
  const Shape& in = inst.operand(0)->shape();
  switch (inst.opcode()) {
    case HloOpcode::kSlice: {
      const SliceAttrs& a = inst.attrs<SliceAttrs>();
      for (int64_t d = 0; d < rank; ++d) {
        if (a.starts[d] != 0 || a.limits[d] != in.dimensions(d) || a.strides[d] != 1) {
          fixed.push_back(d);
        }
      }
      break;
    }
    case HloOpcode::kPad: {
      const PaddingConfig& p = inst.attrs<PadAttrs>().padding;
      for (int64_t d = 0; d < rank; ++d) {
        if (!(p[d] == PaddingDimension{})) fixed.push_back(d);
      }
      break;
    }
    case HloOpcode::kConcatenate:
    case HloOpcode::kSetDimensionSize:
      fixed = inst.dimensions();
      break;
    case HloOpcode::kReverse:
      for (int64_t d : inst.dimensions()) {
        if (out.dimensions(d) % TilesAlong(wanted, d) != 0) fixed.push_back(d);
      }
      break;
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter: {
      const Window& w = inst.attrs<WindowAttrs>().window;
      for (int64_t d = 0; d < rank && d < static_cast<int64_t>(w.size()); ++d) {
        if (!IsTrivialWindow(w[d])) fixed.push_back(d);
      }
      break;
    }
    case HloOpcode::kDynamicSlice:
      for (int64_t d = 0; d < rank; ++d) {
        if (out.dimensions(d) != in.dimensions(d)) fixed.push_back(d);
      }
      break;
    case HloOpcode::kDynamicUpdateSlice: {
      const Shape& update = inst.operand(1)->shape();
      for (int64_t d = 0; d < rank; ++d) {
        if (update.dimensions(d) != in.dimensions(d)) fixed.push_back(d);
      }
      break;
    }
    case HloOpcode::kSort:
      // Propagation keeps a split sort dim (XLA moves it when partitioning).
      fixed = inst.dimensions();
      break;
    case HloOpcode::kScatter: {
      // Operand dims the update windows do not cover whole.
      const ScatterDimensions& dn = inst.attrs<ScatterAttrs>().dims;
      const int64_t n = (inst.operand_count() - 1) / 2;
      const Shape& updates = inst.operand(n + 1)->shape();
      int64_t window = 0;
      for (int64_t d = 0; d < rank; ++d) {
        bool whole = false;
        if (!Contains(dn.inserted_window_dims, d) && !Contains(dn.input_batching_dims, d) &&
            window < static_cast<int64_t>(dn.update_window_dims.size())) {
          whole = updates.dimensions(dn.update_window_dims[window++]) == in.dimensions(d);
        }
        if (!whole) fixed.push_back(d);
      }
      break;
    }
    default:
      break;
  }
  return fixed;
}

bool HasFactor(const TensorFactors& tensor, int64_t factor) {
  for (const std::vector<int64_t>& dim : tensor) {
    if (Contains(dim, factor)) return true;
  }
  return false;
}

// Dims of `tensor` that cannot stay split: a kNeedReplication factor, or
// several factors and a split that does not divide the dim.
std::vector<int64_t> UnsplittableDims(const FactorRule& rule, const TensorFactors& tensor,
                                      const Shape& shape, const HloSharding& sharding) {
  std::vector<int64_t> fixed;
  for (int64_t d = 0; d < static_cast<int64_t>(tensor.size()); ++d) {
    bool bad = false;
    for (int64_t f : tensor[d]) bad = bad || rule.kinds[f] == FactorKind::kNeedReplication;
    const int64_t tiles = TilesAlong(sharding, d);
    if (tensor[d].size() > 1 && tiles > 1 && shape.dimensions(d) % tiles != 0) bad = true;
    if (bad) fixed.push_back(d);
  }
  return fixed;
}

HloSharding Unsplit(const HloSharding& sharding, const std::vector<int64_t>& dims) {
  if (!sharding.IsTiled() || dims.empty()) return sharding;
  return ForPartitioning(PartiallyReplicateDims(sharding, dims));
}

struct Candidate {
  HloSharding result;
  std::vector<HloSharding> operands;
  int64_t bytes = 0;
};

// The operand shardings under which the local op computes `wanted` (made
// computable first), or nullopt when some operand cannot carry it exactly.
std::optional<Candidate> Derive(const HloInstruction& inst, const FactorRule& rule,
                                const Shape& out, HloSharding wanted) {
  const TensorFactors& result_factors = rule.results[0];
  std::vector<int64_t> fixed = OpFixedDims(inst, out, wanted);
  for (int64_t d : UnsplittableDims(rule, result_factors, out, wanted)) fixed.push_back(d);
  // A result dim no related operand carries is computed whole, except the
  // dims a broadcast creates.
  if (inst.opcode() != HloOpcode::kBroadcast) {
    for (int64_t d = 0; d < out.rank(); ++d) {
      bool carried = false;
      for (const std::optional<TensorFactors>& operand : rule.operands) {
        if (!operand) continue;
        bool all = true;
        for (int64_t f : result_factors[d]) all = all && HasFactor(*operand, f);
        carried = carried || all;
      }
      if (!carried) fixed.push_back(d);
    }
  }
  Candidate c;
  c.result = Unsplit(ForPartitioning(wanted), fixed);
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Shape& shape = inst.operand(i)->shape();
    if (i >= static_cast<int64_t>(rule.operands.size()) || !rule.operands[i] || !shape.IsArray() ||
        !IsSplit(c.result)) {
      c.operands.push_back(ReplicatedLike(shape));
      continue;
    }
    const TensorFactors& operand_factors = *rule.operands[i];
    HloSharding needed =
        ForPartitioning(ProjectThrough(rule, result_factors, operand_factors, c.result));
    needed = Unsplit(needed, UnsplittableDims(rule, operand_factors, shape, needed));
    // Exact: the operand's shards give back the result's split on every
    // result dim the operand carries.
    std::vector<int64_t> not_carried;
    for (int64_t d = 0; d < out.rank(); ++d) {
      bool all = true;
      for (int64_t f : result_factors[d]) all = all && HasFactor(operand_factors, f);
      if (!all) not_carried.push_back(d);
    }
    HloSharding back =
        ForPartitioning(ProjectThrough(rule, operand_factors, result_factors, needed));
    if (!(back == Unsplit(c.result, not_carried))) return std::nullopt;
    c.operands.push_back(needed);
  }
  return c;
}

// Attributes that name sizes of dims now split: whole-dim slices and
// gathers take the local size.
void LocalizeSizes(const HloInstruction& original, HloInstruction& local) {
  const Shape& out = local.shape().IsTuple() ? local.shape().tuple_shapes(0) : local.shape();
  switch (local.opcode()) {
    case HloOpcode::kSlice: {
      SliceAttrs* a = local.mutable_attrs<SliceAttrs>();
      const Shape& in = local.operand(0)->shape();
      for (int64_t d = 0; d < out.rank(); ++d) {
        if (original.shape().dimensions(d) != out.dimensions(d)) {
          a->starts[d] = 0;
          a->limits[d] = in.dimensions(d);
          a->strides[d] = 1;
        }
      }
      break;
    }
    case HloOpcode::kDynamicSlice: {
      DynamicSliceAttrs* a = local.mutable_attrs<DynamicSliceAttrs>();
      for (int64_t d = 0; d < out.rank(); ++d) a->sizes[d] = out.dimensions(d);
      break;
    }
    case HloOpcode::kGather: {
      GatherAttrs* a = local.mutable_attrs<GatherAttrs>();
      const Shape& in = local.operand(0)->shape();
      for (int64_t d = 0; d < in.rank(); ++d)
        a->slice_sizes[d] = std::min(a->slice_sizes[d], in.dimensions(d));
      break;
    }
    default:
      break;
  }
}

absl::StatusOr<PValue> PartitionByRule(const HloInstruction& inst, PartitionState& s) {
  std::optional<FactorRule> rule = FactorRuleOf(inst);
  const bool cholesky_call =
      inst.opcode() == HloOpcode::kCustomCall && inst.attrs<CustomCallAttrs>().target == "Cholesky";
  if (!rule || rule->results.empty() || cholesky_call) {
    return PartitionReplicated(inst, s,
                               Cat("no partitioning rule for ", OpcodeName(inst.opcode())));
  }
  for (FactorKind kind : rule->kinds) {
    if (kind == FactorKind::kReduction) {
      return PartitionReplicated(inst, s, "reduction factors without a contraction rule");
    }
  }
  for (const TensorFactors& result : rule->results) {
    if (result != rule->results[0]) {
      return PartitionReplicated(inst, s, "result leaves with different dims");
    }
  }
  const Shape& out = inst.shape().IsTuple() ? inst.shape().tuple_shapes(0) : inst.shape();
  if (!out.IsArray() || static_cast<int64_t>(rule->results[0].size()) != out.rank()) {
    return PartitionReplicated(inst, s, "no array result");
  }
  const HloSharding target = s.TargetOf(inst);
  const HloSharding wanted = inst.shape().IsTuple() ? target.tuple_elements()[0] : target;

  // Candidates: the result's own sharding, then each split operand's.
  std::vector<HloSharding> proposals = {wanted};
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    if (i >= static_cast<int64_t>(rule->operands.size()) || !rule->operands[i]) continue;
    const PValue& v = s.Value(inst.operand(i));
    if (!v.global.IsArray() || !IsSplit(v.sharding)) continue;
    proposals.push_back(
        ForPartitioning(ProjectThrough(*rule, *rule->operands[i], rule->results[0], v.sharding)));
  }
  std::optional<Candidate> best;
  for (const HloSharding& proposal : proposals) {
    std::optional<Candidate> c = Derive(inst, *rule, out, proposal);
    if (!c) continue;
    for (int64_t i = 0; i < inst.operand_count(); ++i) {
      c->bytes += s.ReshardBytes(s.Value(inst.operand(i)), c->operands[i]);
    }
    c->bytes += s.ReshardBytes(c->result, wanted, out);
    if (!best || c->bytes < best->bytes) best = std::move(c);
  }
  if (!best) {
    return PartitionReplicated(
        inst, s,
        Cat("the sharding does not carry through ", OpcodeName(inst.opcode()), " exactly"));
  }
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    XLITE_ASSIGN_OR_RETURN(HloInstruction * local, s.OperandAs(inst, i, best->operands[i]));
    operands.push_back(local);
  }
  HloSharding result = best->result;
  if (inst.shape().IsTuple()) {
    result = HloSharding::Tuple(std::vector<HloSharding>(inst.shape().LeafCount(), result));
  }
  HloInstruction* local = s.Clone(inst, operands, ShardShape(inst.shape(), result));
  LocalizeSizes(inst, *local);
  return PValue{local, result, inst.shape()};
}

absl::StatusOr<PValue> PartitionConstant(const HloInstruction& inst, PartitionState& s) {
  return PValue{s.Clone(inst, {}, inst.shape()), ReplicatedLike(inst.shape()), inst.shape()};
}

// iota on shards: the local iota plus the shard's offset along the iota
// dimension.
absl::StatusOr<PValue> PartitionIota(const HloInstruction& inst, PartitionState& s) {
  const HloSharding target = s.TargetOf(inst);
  const Shape local_shape = ShardShape(inst.shape(), target);
  HloInstruction* iota = s.Clone(inst, {}, local_shape);
  const int64_t dim = inst.attrs<IntAttrs>().value;
  if (TilesAlong(target, dim) <= 1) return PValue{iota, target, inst.shape()};
  std::vector<int64_t> offsets;
  for (int64_t p = 0; p < s.num_partitions(); ++p) {
    offsets.push_back(TileRangeOf(target, inst.shape(), dim, p).start);
  }
  PartitionBuilder& b = s.b();
  HloInstruction* offset = b.Offset(s.c(), offsets);
  if (inst.shape().element_type() != PrimitiveType::S32) {
    offset = b.maker().Convert(s.c(), offset, inst.shape().element_type());
  }
  HloInstruction* shifted = b.maker().Binary(s.c(), HloOpcode::kAdd, iota,
                                             b.maker().Broadcast(s.c(), offset, local_shape, {}));
  return PValue{shifted, target, inst.shape()};
}

absl::StatusOr<PValue> PartitionWindowed(const HloInstruction& inst, PartitionState& s) {
  if (std::optional<absl::StatusOr<PValue>> halo = PartitionByHalo(inst, s)) {
    return *std::move(halo);
  }
  return PartitionByRule(inst, s);
}

absl::StatusOr<PValue> PartitionGather(const HloInstruction& inst, PartitionState& s) {
  if (std::optional<absl::StatusOr<PValue>> masked = PartitionGatherByMasking(inst, s)) {
    return *std::move(masked);
  }
  return PartitionByRule(inst, s);
}

}  // namespace

void RegisterRuleHandlers(PartitionHandlerTable& table) {
  for (int i = 0; i < kNumOpcodes; ++i) {
    const HloOpcode op = static_cast<HloOpcode>(i);
    if (IsElementwiseOpcode(op)) table.Register(op, PartitionByRule);
  }
  for (HloOpcode op :
       {HloOpcode::kBroadcast, HloOpcode::kReshape, HloOpcode::kBitcast, HloOpcode::kTranspose,
        HloOpcode::kConcatenate, HloOpcode::kReverse, HloOpcode::kMap, HloOpcode::kDynamicSlice,
        HloOpcode::kDynamicUpdateSlice, HloOpcode::kScatter, HloOpcode::kSort, HloOpcode::kTopK,
        HloOpcode::kBitcastConvert, HloOpcode::kCholesky, HloOpcode::kTriangularSolve,
        HloOpcode::kFft}) {
    table.Register(op, PartitionByRule);
  }
  for (HloOpcode op : {HloOpcode::kPad, HloOpcode::kSlice, HloOpcode::kReduceWindow,
                       HloOpcode::kSelectAndScatter}) {
    table.Register(op, PartitionWindowed);
  }
  table.Register(HloOpcode::kGather, PartitionGather);
  table.Register(HloOpcode::kConstant, PartitionConstant);
  table.Register(HloOpcode::kIota, PartitionIota);
}

}  // namespace xlite::spmd
