// The typed attributes of HLO opcodes: small value structs for dimension
// numbers, windows, padding, replica groups, comparisons, precision, etc.,
// and the per-opcode-family attribute records an HloInstruction owns.
#ifndef XLITE_IR_ATTRIBUTES_H_
#define XLITE_IR_ATTRIBUTES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/hash/hash.h"
#include "xlite/base/optional_hash.h"
#include "xlite/ir/literal.h"
#include "xlite/ir/named_sharding.h"
#include "xlite/ir/shape.h"
#include "xlite/ir/sharding.h"

namespace xlite {

using ShapeIndex = std::vector<int64_t>;

// ---------------------------------------------------------------- values

enum class ComparisonDirection : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };
enum class ComparisonType : uint8_t { kFloat, kTotalOrder, kSigned, kUnsigned };
// The comparison type XLA assumes when `type=` is left out.
ComparisonType DefaultComparisonType(PrimitiveType operand_type);

struct DotDimensions {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contracting, rhs_contracting;
  bool operator==(const DotDimensions&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const DotDimensions& x) {
    return H::combine(std::move(h), x.lhs_batch, x.rhs_batch, x.lhs_contracting, x.rhs_contracting);
  }
};

// ragged-dot extras.
struct RaggedDotDimensions {
  std::vector<int64_t> lhs_ragged, rhs_group;
  bool operator==(const RaggedDotDimensions&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const RaggedDotDimensions& x) {
    return H::combine(std::move(h), x.lhs_ragged, x.rhs_group);
  }
};

// A structured-sparse dot operand (XLA's SparsityDescriptor, text
// `sparsity=L.1@2:4`): operand `operand` (0 = lhs, 1 = rhs) keeps `n` of every
// `m` elements along its contracting dimension `dimension`, stored compressed;
// a metadata operand (u16, after lhs and rhs) says where the kept ones lie.
struct SparsityDescriptor {
  int64_t operand = 0;
  int64_t dimension = 0;
  int64_t n = 0, m = 0;
  bool operator==(const SparsityDescriptor&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const SparsityDescriptor& x) {
    return H::combine(std::move(h), x.operand, x.dimension, x.n, x.m);
  }
};

// Convolution dimension labels (`b01f_01io->b01f`): the dimension number of
// each role in lhs (input), rhs (kernel) and output.
struct ConvDimensions {
  int64_t input_batch = 0, input_feature = 0;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0, kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0, output_feature = 0;
  std::vector<int64_t> output_spatial;
  bool operator==(const ConvDimensions&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ConvDimensions& x) {
    return H::combine(std::move(h), x.input_batch, x.input_feature, x.input_spatial,
                      x.kernel_input_feature, x.kernel_output_feature, x.kernel_spatial,
                      x.output_batch, x.output_feature, x.output_spatial);
  }
};

struct WindowDimension {
  int64_t size = 0;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t base_dilation = 1;    // lhs_dilate
  int64_t window_dilation = 1;  // rhs_dilate
  bool window_reversal = false;
  bool operator==(const WindowDimension&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const WindowDimension& x) {
    return H::combine(std::move(h), x.size, x.stride, x.padding_low, x.padding_high,
                      x.base_dilation, x.window_dilation, x.window_reversal);
  }
};
using Window = std::vector<WindowDimension>;

struct PaddingDimension {
  int64_t low = 0, high = 0, interior = 0;
  bool operator==(const PaddingDimension&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const PaddingDimension& x) {
    return H::combine(std::move(h), x.low, x.high, x.interior);
  }
};
using PaddingConfig = std::vector<PaddingDimension>;

struct GatherDimensions {
  std::vector<int64_t> offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims,
      start_indices_batching_dims;
  int64_t index_vector_dim = 0;
  bool operator==(const GatherDimensions&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const GatherDimensions& x) {
    return H::combine(std::move(h), x.offset_dims, x.collapsed_slice_dims, x.start_index_map,
                      x.operand_batching_dims, x.start_indices_batching_dims, x.index_vector_dim);
  }
};

struct ScatterDimensions {
  std::vector<int64_t> update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
      input_batching_dims, scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;
  bool operator==(const ScatterDimensions&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ScatterDimensions& x) {
    return H::combine(std::move(h), x.update_window_dims, x.inserted_window_dims,
                      x.scatter_dims_to_operand_dims, x.input_batching_dims,
                      x.scatter_indices_batching_dims, x.index_vector_dim);
  }
};

// replica_groups: explicit `{{0,1},{2,3}}`, iota `[g,s]<=[dims]T(perm)`, or
// the mesh form (XLA's MeshAxesReplicaGroupList).
struct ReplicaGroups {
  bool is_iota = false;
  std::vector<std::vector<int64_t>> groups;  // explicit form
  int64_t num_groups = 0, group_size = 0;    // iota form
  std::vector<int64_t> iota_reshape, iota_perm;
  // Mesh form `mesh['a'=4,'b'=2], device_ids=(...) {'b','a':(1)2}`: a group
  // holds the devices that differ only along the listed axes and sub-axes,
  // walked in the written order (MeshAxisGroups).
  Mesh mesh;
  std::vector<MeshAxisRef> mesh_group_axes;
  bool is_mesh() const { return !mesh.axes.empty(); }
  // The groups as lists of ids (materialises the iota and mesh forms; empty
  // for an invalid mesh form).
  std::vector<std::vector<int64_t>> Groups() const;
  bool empty() const { return !is_iota && !is_mesh() && groups.empty(); }
  bool operator==(const ReplicaGroups&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ReplicaGroups& x) {
    return H::combine(std::move(h), x.is_iota, x.groups, x.num_groups, x.group_size, x.iota_reshape,
                      x.iota_perm, x.mesh, x.mesh_group_axes);
  }
};

enum class Precision : uint8_t { kDefault, kHigh, kHighest, kPackedNibble };

struct PrecisionConfig {
  std::vector<Precision> operand_precision;  // empty = all default
  std::string algorithm;                     // "" = unset, else e.g. "dot_bf16_bf16_f32"
  bool operator==(const PrecisionConfig&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const PrecisionConfig& x) {
    return H::combine(std::move(h), x.operand_precision, x.algorithm);
  }
};

// output_to_operand_aliasing={{out_index}: (operand, {operand_index}), ...}
struct OutputOperandAlias {
  ShapeIndex output_index;
  int64_t operand = 0;
  ShapeIndex operand_index;
  bool operator==(const OutputOperandAlias&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const OutputOperandAlias& x) {
    return H::combine(std::move(h), x.output_index, x.operand, x.operand_index);
  }
};

// result_accuracy={mode=highest} or {tolerance={atol=..,rtol=..,ulps=..}}
struct ResultAccuracy {
  std::string mode;  // "" when the tolerance form is used
  double atol = 0, rtol = 0;
  int64_t ulps = 0;
  bool operator==(const ResultAccuracy&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ResultAccuracy& x) {
    return H::combine(std::move(h), x.mode, x.atol, x.rtol, x.ulps);
  }
};

enum class FusionKind : uint8_t { kLoop, kInput, kOutput, kCustom };
enum class RandomDistribution : uint8_t { kUniform, kNormal };
enum class RandomAlgorithm : uint8_t { kDefault, kThreeFry, kPhilox };
enum class FftType : uint8_t { kFft, kIfft, kRfft, kIrfft };
enum class TransposeA : uint8_t { kNoTranspose, kTranspose, kAdjoint };
enum class CustomCallApiVersion : uint8_t {
  kOriginal,
  kStatusReturning,
  kStatusReturningUnified,
  kTypedFfi
};
enum class CustomCallSchedule : uint8_t { kNone, kLatest, kEarliest };
enum class PaddingType : uint8_t { kValid, kSame };

// ---------------------------------------------------- per-opcode records
//
// An HloInstruction owns at most one record, chosen by its opcode (see
// AttrsKindOf in instruction.h). Attributes shared by many opcodes live on the
// instruction itself: dimensions, called computations, sharding, metadata.

struct OpAttrs {
  virtual ~OpAttrs() = default;
  virtual std::unique_ptr<OpAttrs> Clone() const = 0;
  // Same record type with equal fields.
  virtual bool Equals(const OpAttrs& other) const = 0;
  // Equal records hash equal. Each record's AbslHashValue, beside its
  // operator==, combines the fields that operator== compares; a field of a
  // type without a hash (Shape, HloSharding, TileAssignment) contributes only
  // whether it is set.
  virtual size_t Hash() const = 0;
};

template <typename Derived>
struct OpAttrsBase : OpAttrs {
  std::unique_ptr<OpAttrs> Clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
  bool Equals(const OpAttrs& other) const override {
    const auto* o = dynamic_cast<const Derived*>(&other);
    return o != nullptr && *o == static_cast<const Derived&>(*this);
  }
  size_t Hash() const override { return absl::HashOf(static_cast<const Derived&>(*this)); }
  bool operator==(const OpAttrsBase&) const { return true; }
};

struct ParameterAttrs : OpAttrsBase<ParameterAttrs> {
  int64_t number = 0;
  std::optional<std::vector<bool>> replication;  // parameter_replication
  bool operator==(const ParameterAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ParameterAttrs& x) {
    return H::combine(std::move(h), x.number, HashOptional(x.replication));
  }
};

struct ConstantAttrs : OpAttrsBase<ConstantAttrs> {
  Literal literal;
  bool elided = false;  // written `{...}`: data unknown (literal zero-filled)
  bool operator==(const ConstantAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ConstantAttrs& x) {
    return H::combine(std::move(h), x.literal, x.elided);
  }
};

// iota (iota_dimension), get-tuple-element (index), reshape
// (inferred_dimension, -1 = none), topk (k; flag = largest),
// rng-get-and-update-state (delta), copy-start
// (cross_program_prefetch_index, -1 = none), cholesky (flag = lower),
// sort (flag = is_stable), call (flag = is_composite),
// collective ops' bare int attrs stay in CollectiveAttrs.
struct IntAttrs : OpAttrsBase<IntAttrs> {
  int64_t value = -1;
  bool flag = false;
  bool operator==(const IntAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const IntAttrs& x) {
    return H::combine(std::move(h), x.value, x.flag);
  }
};

struct CompareAttrs : OpAttrsBase<CompareAttrs> {
  ComparisonDirection direction = ComparisonDirection::kEq;
  std::optional<ComparisonType> type;  // absent = default for the operand type
  bool operator==(const CompareAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const CompareAttrs& x) {
    return H::combine(std::move(h), x.direction, HashOptional(x.type));
  }
};

struct SliceAttrs : OpAttrsBase<SliceAttrs> {
  std::vector<int64_t> starts, limits, strides;
  bool operator==(const SliceAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const SliceAttrs& x) {
    return H::combine(std::move(h), x.starts, x.limits, x.strides);
  }
};

struct DynamicSliceAttrs : OpAttrsBase<DynamicSliceAttrs> {
  std::vector<int64_t> sizes;
  bool operator==(const DynamicSliceAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const DynamicSliceAttrs& x) {
    return H::combine(std::move(h), x.sizes);
  }
};

struct PadAttrs : OpAttrsBase<PadAttrs> {
  PaddingConfig padding;
  bool operator==(const PadAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const PadAttrs& x) {
    return H::combine(std::move(h), x.padding);
  }
};

// reduce-window, select-and-scatter.
struct WindowAttrs : OpAttrsBase<WindowAttrs> {
  Window window;
  bool operator==(const WindowAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const WindowAttrs& x) {
    return H::combine(std::move(h), x.window);
  }
};

struct ConvolutionAttrs : OpAttrsBase<ConvolutionAttrs> {
  Window window;
  ConvDimensions dims;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
  PrecisionConfig precision;
  std::string conv_kind;  // "" = not written
  bool operator==(const ConvolutionAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ConvolutionAttrs& x) {
    return H::combine(std::move(h), x.window, x.dims, x.feature_group_count, x.batch_group_count,
                      x.precision, x.conv_kind);
  }
};

// dot, ragged-dot, scaled-dot.
struct DotAttrs : OpAttrsBase<DotAttrs> {
  DotDimensions dims;
  RaggedDotDimensions ragged;
  PrecisionConfig precision;
  std::vector<SparsityDescriptor> sparsity;  // dot only; one metadata operand each
  bool operator==(const DotAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const DotAttrs& x) {
    return H::combine(std::move(h), x.dims, x.ragged, x.precision, x.sparsity);
  }
};

// A dot's operands: lhs, rhs, then one metadata operand per sparse operand.
inline int64_t DotOperandCount(const DotAttrs& dot) {
  return 2 + static_cast<int64_t>(dot.sparsity.size());
}

struct GatherAttrs : OpAttrsBase<GatherAttrs> {
  GatherDimensions dims;
  std::vector<int64_t> slice_sizes;
  bool indices_are_sorted = false;
  bool operator==(const GatherAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const GatherAttrs& x) {
    return H::combine(std::move(h), x.dims, x.slice_sizes, x.indices_are_sorted);
  }
};

struct ScatterAttrs : OpAttrsBase<ScatterAttrs> {
  ScatterDimensions dims;
  bool indices_are_sorted = false;
  bool unique_indices = false;
  bool operator==(const ScatterAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ScatterAttrs& x) {
    return H::combine(std::move(h), x.dims, x.indices_are_sorted, x.unique_indices);
  }
};

struct FftAttrs : OpAttrsBase<FftAttrs> {
  FftType type = FftType::kFft;
  std::vector<int64_t> length;
  bool operator==(const FftAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const FftAttrs& x) {
    return H::combine(std::move(h), x.type, x.length);
  }
};

struct TriangularSolveAttrs : OpAttrsBase<TriangularSolveAttrs> {
  bool left_side = false, lower = false, unit_diagonal = false;
  TransposeA transpose_a = TransposeA::kNoTranspose;
  bool operator==(const TriangularSolveAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const TriangularSolveAttrs& x) {
    return H::combine(std::move(h), x.left_side, x.lower, x.unit_diagonal, x.transpose_a);
  }
};

struct BatchNormAttrs : OpAttrsBase<BatchNormAttrs> {
  float epsilon = 0;
  int64_t feature_index = 0;
  bool operator==(const BatchNormAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const BatchNormAttrs& x) {
    return H::combine(std::move(h), x.epsilon, x.feature_index);
  }
};

struct ReducePrecisionAttrs : OpAttrsBase<ReducePrecisionAttrs> {
  int64_t exponent_bits = 0, mantissa_bits = 0;
  bool operator==(const ReducePrecisionAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ReducePrecisionAttrs& x) {
    return H::combine(std::move(h), x.exponent_bits, x.mantissa_bits);
  }
};

// rng (distribution), rng-bit-generator (algorithm).
struct RngAttrs : OpAttrsBase<RngAttrs> {
  RandomDistribution distribution = RandomDistribution::kUniform;
  RandomAlgorithm algorithm = RandomAlgorithm::kDefault;
  bool operator==(const RngAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const RngAttrs& x) {
    return H::combine(std::move(h), x.distribution, x.algorithm);
  }
};

// Every collective and its async start forms; also replica/partition-free
// collectives like collective-broadcast.
struct CollectiveAttrs : OpAttrsBase<CollectiveAttrs> {
  ReplicaGroups replica_groups;
  std::optional<int64_t> channel_id;
  bool use_global_device_ids = false;
  bool constrain_layout = false;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  std::vector<std::vector<int64_t>> slice_sizes;  // in-place collective-permute
  bool operator==(const CollectiveAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const CollectiveAttrs& x) {
    return H::combine(std::move(h), x.replica_groups, HashOptional(x.channel_id),
                      x.use_global_device_ids, x.constrain_layout, x.source_target_pairs,
                      x.slice_sizes);
  }
};

struct SendRecvAttrs : OpAttrsBase<SendRecvAttrs> {
  std::optional<int64_t> channel_id;
  bool is_host_transfer = false;
  bool operator==(const SendRecvAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const SendRecvAttrs& x) {
    return H::combine(std::move(h), HashOptional(x.channel_id), x.is_host_transfer);
  }
};

// infeed (config), outfeed (config and outfeed_shape).
struct FeedAttrs : OpAttrsBase<FeedAttrs> {
  std::string config;
  std::optional<Shape> outfeed_shape;
  bool operator==(const FeedAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const FeedAttrs& x) {
    return H::combine(std::move(h), x.config, x.outfeed_shape.has_value());
  }
};

struct FusionAttrs : OpAttrsBase<FusionAttrs> {
  FusionKind kind = FusionKind::kLoop;
  std::vector<OutputOperandAlias> output_to_operand_aliasing;
  bool operator==(const FusionAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const FusionAttrs& x) {
    return H::combine(std::move(h), x.kind, x.output_to_operand_aliasing);
  }
};

struct CustomCallAttrs : OpAttrsBase<CustomCallAttrs> {
  std::string target;
  CustomCallApiVersion api_version = CustomCallApiVersion::kOriginal;
  bool has_side_effect = false;
  std::optional<std::vector<Shape>> operand_layout_constraints;
  std::vector<OutputOperandAlias> output_to_operand_aliasing;
  CustomCallSchedule schedule = CustomCallSchedule::kNone;
  std::optional<Window> window;
  std::optional<ConvDimensions> conv_dims;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
  std::optional<PaddingType> padding_type;
  std::optional<Literal> literal;
  PrecisionConfig precision;
  bool operator==(const CustomCallAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const CustomCallAttrs& x) {
    return H::combine(std::move(h), x.target, x.api_version, x.has_side_effect,
                      x.operand_layout_constraints.has_value(), x.output_to_operand_aliasing,
                      x.schedule, HashOptional(x.window), HashOptional(x.conv_dims),
                      x.feature_group_count, x.batch_group_count, HashOptional(x.padding_type),
                      HashOptional(x.literal), x.precision);
  }
};

struct AsyncAttrs : OpAttrsBase<AsyncAttrs> {
  std::string execution_thread = "main";  // async_execution_thread
  std::vector<OutputOperandAlias> output_to_operand_aliasing;
  bool operator==(const AsyncAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const AsyncAttrs& x) {
    return H::combine(std::move(h), x.execution_thread, x.output_to_operand_aliasing);
  }
};

struct DomainAttrs : OpAttrsBase<DomainAttrs> {
  std::string kind;
  std::optional<HloSharding> entry, exit;
  bool operator==(const DomainAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const DomainAttrs& x) {
    return H::combine(std::move(h), x.kind, x.entry.has_value(), x.exit.has_value());
  }
};

struct ScanAttrs : OpAttrsBase<ScanAttrs> {
  int64_t num_carries = 0;
  bool is_reverse = false;
  bool is_associative = false;
  bool operator==(const ScanAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ScanAttrs& x) {
    return H::combine(std::move(h), x.num_carries, x.is_reverse, x.is_associative);
  }
};

// Unary math ops that take result_accuracy.
struct AccuracyAttrs : OpAttrsBase<AccuracyAttrs> {
  ResultAccuracy accuracy;
  bool operator==(const AccuracyAttrs&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const AccuracyAttrs& x) {
    return H::combine(std::move(h), x.accuracy);
  }
};

}  // namespace xlite

#endif  // XLITE_IR_ATTRIBUTES_H_
