// The one table of every opcode's own attributes: per opcode family, rows of
// {key, member, presence, default} in XLA's printing order, plus where the
// dimensions and called computations go. The parser (attribute_parser.cc) and
// the printer (attribute_printer.cc) both walk it, so a new attribute is one row.
#ifndef XLITE_TEXT_ATTRIBUTE_SCHEMA_H_
#define XLITE_TEXT_ATTRIBUTE_SCHEMA_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "xlite/ir/attributes.h"
#include "xlite/ir/instruction.h"

namespace xlite::attr_schema {

enum class Presence : uint8_t {
  kRequired,       // the text must write it; always printed
  kOptional,       // may be left out (it then holds the default); printed unless default
  kAlwaysPrinted,  // may be left out, but XLA prints it even at the default
  kReadOnly,       // accepted on input (a second or legacy spelling), never printed
};
inline constexpr Presence kRequired = Presence::kRequired;
inline constexpr Presence kOptional = Presence::kOptional;
inline constexpr Presence kAlwaysPrinted = Presence::kAlwaysPrinted;
inline constexpr Presence kReadOnly = Presence::kReadOnly;

// The value syntaxes. Each walker reads or writes a member through the
// syntax named in its row; `Omitted` says which values are never written.
namespace syntax {
struct Int {};          // int64_t: `3`
struct IntList {};      // std::vector<int64_t>: `{1,2}`
struct IntListList {};  // std::vector<std::vector<int64_t>>: `{{0,1},{2}}`
struct Pairs {};        // std::vector<std::pair<int64_t, int64_t>>: `{{0,1},{1,0}}`
struct Bool {};         // bool: `true`
struct BoolList {};     // std::vector<bool>: `{true,false}`
struct Enum {};         // an enum of ir/attribute_names: `GE`
struct Quoted {};       // std::string: `"text"`
struct Identifier {};   // std::string: `dot_bf16_bf16_f32`
struct F32 {};          // float: `1e-05`
struct ShapeText {};    // Shape
struct ShapeList {};    // std::vector<Shape>: `{f32[2], s32[]}`
struct LiteralText {};  // Literal with its shape: `s32[2] {1, 2}`
struct Padding {};      // PaddingConfig: `0_0x1_1_0`
struct Slices {};       // SliceAttrs: `{[0:4:2], [1:3]}`
struct Aliasing {};     // std::vector<OutputOperandAlias>: `{{0}: (1, {})}`
struct Groups {};       // ReplicaGroups: explicit, iota or mesh form
struct Domain {};       // DomainAttrs: `{kind="sharding", entry=..., exit=...}`
struct Accuracy {};     // ResultAccuracy: `{mode=highest}`
struct Sparsity {};     // std::vector<SparsityDescriptor>: `L.1@2:4_R.0@2:4`
struct ConvLabels {     // ConvDimensions: `b01f_01io->b01f`
};
struct WindowText {  // Window: `{size=3x3 stride=2x2}`; an empty one is not written
  static bool Omitted(const Window& window) { return window.empty(); }
};
struct PrecisionList {  // std::vector<Precision>: `{high,default}`; all-default is not written
  static bool Omitted(const std::vector<Precision>& list) {
    return std::all_of(list.begin(), list.end(),
                       [](Precision p) { return p == Precision::kDefault; });
  }
};
}  // namespace syntax

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

// Whether `value` of a row is left out of the printed text: a value the
// syntax never writes, or the row's default (an unset optional is left out).
// g++ 12 at -O1 (the sanitizer build) claims that comparing with an unset
// optional default reads its payload; the comparison checks has_value first.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
template <typename Syntax, typename M, typename D>
bool AtDefault(const M& value, const D& default_value) {
  if constexpr (IsOptional<M>::value) {
    if (!value.has_value()) return true;
    if constexpr (requires { Syntax::Omitted(*value); }) {
      if (Syntax::Omitted(*value)) return true;
    }
  } else if constexpr (requires { Syntax::Omitted(value); }) {
    if (Syntax::Omitted(value)) return true;
  }
  return value == default_value;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// operand_precision= and (where the opcode takes it) algorithm=.
template <typename W, typename P>
void PrecisionRows(W& w, P& precision, bool with_algorithm) {
  w.Row("operand_precision", syntax::PrecisionList{}, precision.operand_precision, kOptional);
  if (with_algorithm) w.Row("algorithm", syntax::Identifier{}, precision.algorithm, kOptional);
}

// Walks the attribute rows of `inst`'s opcode with walker `w` (the parser's
// reader or the printer's writer). A walker provides:
//   record<T>()                                the opcode's record (const for the printer)
//   Row(key, syntax, member, presence[, default])
//   Dimensions(presence[, empty_when_absent])  the instruction's dimensions={...}
//   Computation(key, presence), ComputationList(key, presence)
//                                              the called computations, in order
//   Ignored(key, syntax)                       read and dropped (legacy attributes)
// Rows are in XLA's printing order; the parser takes any order. Facts only the
// parser checks (a conditional's selector type) stay in the parser.
template <typename W>
void WalkAttributes(W& w, const HloInstruction& inst) {
  using O = HloOpcode;
  using namespace syntax;  // NOLINT: the row tables read as tables
  const HloOpcode op = inst.opcode();
  switch (AttrsKindOf(op)) {
    case AttrsKind::kParameter: {
      auto& a = w.template record<ParameterAttrs>();
      w.Row("parameter_replication", BoolList{}, a.replication, kOptional);
      return;
    }
    case AttrsKind::kConstant:
      return;  // the literal is written in parentheses, not as an attribute
    case AttrsKind::kInt: {
      auto& a = w.template record<IntAttrs>();
      switch (op) {
        case O::kIota:
          w.Row("iota_dimension", Int{}, a.value, kRequired);
          return;
        case O::kGetTupleElement:
          w.Row("index", Int{}, a.value, kRequired);
          return;
        case O::kReshape:
          w.Row("inferred_dimension", Int{}, a.value, kOptional, -1);
          return;
        case O::kTopK:
          w.Row("k", Int{}, a.value, kRequired);
          w.Row("largest", Bool{}, a.flag, kAlwaysPrinted, true);
          return;
        case O::kRngGetAndUpdateState:
          w.Row("delta", Int{}, a.value, kRequired);
          return;
        case O::kCopyStart:
          w.Row("cross_program_prefetch_index", Int{}, a.value, kOptional, -1);
          return;
        case O::kCholesky:
          w.Row("lower", Bool{}, a.flag, kOptional);
          return;
        case O::kSort:
          w.Dimensions(kRequired);
          w.Row("is_stable", Bool{}, a.flag, kOptional);
          w.Computation("to_apply", kRequired);
          return;
        case O::kCall:  // XLA writes to_apply before is_composite
          w.Computation("to_apply", kRequired);
          w.Row("is_composite", Bool{}, a.flag, kOptional);
          return;
        default:
          return;
      }
    }
    case AttrsKind::kCompare: {
      auto& a = w.template record<CompareAttrs>();
      const PrimitiveType operand_type = inst.operand_count() > 0
                                             ? inst.operand(0)->shape().element_type()
                                             : PrimitiveType::PRIMITIVE_TYPE_INVALID;
      w.Row("direction", Enum{}, a.direction, kRequired);
      // A spelled-out default type is stored as "left out".
      w.Row("type", Enum{}, a.type, kOptional, DefaultComparisonType(operand_type));
      return;
    }
    case AttrsKind::kSlice:
      w.Row("slice", Slices{}, w.template record<SliceAttrs>(), kRequired);
      return;
    case AttrsKind::kDynamicSlice:
      w.Row("dynamic_slice_sizes", IntList{}, w.template record<DynamicSliceAttrs>().sizes,
            kRequired);
      return;
    case AttrsKind::kPad:
      w.Row("padding", Padding{}, w.template record<PadAttrs>().padding, kRequired);
      return;
    case AttrsKind::kWindow: {
      auto& a = w.template record<WindowAttrs>();
      w.Row("window", WindowText{}, a.window, kOptional);
      if (op == O::kReduceWindow) {
        w.Computation("to_apply", kRequired);
      } else {
        w.Computation("select", kRequired);
        w.Computation("scatter", kRequired);
      }
      return;
    }
    case AttrsKind::kConvolution: {
      auto& a = w.template record<ConvolutionAttrs>();
      w.Row("window", WindowText{}, a.window, kOptional);
      w.Row("dim_labels", ConvLabels{}, a.dims, kRequired);
      w.Row("feature_group_count", Int{}, a.feature_group_count, kOptional, 1);
      w.Row("batch_group_count", Int{}, a.batch_group_count, kOptional, 1);
      PrecisionRows(w, a.precision, /*with_algorithm=*/true);
      w.Row("conv_kind", Identifier{}, a.conv_kind, kOptional);
      return;
    }
    case AttrsKind::kDot: {
      auto& a = w.template record<DotAttrs>();
      w.Row("lhs_batch_dims", IntList{}, a.dims.lhs_batch, kOptional);
      w.Row("lhs_contracting_dims", IntList{}, a.dims.lhs_contracting, kAlwaysPrinted);
      w.Row("rhs_batch_dims", IntList{}, a.dims.rhs_batch, kOptional);
      w.Row("rhs_contracting_dims", IntList{}, a.dims.rhs_contracting, kAlwaysPrinted);
      if (op == O::kRaggedDot) {
        w.Row("lhs_ragged_dims", IntList{}, a.ragged.lhs_ragged, kAlwaysPrinted);
        w.Row("rhs_group_dims", IntList{}, a.ragged.rhs_group, kOptional);
      }
      if (op == O::kDot) w.Row("sparsity", Sparsity{}, a.sparsity, kOptional);
      PrecisionRows(w, a.precision, /*with_algorithm=*/true);
      return;
    }
    case AttrsKind::kGather: {
      auto& a = w.template record<GatherAttrs>();
      w.Row("offset_dims", IntList{}, a.dims.offset_dims, kRequired);
      w.Row("collapsed_slice_dims", IntList{}, a.dims.collapsed_slice_dims, kRequired);
      w.Row("start_index_map", IntList{}, a.dims.start_index_map, kRequired);
      w.Row("operand_batching_dims", IntList{}, a.dims.operand_batching_dims, kOptional);
      w.Row("start_indices_batching_dims", IntList{}, a.dims.start_indices_batching_dims,
            kOptional);
      w.Row("index_vector_dim", Int{}, a.dims.index_vector_dim, kRequired);
      w.Row("slice_sizes", IntList{}, a.slice_sizes, kRequired);
      w.Row("indices_are_sorted", Bool{}, a.indices_are_sorted, kOptional);
      return;
    }
    case AttrsKind::kScatter: {
      auto& a = w.template record<ScatterAttrs>();
      w.Row("update_window_dims", IntList{}, a.dims.update_window_dims, kRequired);
      w.Row("inserted_window_dims", IntList{}, a.dims.inserted_window_dims, kRequired);
      w.Row("scatter_dims_to_operand_dims", IntList{}, a.dims.scatter_dims_to_operand_dims,
            kRequired);
      w.Row("input_batching_dims", IntList{}, a.dims.input_batching_dims, kOptional);
      w.Row("scatter_indices_batching_dims", IntList{}, a.dims.scatter_indices_batching_dims,
            kOptional);
      w.Row("index_vector_dim", Int{}, a.dims.index_vector_dim, kRequired);
      w.Row("indices_are_sorted", Bool{}, a.indices_are_sorted, kOptional);
      w.Row("unique_indices", Bool{}, a.unique_indices, kOptional);
      w.Computation("to_apply", kRequired);
      return;
    }
    case AttrsKind::kFft: {
      auto& a = w.template record<FftAttrs>();
      w.Row("fft_type", Enum{}, a.type, kRequired);
      w.Row("fft_length", IntList{}, a.length, kRequired);
      return;
    }
    case AttrsKind::kTriangularSolve: {
      auto& a = w.template record<TriangularSolveAttrs>();
      w.Row("left_side", Bool{}, a.left_side, kOptional);
      w.Row("lower", Bool{}, a.lower, kOptional);
      w.Row("transpose_a", Enum{}, a.transpose_a, kAlwaysPrinted);
      w.Row("unit_diagonal", Bool{}, a.unit_diagonal, kOptional);
      return;
    }
    case AttrsKind::kBatchNorm: {
      auto& a = w.template record<BatchNormAttrs>();
      w.Row("epsilon", F32{}, a.epsilon, kRequired);
      w.Row("feature_index", Int{}, a.feature_index, kRequired);
      return;
    }
    case AttrsKind::kReducePrecision: {
      auto& a = w.template record<ReducePrecisionAttrs>();
      w.Row("exponent_bits", Int{}, a.exponent_bits, kRequired);
      w.Row("mantissa_bits", Int{}, a.mantissa_bits, kRequired);
      return;
    }
    case AttrsKind::kRng: {
      auto& a = w.template record<RngAttrs>();
      if (op == O::kRng) {
        w.Row("distribution", Enum{}, a.distribution, kRequired);
      } else {
        w.Row("algorithm", Enum{}, a.algorithm, kRequired);
      }
      return;
    }
    case AttrsKind::kCollective: {
      auto& a = w.template record<CollectiveAttrs>();
      w.Row("channel_id", Int{}, a.channel_id, kOptional);
      if (op == O::kCollectivePermute || op == O::kCollectivePermuteStart) {
        w.Row("source_target_pairs", Pairs{}, a.source_target_pairs, kRequired);
        w.Row("slice_sizes", IntListList{}, a.slice_sizes, kOptional);
        return;
      }
      w.Row("replica_groups", Groups{}, a.replica_groups, kAlwaysPrinted);
      const bool reduces = op == O::kAllReduce || op == O::kAllReduceStart ||
                           op == O::kCollectiveReduce || op == O::kReduceScatter;
      const bool gathers = op == O::kAllGather || op == O::kAllGatherStart;
      if (reduces || gathers || op == O::kAllToAll) {
        w.Row("constrain_layout", Bool{}, a.constrain_layout, kOptional);
      }
      if (gathers || op == O::kReduceScatter) w.Dimensions(kRequired);
      if (op == O::kAllToAll) w.Dimensions(kOptional);
      if (reduces || gathers) {
        w.Row("use_global_device_ids", Bool{}, a.use_global_device_ids, kOptional);
      }
      if (reduces) {
        w.Ignored("mode", Identifier{});  // legacy all-reduce mode= (spec §2.7)
        w.Computation("to_apply", kRequired);
      }
      return;
    }
    case AttrsKind::kSendRecv: {
      auto& a = w.template record<SendRecvAttrs>();
      w.Row("channel_id", Int{}, a.channel_id, kOptional);
      w.Row("is_host_transfer", Bool{}, a.is_host_transfer, kOptional);
      return;
    }
    case AttrsKind::kFeed: {
      auto& a = w.template record<FeedAttrs>();
      if (op == O::kInfeed) {
        w.Row("infeed_config", Quoted{}, a.config, kOptional);
      } else {
        w.Row("outfeed_shape", ShapeText{}, a.outfeed_shape, kOptional);
        w.Row("outfeed_config", Quoted{}, a.config, kOptional);
      }
      return;
    }
    case AttrsKind::kFusion: {
      auto& a = w.template record<FusionAttrs>();
      w.Row("kind", Enum{}, a.kind, kRequired);
      w.Row("output_to_operand_aliasing", Aliasing{}, a.output_to_operand_aliasing, kOptional);
      w.Computation("calls", kRequired);
      return;
    }
    case AttrsKind::kCustomCall: {
      auto& a = w.template record<CustomCallAttrs>();
      // XLA's order: the convolution-like attributes come before the target.
      w.Row("window", WindowText{}, a.window, kOptional);
      w.Row("dim_labels", ConvLabels{}, a.conv_dims, kOptional);
      w.Row("feature_group_count", Int{}, a.feature_group_count, kOptional, 1);
      w.Row("batch_group_count", Int{}, a.batch_group_count, kOptional, 1);
      PrecisionRows(w, a.precision, /*with_algorithm=*/false);
      w.Row("custom_call_target", Quoted{}, a.target, kRequired);
      w.Row("operand_layout_constraints", ShapeList{}, a.operand_layout_constraints, kOptional);
      w.Row("custom_call_has_side_effect", Bool{}, a.has_side_effect, kOptional);
      w.Row("literal", LiteralText{}, a.literal, kOptional);
      w.Row("output_to_operand_aliasing", Aliasing{}, a.output_to_operand_aliasing, kOptional);
      w.Row("padding_type", Enum{}, a.padding_type, kOptional);
      w.Row("schedule", Enum{}, a.schedule, kOptional);
      w.Row("custom_call_schedule", Enum{}, a.schedule, kReadOnly);
      w.Row("api_version", Enum{}, a.api_version, kOptional);
      // XLA writes a list even for one computation, and reads to_apply= too.
      w.Computation("to_apply", kReadOnly);
      w.ComputationList("called_computations", kOptional);
      return;
    }
    case AttrsKind::kAsync: {
      auto& a = w.template record<AsyncAttrs>();
      // update and done take the thread and computation of their async-start,
      // as in XLA: the text may repeat them, the printer does not.
      const bool start = op == O::kAsyncStart;
      w.Row("output_to_operand_aliasing", Aliasing{}, a.output_to_operand_aliasing, kOptional);
      w.Row("async_execution_thread", Quoted{}, a.execution_thread, start ? kOptional : kReadOnly,
            "main");
      w.Computation("calls", start ? kRequired : kReadOnly);
      return;
    }
    case AttrsKind::kDomain:
      w.Row("domain", Domain{}, w.template record<DomainAttrs>(), kRequired);
      return;
    case AttrsKind::kScan: {
      auto& a = w.template record<ScanAttrs>();
      w.Dimensions(kRequired);
      w.Row("num_carries", Int{}, a.num_carries, kRequired);
      w.Row("is_reverse", Bool{}, a.is_reverse, kOptional);
      w.Row("is_associative", Bool{}, a.is_associative, kOptional);
      w.Computation("to_apply", kRequired);
      return;
    }
    case AttrsKind::kAccuracy:
      w.Row("result_accuracy", Accuracy{}, w.template record<AccuracyAttrs>().accuracy, kOptional);
      return;
    case AttrsKind::kNone:
      break;
  }
  switch (op) {
    case O::kBroadcast: {
      // XLA lets a broadcast of a scalar omit dimensions= (they are then {}).
      const bool scalar_operand = inst.operand_count() == 1 && inst.operand(0)->shape().IsScalar();
      w.Dimensions(scalar_operand ? kOptional : kRequired, /*empty_when_absent=*/true);
      return;
    }
    case O::kTranspose:
    case O::kReverse:
    case O::kConcatenate:
    case O::kGetDimensionSize:
    case O::kSetDimensionSize:
      w.Dimensions(kRequired);
      return;
    case O::kReduce:
      w.Dimensions(kRequired);
      w.Computation("to_apply", kRequired);
      return;
    case O::kMap:
      w.Dimensions(kOptional);
      w.Computation("to_apply", kRequired);
      return;
    case O::kWhile:
      w.Computation("condition", kRequired);
      w.Computation("body", kRequired);
      return;
    case O::kConditional:
      // As XLA: the selector's type decides the spelling, a pred[] takes
      // true_/false_computation and an s32[] branch_computations.
      if (inst.operand_count() > 0 &&
          inst.operand(0)->shape().element_type() == PrimitiveType::PRED) {
        w.Computation("true_computation", kRequired);
        w.Computation("false_computation", kRequired);
      } else {
        w.ComputationList("branch_computations", kRequired);
      }
      return;
    default:
      return;
  }
}

}  // namespace xlite::attr_schema

#endif  // XLITE_TEXT_ATTRIBUTE_SCHEMA_H_
