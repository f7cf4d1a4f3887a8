// The per-opcode attribute text of an instruction (everything between the
// operand list and the shared attributes), in XLA's printing order; default
// values are left out as XLA does.
#include <algorithm>

#include "xlite/ir/computation.h"
#include "xlite/ir/attribute_names.h"
#include "xlite/text/printer_internal.h"

namespace xlite::printer_internal {
namespace {

// Appends `, name=` and returns the output for the value.
std::string* Attr(std::string_view name, std::string* out) {
  out->append(", ");
  out->append(name);
  out->push_back('=');
  return out;
}

void IntAttr(std::string_view name, int64_t v, std::string* out) {
  AppendInt(v, Attr(name, out));
}

void ListAttr(std::string_view name, absl::Span<const int64_t> v, std::string* out) {
  AppendIntList(v, Attr(name, out));
}

void TrueAttr(std::string_view name, bool v, std::string* out) {
  if (v) Attr(name, out)->append("true");
}

void ComputationList(absl::Span<HloComputation* const> cs, bool percent, std::string* out) {
  out->push_back('{');
  for (size_t i = 0; i < cs.size(); ++i) {
    if (i > 0) out->append(", ");
    AppendName(cs[i]->name(), percent, out);
  }
  out->push_back('}');
}

void AppendWindow(const Window& window, std::string* out) {
  out->push_back('{');
  bool first = true;
  auto field = [&](const char* name, auto is_default, auto write) {
    bool all_default = true;
    for (const WindowDimension& d : window) all_default = all_default && is_default(d);
    if (all_default && std::string_view(name) != "size") return;
    if (!first) out->push_back(' ');
    first = false;
    out->append(name);
    out->push_back('=');
    for (size_t i = 0; i < window.size(); ++i) {
      if (i > 0) out->push_back('x');
      write(window[i]);
    }
  };
  field("size", [](const WindowDimension&) { return false; },
        [&](const WindowDimension& d) { AppendInt(d.size, out); });
  field("stride", [](const WindowDimension& d) { return d.stride == 1; },
        [&](const WindowDimension& d) { AppendInt(d.stride, out); });
  field("pad", [](const WindowDimension& d) { return d.padding_low == 0 && d.padding_high == 0; },
        [&](const WindowDimension& d) {
          AppendInt(d.padding_low, out);
          out->push_back('_');
          AppendInt(d.padding_high, out);
        });
  field("lhs_dilate", [](const WindowDimension& d) { return d.base_dilation == 1; },
        [&](const WindowDimension& d) { AppendInt(d.base_dilation, out); });
  field("rhs_dilate", [](const WindowDimension& d) { return d.window_dilation == 1; },
        [&](const WindowDimension& d) { AppendInt(d.window_dilation, out); });
  field("rhs_reversal", [](const WindowDimension& d) { return !d.window_reversal; },
        [&](const WindowDimension& d) { out->push_back(d.window_reversal ? '1' : '0'); });
  out->push_back('}');
}

void WindowAttr(const Window& window, std::string* out) {
  if (window.empty()) return;
  AppendWindow(window, Attr("window", out));
}

// `b01f_01io->b01f`: each role's letter at its dimension number, spatial
// dimensions by their index. As in XLA, each side is as long as its largest
// dimension number needs, with `?` for the numbers no role names.
void AppendConvDims(const ConvDimensions& d, std::string* out) {
  auto side = [&](int64_t a, char a_label, int64_t b, char b_label,
                  const std::vector<int64_t>& spatial) {
    int64_t rank = std::max(a, b) + 1;
    for (int64_t s : spatial) rank = std::max(rank, s + 1);
    std::string labels(static_cast<size_t>(std::max<int64_t>(rank, 0)), '?');
    auto put = [&](int64_t dim, char c) {
      if (dim >= 0 && dim < rank) labels[dim] = c;
    };
    put(a, a_label);
    put(b, b_label);
    for (size_t i = 0; i < spatial.size(); ++i) {
      put(spatial[i], static_cast<char>('0' + i));
    }
    out->append(labels);
  };
  side(d.input_batch, 'b', d.input_feature, 'f', d.input_spatial);
  out->push_back('_');
  side(d.kernel_input_feature, 'i', d.kernel_output_feature, 'o', d.kernel_spatial);
  out->append("->");
  side(d.output_batch, 'b', d.output_feature, 'f', d.output_spatial);
}

void PrecisionAttrs(const PrecisionConfig& p, std::string* out) {
  bool any = false;
  for (Precision x : p.operand_precision) any = any || x != Precision::kDefault;
  if (any) {
    std::string* o = Attr("operand_precision", out);
    o->push_back('{');
    for (size_t i = 0; i < p.operand_precision.size(); ++i) {
      if (i > 0) o->push_back(',');
      AppendEnumName(p.operand_precision[i], o);
    }
    o->push_back('}');
  }
  if (!p.algorithm.empty()) Attr("algorithm", out)->append(p.algorithm);
}

void AliasingAttr(const std::vector<OutputOperandAlias>& aliases, std::string* out) {
  if (aliases.empty()) return;
  std::string* o = Attr("output_to_operand_aliasing", out);
  o->push_back('{');
  for (size_t i = 0; i < aliases.size(); ++i) {
    if (i > 0) o->append(", ");
    AppendShapeIndex(aliases[i].output_index, o);
    o->append(": (");
    AppendInt(aliases[i].operand, o);
    o->append(", ");
    AppendShapeIndex(aliases[i].operand_index, o);
    o->push_back(')');
  }
  o->push_back('}');
}

void ReplicaGroupsAttr(const ReplicaGroups& g, std::string* out) {
  std::string* o = Attr("replica_groups", out);
  if (g.is_mesh()) {
    o->append("mesh[");
    for (size_t i = 0; i < g.mesh_axes.size(); ++i) {
      if (i > 0) o->push_back(',');
      o->push_back('\'');
      o->append(g.mesh_axes[i].name);
      o->append("'=");
      AppendInt(g.mesh_axes[i].size, o);
    }
    o->append("] {");
    for (size_t i = 0; i < g.mesh_selected.size(); ++i) {
      if (i > 0) o->push_back(',');
      o->push_back('\'');
      o->append(g.mesh_axes[g.mesh_selected[i]].name);
      o->push_back('\'');
    }
    o->push_back('}');
    return;
  }
  if (g.is_iota) {
    o->push_back('[');
    AppendInt(g.num_groups, o);
    o->push_back(',');
    AppendInt(g.group_size, o);
    o->push_back(']');
    AppendIotaDevices(g.iota_reshape, g.iota_perm, o);
    return;
  }
  o->push_back('{');
  for (size_t i = 0; i < g.groups.size(); ++i) {
    if (i > 0) o->push_back(',');
    AppendIntList(g.groups[i], o);
  }
  o->push_back('}');
}

void DimensionsAttr(const HloInstruction& inst, std::string* out) {
  if (inst.has_dimensions_attr()) ListAttr("dimensions", inst.dimensions(), out);
}

void CollectiveAttrsText(const HloInstruction& inst, std::string* out) {
  const auto& a = inst.attrs<CollectiveAttrs>();
  HloOpcode op = inst.opcode();
  bool permute = op == HloOpcode::kCollectivePermute || op == HloOpcode::kCollectivePermuteStart;
  if (a.channel_id) IntAttr("channel_id", *a.channel_id, out);
  if (permute) {
    std::string* o = Attr("source_target_pairs", out);
    o->push_back('{');
    for (size_t i = 0; i < a.source_target_pairs.size(); ++i) {
      if (i > 0) o->push_back(',');
      o->push_back('{');
      AppendInt(a.source_target_pairs[i].first, o);
      o->push_back(',');
      AppendInt(a.source_target_pairs[i].second, o);
      o->push_back('}');
    }
    o->push_back('}');
    if (!a.slice_sizes.empty()) {
      std::string* s = Attr("slice_sizes", out);
      s->push_back('{');
      for (size_t i = 0; i < a.slice_sizes.size(); ++i) {
        if (i > 0) s->push_back(',');
        AppendIntList(a.slice_sizes[i], s);
      }
      s->push_back('}');
    }
  } else {
    ReplicaGroupsAttr(a.replica_groups, out);
  }
  TrueAttr("constrain_layout", a.constrain_layout, out);
  DimensionsAttr(inst, out);
  TrueAttr("use_global_device_ids", a.use_global_device_ids, out);
}

void CustomCallAttrsText(const CustomCallAttrs& a, std::string* out) {
  // XLA's order: the convolution-like attributes come before the target.
  if (a.window) WindowAttr(*a.window, out);
  if (a.conv_dims) AppendConvDims(*a.conv_dims, Attr("dim_labels", out));
  if (a.feature_group_count != 1) IntAttr("feature_group_count", a.feature_group_count, out);
  if (a.batch_group_count != 1) IntAttr("batch_group_count", a.batch_group_count, out);
  PrecisionAttrs(a.precision, out);
  AppendQuoted(a.target, Attr("custom_call_target", out));
  if (a.operand_layout_constraints) {
    std::string* o = Attr("operand_layout_constraints", out);
    o->push_back('{');
    for (size_t i = 0; i < a.operand_layout_constraints->size(); ++i) {
      if (i > 0) o->append(", ");
      (*a.operand_layout_constraints)[i].AppendTo(o);
    }
    o->push_back('}');
  }
  TrueAttr("custom_call_has_side_effect", a.has_side_effect, out);
  if (a.literal) {
    AppendShapedLiteralText(*a.literal, Attr("literal", out));
  }
  AliasingAttr(a.output_to_operand_aliasing, out);
  if (a.padding_type) {
    AppendEnumName(*a.padding_type, Attr("padding_type", out));
  }
  if (a.schedule != CustomCallSchedule::kNone) {
    AppendEnumName(a.schedule, Attr("schedule", out));
  }
  if (a.api_version != CustomCallApiVersion::kOriginal) {
    AppendEnumName(a.api_version, Attr("api_version", out));
  }
}

void RecordAttrs(const HloInstruction& inst, std::string* out) {
  using O = HloOpcode;
  O op = inst.opcode();
  switch (AttrsKindOf(op)) {
    case AttrsKind::kNone:
    case AttrsKind::kConstant:
      DimensionsAttr(inst, out);
      return;
    case AttrsKind::kParameter: {
      const auto& a = inst.attrs<ParameterAttrs>();
      if (a.replication) {
        std::string* o = Attr("parameter_replication", out);
        o->push_back('{');
        for (size_t i = 0; i < a.replication->size(); ++i) {
          if (i > 0) o->push_back(',');
          o->append((*a.replication)[i] ? "true" : "false");
        }
        o->push_back('}');
      }
      return;
    }
    case AttrsKind::kInt: {
      const auto& a = inst.attrs<IntAttrs>();
      switch (op) {
        case O::kIota: IntAttr("iota_dimension", a.value, out); return;
        case O::kGetTupleElement: IntAttr("index", a.value, out); return;
        case O::kReshape:
          if (a.value >= 0) IntAttr("inferred_dimension", a.value, out);
          return;
        case O::kTopK:
          IntAttr("k", a.value, out);
          Attr("largest", out)->append(a.flag ? "true" : "false");
          return;
        case O::kRngGetAndUpdateState: IntAttr("delta", a.value, out); return;
        case O::kCopyStart:
          if (a.value >= 0) IntAttr("cross_program_prefetch_index", a.value, out);
          return;
        case O::kCholesky: TrueAttr("lower", a.flag, out); return;
        case O::kSort:
          DimensionsAttr(inst, out);
          TrueAttr("is_stable", a.flag, out);
          return;
        case O::kCall: TrueAttr("is_composite", a.flag, out); return;
        default: return;
      }
    }
    case AttrsKind::kCompare: {
      const auto& a = inst.attrs<CompareAttrs>();
      AppendEnumName(a.direction, Attr("direction", out));
      if (a.type) {
        PrimitiveType t = inst.operand_count() > 0 ? inst.operand(0)->shape().element_type()
                                                   : PrimitiveType::PRIMITIVE_TYPE_INVALID;
        if (*a.type != DefaultComparisonType(t)) {
          AppendEnumName(*a.type, Attr("type", out));
        }
      }
      return;
    }
    case AttrsKind::kSlice: {
      const auto& a = inst.attrs<SliceAttrs>();
      bool strided = false;
      for (int64_t s : a.strides) strided = strided || s != 1;
      std::string* o = Attr("slice", out);
      o->push_back('{');
      for (size_t i = 0; i < a.starts.size(); ++i) {
        if (i > 0) o->append(", ");
        o->push_back('[');
        AppendInt(a.starts[i], o);
        o->push_back(':');
        AppendInt(a.limits[i], o);
        if (strided) {
          o->push_back(':');
          AppendInt(a.strides[i], o);
        }
        o->push_back(']');
      }
      o->push_back('}');
      return;
    }
    case AttrsKind::kDynamicSlice:
      ListAttr("dynamic_slice_sizes", inst.attrs<DynamicSliceAttrs>().sizes, out);
      return;
    case AttrsKind::kPad: {
      const PaddingConfig& p = inst.attrs<PadAttrs>().padding;
      bool interior = false;
      for (const PaddingDimension& d : p) interior = interior || d.interior != 0;
      std::string* o = Attr("padding", out);
      for (size_t i = 0; i < p.size(); ++i) {
        if (i > 0) o->push_back('x');
        AppendInt(p[i].low, o);
        o->push_back('_');
        AppendInt(p[i].high, o);
        if (interior) {
          o->push_back('_');
          AppendInt(p[i].interior, o);
        }
      }
      return;
    }
    case AttrsKind::kWindow:
      WindowAttr(inst.attrs<WindowAttrs>().window, out);
      return;
    case AttrsKind::kConvolution: {
      const auto& a = inst.attrs<ConvolutionAttrs>();
      WindowAttr(a.window, out);
      AppendConvDims(a.dims, Attr("dim_labels", out));
      if (a.feature_group_count != 1) IntAttr("feature_group_count", a.feature_group_count, out);
      if (a.batch_group_count != 1) IntAttr("batch_group_count", a.batch_group_count, out);
      PrecisionAttrs(a.precision, out);
      if (!a.conv_kind.empty()) Attr("conv_kind", out)->append(a.conv_kind);
      return;
    }
    case AttrsKind::kDot: {
      const auto& a = inst.attrs<DotAttrs>();
      if (!a.dims.lhs_batch.empty()) ListAttr("lhs_batch_dims", a.dims.lhs_batch, out);
      ListAttr("lhs_contracting_dims", a.dims.lhs_contracting, out);
      if (!a.dims.rhs_batch.empty()) ListAttr("rhs_batch_dims", a.dims.rhs_batch, out);
      ListAttr("rhs_contracting_dims", a.dims.rhs_contracting, out);
      if (op == O::kRaggedDot) {
        ListAttr("lhs_ragged_dims", a.ragged.lhs_ragged, out);
        if (!a.ragged.rhs_group.empty()) ListAttr("rhs_group_dims", a.ragged.rhs_group, out);
      }
      PrecisionAttrs(a.precision, out);
      return;
    }
    case AttrsKind::kGather: {
      const auto& a = inst.attrs<GatherAttrs>();
      ListAttr("offset_dims", a.dims.offset_dims, out);
      ListAttr("collapsed_slice_dims", a.dims.collapsed_slice_dims, out);
      ListAttr("start_index_map", a.dims.start_index_map, out);
      if (!a.dims.operand_batching_dims.empty()) {
        ListAttr("operand_batching_dims", a.dims.operand_batching_dims, out);
      }
      if (!a.dims.start_indices_batching_dims.empty()) {
        ListAttr("start_indices_batching_dims", a.dims.start_indices_batching_dims, out);
      }
      IntAttr("index_vector_dim", a.dims.index_vector_dim, out);
      ListAttr("slice_sizes", a.slice_sizes, out);
      TrueAttr("indices_are_sorted", a.indices_are_sorted, out);
      return;
    }
    case AttrsKind::kScatter: {
      const auto& a = inst.attrs<ScatterAttrs>();
      ListAttr("update_window_dims", a.dims.update_window_dims, out);
      ListAttr("inserted_window_dims", a.dims.inserted_window_dims, out);
      ListAttr("scatter_dims_to_operand_dims", a.dims.scatter_dims_to_operand_dims, out);
      if (!a.dims.input_batching_dims.empty()) {
        ListAttr("input_batching_dims", a.dims.input_batching_dims, out);
      }
      if (!a.dims.scatter_indices_batching_dims.empty()) {
        ListAttr("scatter_indices_batching_dims", a.dims.scatter_indices_batching_dims, out);
      }
      IntAttr("index_vector_dim", a.dims.index_vector_dim, out);
      TrueAttr("indices_are_sorted", a.indices_are_sorted, out);
      TrueAttr("unique_indices", a.unique_indices, out);
      return;
    }
    case AttrsKind::kFft: {
      const auto& a = inst.attrs<FftAttrs>();
      AppendEnumName(a.type, Attr("fft_type", out));
      ListAttr("fft_length", a.length, out);
      return;
    }
    case AttrsKind::kTriangularSolve: {
      const auto& a = inst.attrs<TriangularSolveAttrs>();
      TrueAttr("left_side", a.left_side, out);
      TrueAttr("lower", a.lower, out);
      AppendEnumName(a.transpose_a, Attr("transpose_a", out));
      TrueAttr("unit_diagonal", a.unit_diagonal, out);
      return;
    }
    case AttrsKind::kBatchNorm: {
      const auto& a = inst.attrs<BatchNormAttrs>();
      AppendFloat(a.epsilon, PrimitiveType::F32, Attr("epsilon", out));
      IntAttr("feature_index", a.feature_index, out);
      return;
    }
    case AttrsKind::kReducePrecision: {
      const auto& a = inst.attrs<ReducePrecisionAttrs>();
      IntAttr("exponent_bits", a.exponent_bits, out);
      IntAttr("mantissa_bits", a.mantissa_bits, out);
      return;
    }
    case AttrsKind::kRng: {
      const auto& a = inst.attrs<RngAttrs>();
      if (op == O::kRng) {
        AppendEnumName(a.distribution, Attr("distribution", out));
      } else {
        AppendEnumName(a.algorithm, Attr("algorithm", out));
      }
      return;
    }
    case AttrsKind::kCollective:
      CollectiveAttrsText(inst, out);
      return;
    case AttrsKind::kSendRecv: {
      const auto& a = inst.attrs<SendRecvAttrs>();
      if (a.channel_id) IntAttr("channel_id", *a.channel_id, out);
      TrueAttr("is_host_transfer", a.is_host_transfer, out);
      return;
    }
    case AttrsKind::kFeed: {
      const auto& a = inst.attrs<FeedAttrs>();
      if (op == O::kOutfeed && a.outfeed_shape) a.outfeed_shape->AppendTo(Attr("outfeed_shape", out));
      if (!a.config.empty()) {
        AppendQuoted(a.config, Attr(op == O::kInfeed ? "infeed_config" : "outfeed_config", out));
      }
      return;
    }
    case AttrsKind::kFusion: {
      const auto& a = inst.attrs<FusionAttrs>();
      AppendEnumName(a.kind, Attr("kind", out));
      AliasingAttr(a.output_to_operand_aliasing, out);
      return;
    }
    case AttrsKind::kCustomCall:
      CustomCallAttrsText(inst.attrs<CustomCallAttrs>(), out);
      return;
    case AttrsKind::kAsync: {
      const auto& a = inst.attrs<AsyncAttrs>();
      AliasingAttr(a.output_to_operand_aliasing, out);
      // update and done take the thread of their async-start, as in XLA
      if (op == O::kAsyncStart && a.execution_thread != "main") {
        AppendQuoted(a.execution_thread, Attr("async_execution_thread", out));
      }
      return;
    }
    case AttrsKind::kDomain: {
      const auto& a = inst.attrs<DomainAttrs>();
      std::string* o = Attr("domain", out);
      o->append("{kind=");
      AppendQuoted(a.kind, o);
      if (a.entry) {
        o->append(", entry=");
        AppendShardingText(*a.entry, o);
      }
      if (a.exit) {
        o->append(", exit=");
        AppendShardingText(*a.exit, o);
      }
      o->push_back('}');
      return;
    }
    case AttrsKind::kScan: {
      const auto& a = inst.attrs<ScanAttrs>();
      DimensionsAttr(inst, out);
      IntAttr("num_carries", a.num_carries, out);
      TrueAttr("is_reverse", a.is_reverse, out);
      TrueAttr("is_associative", a.is_associative, out);
      return;
    }
    case AttrsKind::kAccuracy: {
      if (!inst.has_attrs()) return;
      const ResultAccuracy& r = inst.attrs<AccuracyAttrs>().accuracy;
      if (r == ResultAccuracy()) return;
      std::string* o = Attr("result_accuracy", out);
      if (!r.mode.empty()) {
        o->append("{mode=");
        o->append(r.mode);
        o->push_back('}');
      } else {
        o->append("{tolerance={atol=");
        AppendFloat(r.atol, PrimitiveType::F64, o);
        o->append(",rtol=");
        AppendFloat(r.rtol, PrimitiveType::F64, o);
        o->append(",ulps=");
        AppendInt(r.ulps, o);
        o->append("}}");
      }
      return;
    }
  }
}

void CalledComputationAttrs(const HloInstruction& inst, bool percent, std::string* out) {
  const auto& called = inst.called_computations();
  if (called.empty()) return;
  auto ref = [&](const HloComputation* c, std::string_view attr) {
    AppendName(c->name(), percent, Attr(attr, out));
  };
  using O = HloOpcode;
  switch (inst.opcode()) {
    case O::kWhile:
      ref(called[0], "condition");
      if (called.size() > 1) ref(called[1], "body");
      return;
    case O::kSelectAndScatter:
      ref(called[0], "select");
      if (called.size() > 1) ref(called[1], "scatter");
      return;
    case O::kConditional:
      if (inst.operand_count() > 0 && inst.operand(0)->shape().element_type() == PrimitiveType::PRED &&
          called.size() == 2) {
        ref(called[0], "true_computation");
        ref(called[1], "false_computation");
      } else {
        ComputationList(called, percent, Attr("branch_computations", out));
      }
      return;
    case O::kFusion:
    case O::kAsyncStart:
      ref(called[0], "calls");
      return;
    case O::kAsyncUpdate:
    case O::kAsyncDone:
      return;  // as XLA: the computation is the async-start's, written there
    case O::kCustomCall:  // XLA writes a list even for one (to_apply= is read too)
      ComputationList(called, percent, Attr("called_computations", out));
      return;
    default:
      ref(called[0], "to_apply");
      return;
  }
}

}  // namespace

void AppendOpAttributes(const HloInstruction& inst, bool percent, std::string* out) {
  // XLA writes a call's to_apply before is_composite, and every other op's
  // called computations after its own attributes.
  bool called_first = inst.opcode() == HloOpcode::kCall;
  if (called_first) CalledComputationAttrs(inst, percent, out);
  if (inst.has_attrs() || AttrsKindOf(inst.opcode()) == AttrsKind::kNone ||
      AttrsKindOf(inst.opcode()) == AttrsKind::kAccuracy) {
    RecordAttrs(inst, out);
  }
  if (!called_first) CalledComputationAttrs(inst, percent, out);
}

}  // namespace xlite::printer_internal
