// FactorRuleOf: the one per-op place that says how dims relate. Elementwise
// ops come from opcodes.def's property bits; every other family has a case.
#include <algorithm>
#include <array>
#include <string_view>

#include "xlite/ir/lapack/lapack_targets.h"
#include "xlite/spmd/factor_rule.h"

namespace xlite::spmd {
namespace {

// Builds a rule: factors are created per dim and reused across tensors.
class RuleBuilder {
 public:
  explicit RuleBuilder(std::string_view name) { rule_.name = name; }

  int64_t Factor(int64_t size, FactorKind kind = FactorKind::kPassThrough) {
    rule_.factor_sizes.push_back(size);
    rule_.kinds.push_back(kind);
    return static_cast<int64_t>(rule_.factor_sizes.size()) - 1;
  }
  // A fresh factor for every dim of `shape`.
  TensorFactors Fresh(const Shape& shape, FactorKind kind = FactorKind::kPassThrough) {
    TensorFactors t;
    for (int64_t d : shape.dimensions()) t.push_back({Factor(d, kind)});
    return t;
  }
  // Dims of `shape` sharing `like`'s factors dim by dim where the sizes agree
  // (or `any_size`), else fresh factors of kind `mismatch`.
  TensorFactors Same(const Shape& shape, const Shape& like_shape, const TensorFactors& like,
                     bool any_size, FactorKind mismatch = FactorKind::kNeedReplication) {
    TensorFactors t;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      const bool share = d < static_cast<int64_t>(like.size()) && like[d].size() == 1 &&
                         (any_size || shape.dimensions(d) == like_shape.dimensions(d));
      t.push_back(share ? like[d] : std::vector<int64_t>{Factor(shape.dimensions(d), mismatch)});
    }
    return t;
  }
  void Operand(std::optional<TensorFactors> dims, int64_t result = -1) {
    rule_.operands.push_back(std::move(dims));
    rule_.result_of_operand.push_back(result);
  }
  void Result(TensorFactors dims) { rule_.results.push_back(std::move(dims)); }
  void Levels(int forward, int backward) {
    rule_.min_aggressiveness_forward = forward;
    rule_.min_aggressiveness_backward = backward;
  }
  FactorRule& rule() { return rule_; }
  FactorRule Take() { return std::move(rule_); }

 private:
  FactorRule rule_;
};

// XLA propagates through these at the lowest aggressiveness (pass-through
// ops); the rest wait for level 1, broadcast for 2 (3 forward).
// Concatenate and the dynamic slices pass forward at level 0 only under the
// propagator's level-0 guard (XLA's first-iteration restrictions) and take
// nothing from users before level 1.
bool IsPassThroughOpcode(HloOpcode op) {
  switch (op) {
    case HloOpcode::kTranspose:
    case HloOpcode::kReshape:
      return true;
    default:
      return false;
  }
}

bool IsGuardedAtLevel0(HloOpcode op) {
  return op == HloOpcode::kConcatenate || op == HloOpcode::kDynamicSlice ||
         op == HloOpcode::kDynamicUpdateSlice;
}

// Every operand and the result share their dims (operands of lower rank,
// the scalar pred/bounds of select/clamp, are not related).
FactorRule Identity(const HloInstruction& inst, std::string_view name, bool any_size) {
  RuleBuilder b(name);
  const Shape& shape = inst.shape().IsTuple() ? inst.operand(0)->shape() : inst.shape();
  TensorFactors result = b.Fresh(shape);
  for (const HloInstruction* operand : inst.operands()) {
    if (!operand->shape().IsArray() || operand->shape().rank() != shape.rank()) {
      b.Operand(std::nullopt);
    } else {
      b.Operand(b.Same(operand->shape(), shape, result, any_size));
    }
  }
  if (inst.shape().IsTuple()) {
    for (size_t i = 0; i < inst.shape().tuple_shapes().size(); ++i) {
      const Shape& leaf = inst.shape().tuple_shapes()[i];
      b.Result(leaf.IsArray() && leaf.rank() == shape.rank() ? b.Same(leaf, shape, result, any_size)
                                                             : b.Fresh(leaf));
    }
  } else {
    b.Result(result);
  }
  int level = IsElementwiseOpcode(inst.opcode()) || IsPassThroughOpcode(inst.opcode()) ||
                      IsPassThroughCustomCall(inst)
                  ? 0
                  : 1;
  b.Levels(IsGuardedAtLevel0(inst.opcode()) ? 0 : level, level);
  return b.Take();
}

FactorRule Broadcast(const HloInstruction& inst) {
  RuleBuilder b("broadcast");
  TensorFactors result = b.Fresh(inst.shape());
  TensorFactors operand;
  const std::vector<int64_t>& dims = inst.dimensions();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (inst.operand(0)->shape().dimensions(i) == inst.shape().dimensions(dims[i])) {
      operand.push_back(result[dims[i]]);
    } else {
      operand.push_back({b.Factor(inst.operand(0)->shape().dimensions(i))});
    }
  }
  b.Operand(operand);
  b.Result(result);
  b.Levels(3, 2);
  return b.Take();
}

FactorRule Reshape(const HloInstruction& inst, std::string_view name) {
  RuleBuilder b(name);
  FactorMapping m =
      ReshapeFactors(inst.operand(0)->shape().dimensions(), inst.shape().dimensions());
  for (int64_t size : m.factor_sizes) b.Factor(size);
  b.Operand(m.source_dims);
  b.Result(m.target_dims);
  b.Levels(inst.opcode() == HloOpcode::kReshape ? 0 : 1,
           inst.opcode() == HloOpcode::kReshape ? 0 : 1);
  return b.Take();
}

FactorRule Transpose(const HloInstruction& inst) {
  RuleBuilder b("transpose");
  TensorFactors operand = b.Fresh(inst.operand(0)->shape());
  TensorFactors result;
  for (int64_t d : inst.dimensions()) result.push_back(operand[d]);
  b.Operand(operand);
  b.Result(result);
  b.Levels(0, 0);
  return b.Take();
}

// Reduce (variadic): every input and every result share the kept dims (XLA
// gives all inputs of a variadic reduce, and all its results, one sharding:
// an argmax's iota takes the values' sharding); reduced dims are reduction
// factors; init values are not related.
FactorRule Reduce(const HloInstruction& inst) {
  RuleBuilder b("reduce");
  const int64_t n = inst.operand_count() / 2;
  const Shape& in = inst.operand(0)->shape();
  TensorFactors input;
  TensorFactors kept;
  for (int64_t d = 0; d < in.rank(); ++d) {
    const bool reduced =
        std::find(inst.dimensions().begin(), inst.dimensions().end(), d) != inst.dimensions().end();
    const int64_t f =
        b.Factor(in.dimensions(d), reduced ? FactorKind::kReduction : FactorKind::kPassThrough);
    input.push_back({f});
    if (!reduced) kept.push_back({f});
  }
  for (int64_t i = 0; i < n; ++i) b.Operand(input);
  for (int64_t i = 0; i < n; ++i) b.Operand(std::nullopt);
  for (int64_t i = 0; i < n; ++i) b.Result(kept);
  return b.Take();
}

FactorRule Dot(const HloInstruction& inst) {
  RuleBuilder b("dot");
  const DotDimensions& dn = inst.attrs<DotAttrs>().dims;
  const Shape& lhs = inst.operand(0)->shape();
  const Shape& rhs = inst.operand(1)->shape();
  TensorFactors l(lhs.rank()), r(rhs.rank()), out;
  for (size_t i = 0; i < dn.lhs_batch.size(); ++i) {
    const int64_t f = b.Factor(lhs.dimensions(dn.lhs_batch[i]));
    l[dn.lhs_batch[i]] = {f};
    r[dn.rhs_batch[i]] = {f};
    out.push_back({f});
  }
  for (size_t i = 0; i < dn.lhs_contracting.size(); ++i) {
    const int64_t f = b.Factor(lhs.dimensions(dn.lhs_contracting[i]), FactorKind::kReduction);
    l[dn.lhs_contracting[i]] = {f};
    r[dn.rhs_contracting[i]] = {f};
  }
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (l[d].empty()) {
      l[d] = {b.Factor(lhs.dimensions(d))};
      out.push_back(l[d]);
    }
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (r[d].empty()) {
      r[d] = {b.Factor(rhs.dimensions(d))};
      out.push_back(r[d]);
    }
  }
  b.Operand(l);
  b.Operand(r);
  for (int64_t i = 2; i < inst.operand_count(); ++i) b.Operand(std::nullopt);  // sparsity meta
  b.Result(out);
  // XLA tries the larger operand first.
  const int64_t larger = lhs.ElementCount() >= rhs.ElementCount() ? 0 : 1;
  b.rule().forward_order = {larger, 1 - larger};
  b.rule().merge_backward_from = {{1}, {0}};
  return b.Take();
}

// How a convolution spatial dim behaves (XLA's ParseConvolutionDimsInfo):
// a dot dim written as a window, or a true spatial dim.
enum class ConvSpatialRole : uint8_t {
  kBatch,              // window B, base dilation B, stride (or dilation) B-1
  kContracting,        // window covers the whole lhs dim, one window
  kLhsNonContracting,  // window 1 over a size-1 kernel dim
  kRhsNonContracting,  // size-1 lhs dim, full reversed padded kernel
  kSpatial,
};

ConvSpatialRole RoleOf(int64_t lhs_size, int64_t rhs_size, const WindowDimension& w) {
  const bool unpadded = w.padding_low == 0 && w.padding_high == 0 && !w.window_reversal;
  const int64_t step = std::max<int64_t>(1, lhs_size - 1);
  if (lhs_size == w.size && lhs_size == w.base_dilation && unpadded &&
      ((w.stride == step && w.window_dilation == 1) ||
       (w.window_dilation == step && w.stride == 1))) {
    return ConvSpatialRole::kBatch;
  }
  if (lhs_size == w.size && w.base_dilation == 1 && w.window_dilation == 1 && unpadded) {
    return ConvSpatialRole::kContracting;
  }
  if (w.stride != 1 || w.window_dilation != 1 || w.base_dilation != 1) {
    return ConvSpatialRole::kSpatial;
  }
  if (rhs_size == 1 && w.size == 1 && unpadded) return ConvSpatialRole::kLhsNonContracting;
  if (lhs_size == 1 && w.size == rhs_size && w.padding_low == rhs_size - 1 &&
      w.padding_high == rhs_size - 1 && w.window_reversal) {
    return ConvSpatialRole::kRhsNonContracting;
  }
  return ConvSpatialRole::kSpatial;
}

// Convolution as a dot: batch passes through lhs <-> output, input feature
// contracts with the kernel's input feature, the kernel's output feature is
// the output feature; each spatial dim by its role (a dot dim written as a
// window relates as that dot dim; a true spatial dim passes lhs <-> output
// and the kernel's spatial dim relates to nothing).
FactorRule Convolution(const HloInstruction& inst) {
  RuleBuilder b("convolution");
  const ConvolutionAttrs& attrs = inst.attrs<ConvolutionAttrs>();
  const ConvDimensions& dn = attrs.dims;
  const Shape& lhs = inst.operand(0)->shape();
  const Shape& rhs = inst.operand(1)->shape();
  const Shape& out_shape = inst.shape();
  TensorFactors l(lhs.rank()), r(rhs.rank()), out(out_shape.rank());
  const int64_t batch = b.Factor(lhs.dimensions(dn.input_batch));
  l[dn.input_batch] = {batch};
  out[dn.output_batch] = {batch};
  const int64_t contract = b.Factor(lhs.dimensions(dn.input_feature), FactorKind::kReduction);
  l[dn.input_feature] = {contract};
  r[dn.kernel_input_feature] = {contract};
  const int64_t feature = b.Factor(rhs.dimensions(dn.kernel_output_feature));
  r[dn.kernel_output_feature] = {feature};
  out[dn.output_feature] = {feature};
  for (size_t i = 0; i < dn.input_spatial.size(); ++i) {
    const int64_t ld = dn.input_spatial[i], rd = dn.kernel_spatial[i], od = dn.output_spatial[i];
    const int64_t lhs_size = lhs.dimensions(ld), rhs_size = rhs.dimensions(rd);
    const ConvSpatialRole role = i < attrs.window.size()
                                     ? RoleOf(lhs_size, rhs_size, attrs.window[i])
                                     : ConvSpatialRole::kSpatial;
    switch (role) {
      case ConvSpatialRole::kBatch:
        l[ld] = r[rd] = out[od] = {b.Factor(lhs_size)};
        break;
      case ConvSpatialRole::kContracting:
        l[ld] = r[rd] = {b.Factor(lhs_size, FactorKind::kReduction)};
        out[od] = {b.Factor(out_shape.dimensions(od))};
        break;
      case ConvSpatialRole::kRhsNonContracting:
        l[ld] = {b.Factor(lhs_size)};
        r[rd] = out[od] = {b.Factor(rhs_size)};
        break;
      case ConvSpatialRole::kLhsNonContracting:
      case ConvSpatialRole::kSpatial:
        l[ld] = out[od] = {b.Factor(lhs_size)};
        r[rd] = {b.Factor(rhs_size, FactorKind::kNeedReplication)};
        break;
    }
  }
  b.Operand(l);
  b.Operand(r);
  b.Result(out);
  const int64_t larger = lhs.ElementCount() >= rhs.ElementCount() ? 0 : 1;
  b.rule().forward_order = {larger, 1 - larger};
  b.rule().merge_backward_from = {{1}, {0}};
  return b.Take();
}

// Sort (variadic) and topk: every dim passes through. A sort keeps a split sort dim, as XLA's
// propagation does (the propagator takes it only where another dim is free to move the split into,
// the partitioner does not split it); topk's dim must be replicated.
FactorRule SortLike(const HloInstruction& inst, int64_t sort_dim) {
  const bool sort = inst.opcode() == HloOpcode::kSort;
  RuleBuilder b(sort ? "sort" : "topk");
  const Shape& in = inst.operand(0)->shape();
  TensorFactors dims;
  for (int64_t d = 0; d < in.rank(); ++d) {
    dims.push_back({b.Factor(in.dimensions(d), d == sort_dim && !sort ? FactorKind::kNeedReplication
                                                                      : FactorKind::kPassThrough)});
  }
  // A sort orders all its operands alike: they and its results share one
  // sharding (XLA's single tuple sharding); topk's values and indices come
  // from its one operand.
  for (int64_t i = 0; i < inst.operand_count(); ++i) b.Operand(dims, sort ? -1 : i);
  if (inst.shape().IsTuple()) {
    for (const Shape& leaf : inst.shape().tuple_shapes()) b.Result(b.Same(leaf, in, dims, true));
  } else {
    b.Result(dims);
  }
  return b.Take();
}

// Gather: offset dims pass through from the operand where the slice is
// whole; index batch dims pass through from the indices; explicit batching
// dims are shared by all three; sliced operand dims and the index vector
// dim must be replicated.
FactorRule Gather(const HloInstruction& inst) {
  RuleBuilder b("gather");
  const GatherAttrs& a = inst.attrs<GatherAttrs>();
  const GatherDimensions& dn = a.dims;
  const Shape& operand = inst.operand(0)->shape();
  const Shape& indices = inst.operand(1)->shape();
  TensorFactors op(operand.rank()), idx(indices.rank()), out(inst.shape().rank());
  auto contains = [](const std::vector<int64_t>& v, int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  // Operand dims in order: batching, collapsed, or offset (in offset_dims order).
  int64_t offset_index = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (contains(dn.operand_batching_dims, d) || contains(dn.collapsed_slice_dims, d)) continue;
    const int64_t out_dim = dn.offset_dims[offset_index++];
    const bool whole = a.slice_sizes[d] == operand.dimensions(d);
    const int64_t f = b.Factor(operand.dimensions(d),
                               whole ? FactorKind::kPassThrough : FactorKind::kNeedReplication);
    op[d] = {f};
    out[out_dim] = whole ? std::vector<int64_t>{f}
                         : std::vector<int64_t>{b.Factor(inst.shape().dimensions(out_dim))};
  }
  // Output batch dims follow the indices' dims other than index_vector_dim.
  std::vector<int64_t> batch_out;
  for (int64_t d = 0; d < inst.shape().rank(); ++d) {
    if (!contains(dn.offset_dims, d)) batch_out.push_back(d);
  }
  size_t next = 0;
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (d == dn.index_vector_dim) continue;
    if (next >= batch_out.size()) break;
    const int64_t f = b.Factor(indices.dimensions(d));
    idx[d] = {f};
    out[batch_out[next++]] = {f};
  }
  for (size_t i = 0; i < dn.operand_batching_dims.size(); ++i) {
    const int64_t index_dim = dn.start_indices_batching_dims[i];
    if (!idx[index_dim].empty()) op[dn.operand_batching_dims[i]] = idx[index_dim];
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (op[d].empty()) op[d] = {b.Factor(operand.dimensions(d), FactorKind::kNeedReplication)};
  }
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (idx[d].empty()) idx[d] = {b.Factor(indices.dimensions(d), FactorKind::kNeedReplication)};
  }
  for (int64_t d = 0; d < inst.shape().rank(); ++d) {
    if (out[d].empty()) out[d] = {b.Factor(inst.shape().dimensions(d))};
  }
  b.Operand(op);
  b.Operand(idx);
  b.Result(out);
  return b.Take();
}

// Scatter (variadic): operands and results share every dim; update window
// dims pass through to whole operand dims, update scatter dims to the index
// batch dims; inserted window dims and the index vector dim replicate.
FactorRule Scatter(const HloInstruction& inst) {
  RuleBuilder b("scatter");
  const ScatterDimensions& dn = inst.attrs<ScatterAttrs>().dims;
  const int64_t n = (inst.operand_count() - 1) / 2;
  const Shape& operand = inst.operand(0)->shape();
  const Shape& indices = inst.operand(n)->shape();
  const Shape& updates = inst.operand(n + 1)->shape();
  auto contains = [](const std::vector<int64_t>& v, int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  TensorFactors op = b.Fresh(operand);
  TensorFactors idx(indices.rank()), upd(updates.rank());
  // Update window dims map to operand dims that are neither inserted nor batching.
  int64_t window = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (contains(dn.inserted_window_dims, d) || contains(dn.input_batching_dims, d)) continue;
    if (window >= static_cast<int64_t>(dn.update_window_dims.size())) break;
    const int64_t u = dn.update_window_dims[window++];
    upd[u] =
        updates.dimensions(u) == operand.dimensions(d)
            ? op[d]
            : std::vector<int64_t>{b.Factor(updates.dimensions(u), FactorKind::kNeedReplication)};
  }
  std::vector<int64_t> scatter_dims;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    if (!contains(dn.update_window_dims, d)) scatter_dims.push_back(d);
  }
  size_t next = 0;
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (d == dn.index_vector_dim || next >= scatter_dims.size()) continue;
    const int64_t f = b.Factor(indices.dimensions(d));
    idx[d] = {f};
    upd[scatter_dims[next++]] = {f};
  }
  for (size_t i = 0; i < dn.input_batching_dims.size(); ++i) {
    const int64_t index_dim = dn.scatter_indices_batching_dims[i];
    if (!idx[index_dim].empty()) op[dn.input_batching_dims[i]] = idx[index_dim];
  }
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (idx[d].empty()) idx[d] = {b.Factor(indices.dimensions(d), FactorKind::kNeedReplication)};
  }
  for (int64_t d = 0; d < updates.rank(); ++d) {
    if (upd[d].empty()) upd[d] = {b.Factor(updates.dimensions(d), FactorKind::kNeedReplication)};
  }
  for (int64_t i = 0; i < n; ++i) b.Operand(op, i);
  b.Operand(idx);
  for (int64_t i = 0; i < n; ++i) b.Operand(upd, i);
  for (int64_t i = 0; i < n; ++i) b.Result(op);
  // As XLA, indices take the updates' split scatter dims and updates the
  // indices', besides what the result says.
  std::vector<std::vector<int64_t>>& from = b.rule().merge_backward_from;
  from.resize(static_cast<size_t>(inst.operand_count()));
  for (int64_t i = 0; i < n; ++i) {
    from[n].push_back(n + 1 + i);
    from[n + 1 + i].push_back(n);
  }
  return b.Take();
}

// Dynamic-update-slice: operand and result share every dim; the update
// shares the dims it covers whole; indices are not related.
FactorRule DynamicUpdateSlice(const HloInstruction& inst) {
  RuleBuilder b("dynamic-update-slice");
  TensorFactors result = b.Fresh(inst.shape());
  b.Operand(result);
  b.Operand(b.Same(inst.operand(1)->shape(), inst.shape(), result, false));
  for (int64_t i = 2; i < inst.operand_count(); ++i) b.Operand(std::nullopt);
  b.Result(result);
  b.Levels(0, 1);
  return b.Take();
}

// Dynamic-slice: the dims kept whole pass through; sliced dims replicate.
FactorRule DynamicSlice(const HloInstruction& inst) {
  RuleBuilder b("dynamic-slice");
  TensorFactors operand = b.Fresh(inst.operand(0)->shape());
  b.Operand(operand);
  for (int64_t i = 1; i < inst.operand_count(); ++i) b.Operand(std::nullopt);
  b.Result(b.Same(inst.shape(), inst.operand(0)->shape(), operand, false));
  b.Levels(0, 1);
  return b.Take();
}

// Leading batch dims pass through, the trailing `minor` dims replicate
// (cholesky, triangular-solve, fft).
FactorRule BatchLeading(const HloInstruction& inst, int64_t minor, std::string_view name) {
  RuleBuilder b(name);
  const Shape& shape = inst.shape();
  TensorFactors result;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    result.push_back(
        {b.Factor(shape.dimensions(d), d >= shape.rank() - minor ? FactorKind::kNeedReplication
                                                                 : FactorKind::kPassThrough)});
  }
  for (const HloInstruction* operand : inst.operands()) {
    b.Operand(b.Same(operand->shape(), shape, result, false));
  }
  b.Result(result);
  return b.Take();
}

// Ops whose result relates to no operand (iota, constant, parameter, rng
// with scalar bounds, partition-id): the result gets its sharding from users.
FactorRule Source(const HloInstruction& inst, std::string_view name) {
  RuleBuilder b(name);
  for (int64_t i = 0; i < inst.operand_count(); ++i) b.Operand(std::nullopt);
  if (inst.shape().IsTuple()) {
    for (const Shape& leaf : inst.shape().tuple_shapes()) b.Result(b.Fresh(leaf));
  } else if (inst.shape().IsArray()) {
    b.Result(b.Fresh(inst.shape()));
  }
  return b.Take();
}

FactorRule BitcastConvert(const HloInstruction& inst) {
  const Shape& in = inst.operand(0)->shape();
  RuleBuilder b("bitcast-convert");
  TensorFactors operand = b.Fresh(in);
  TensorFactors result;
  for (int64_t d = 0; d < inst.shape().rank(); ++d) {
    result.push_back(d < in.rank() && inst.shape().dimensions(d) == in.dimensions(d)
                         ? operand[d]
                         : std::vector<int64_t>{
                               b.Factor(inst.shape().dimensions(d), FactorKind::kNeedReplication)});
  }
  b.Operand(operand);
  b.Result(result);
  return b.Take();
}

// JAX's LAPACK custom-calls: every operand and result leads with operand 0's
// batch dims, which pass through; the matrix dims (and the vectors and
// scalars per matrix) need replication.
FactorRule LapackBatch(const HloInstruction& inst) {
  RuleBuilder b("lapack custom-call");
  const Shape& a = inst.operand(0)->shape();
  const int64_t batch = LapackBatchRank(a);
  TensorFactors batch_factors;
  for (int64_t d = 0; d < batch; ++d) batch_factors.push_back({b.Factor(a.dimensions(d))});
  auto factors = [&](const Shape& shape) {
    TensorFactors t;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      const bool shared = d < batch && shape.dimensions(d) == a.dimensions(d);
      t.push_back(shared ? batch_factors[d]
                         : std::vector<int64_t>{
                               b.Factor(shape.dimensions(d), FactorKind::kNeedReplication)});
    }
    return t;
  };
  for (const HloInstruction* operand : inst.operands()) b.Operand(factors(operand->shape()));
  if (inst.shape().IsTuple()) {
    for (const Shape& leaf : inst.shape().tuple_shapes()) b.Result(factors(leaf));
  } else {
    b.Result(factors(inst.shape()));
  }
  return b.Take();
}

}  // namespace

bool IsPassThroughCustomCall(const HloInstruction& inst) {
  if (inst.opcode() != HloOpcode::kCustomCall || inst.operand_count() < 1) return false;
  static constexpr std::array<std::string_view, 8> kTargets = {
      "Sharding",   "X64Combine",   "annotate_device_placement", "xla.sdy.FuncResultSharding",
      "MoveToHost", "MoveToDevice", "LayoutConstraint",          "Cholesky"};
  const std::string& target = inst.attrs<CustomCallAttrs>().target;
  if (std::find(kTargets.begin(), kTargets.end(), target) == kTargets.end()) return false;
  return inst.shape().IsArray() && inst.operand(0)->shape().IsArray() &&
         inst.operand(0)->shape().rank() == inst.shape().rank();
}

std::optional<FactorRule> FactorRuleOf(const HloInstruction& inst) {
  const HloOpcode op = inst.opcode();
  switch (op) {
    case HloOpcode::kRng:
      return Source(inst, "rng");
    case HloOpcode::kBroadcast:
      return Broadcast(inst);
    case HloOpcode::kReshape:
      return Reshape(inst, "reshape");
    case HloOpcode::kBitcast:
      return Reshape(inst, "bitcast");
    case HloOpcode::kTranspose:
      return Transpose(inst);
    case HloOpcode::kReduce:
      return Reduce(inst);
    case HloOpcode::kDot:
      return Dot(inst);
    case HloOpcode::kConvolution:
      return Convolution(inst);
    case HloOpcode::kSort:
      return SortLike(inst, inst.dimensions().empty() ? 0 : inst.dimensions()[0]);
    case HloOpcode::kTopK:
      return SortLike(inst, inst.operand(0)->shape().rank() - 1);
    case HloOpcode::kGather:
      return Gather(inst);
    case HloOpcode::kScatter:
      return Scatter(inst);
    case HloOpcode::kDynamicSlice:
      return DynamicSlice(inst);
    case HloOpcode::kDynamicUpdateSlice:
      return DynamicUpdateSlice(inst);
    case HloOpcode::kBitcastConvert:
      return BitcastConvert(inst);
    case HloOpcode::kCholesky:
      return BatchLeading(inst, 2, "cholesky");
    case HloOpcode::kTriangularSolve:
      return BatchLeading(inst, 2, "triangular-solve");
    case HloOpcode::kFft:
      return BatchLeading(inst, static_cast<int64_t>(inst.attrs<FftAttrs>().length.size()), "fft");
    // Same dims in and out; sizes may differ (windows, padding, slicing,
    // concatenation) and the sharding stays as it is, as XLA keeps it.
    case HloOpcode::kSlice:
    case HloOpcode::kPad:
    case HloOpcode::kConcatenate:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kMap:
    case HloOpcode::kSetDimensionSize:
      return Identity(inst, "same-dims", /*any_size=*/true);
    case HloOpcode::kReverse: {
      FactorRule rule = Identity(inst, "reverse", /*any_size=*/false);
      rule.reversed_dims = inst.dimensions();
      return rule;
    }
    // Collectives already in manual code: dims of equal size relate.
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllToAll:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectiveBroadcast:
      return Identity(inst, "collective", /*any_size=*/false);
    case HloOpcode::kIota:
    case HloOpcode::kConstant:
    case HloOpcode::kParameter:
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kGetDimensionSize:
      return Source(inst, "source");
    case HloOpcode::kCustomCall:
      if (IsPassThroughCustomCall(inst)) return Identity(inst, "pass-through custom-call", false);
      if (inst.operand_count() > 0 && FindLapackTarget(inst.attrs<CustomCallAttrs>().target)) {
        return LapackBatch(inst);
      }
      return std::nullopt;
    default:
      break;
  }
  if (IsElementwiseOpcode(op) && inst.shape().IsArray()) {
    return Identity(inst, "elementwise", /*any_size=*/false);
  }
  return std::nullopt;
}

FactorMapping MappingBetween(const FactorRule& rule, const TensorFactors& from,
                             const TensorFactors& to) {
  FactorMapping m;
  m.factor_sizes = rule.factor_sizes;
  m.source_dims = from;
  // Factors that must be replicated do not carry over: the target sees a
  // fresh factor of the same size instead.
  m.target_dims = to;
  for (std::vector<int64_t>& dim : m.target_dims) {
    for (int64_t& f : dim) {
      if (rule.kinds[f] == FactorKind::kNeedReplication) {
        m.factor_sizes.push_back(rule.factor_sizes[f]);
        f = static_cast<int64_t>(m.factor_sizes.size()) - 1;
      }
    }
  }
  return m;
}

HloSharding ProjectThrough(const FactorRule& rule, const TensorFactors& from,
                           const TensorFactors& to, const HloSharding& sharding) {
  if (!sharding.IsTiled()) return sharding;
  if (!rule.reversed_dims.empty()) {
    // Reverse: one operand with the result's dims, tiles mirrored.
    return ReverseTileOrder(sharding, rule.reversed_dims);
  }
  bool identity = from.size() == to.size();
  for (size_t d = 0; identity && d < from.size(); ++d) {
    identity = from[d].size() == 1 && from[d] == to[d] &&
               rule.kinds[from[d][0]] != FactorKind::kNeedReplication;
  }
  if (identity) return sharding;
  return ProjectSharding(sharding, MappingBetween(rule, from, to));
}

}  // namespace xlite::spmd
