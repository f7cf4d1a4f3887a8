// Cost analysis: the per-opcode rules of XLA's HloCostAnalysis, the pricing
// of called computations, and the flattened per-instruction list.
#include "xlite/analysis/cost_analysis.h"

#include <algorithm>

#include "xlite/analysis/call_graph.h"
#include "xlite/analysis/cost_formulas.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/ir/lapack/lapack_targets.h"

namespace xlite {

using cost_internal::Elements;
using cost_internal::LeafBytes;

void Cost::AddFlops(PrimitiveType type, double count) {
  if (count == 0) return;
  flops += count;
  for (TypedFlops& typed : flops_by_type) {
    if (typed.type == type) {
      typed.flops += count;
      return;
    }
  }
  flops_by_type.push_back({type, count});
}

void Cost::Accumulate(const Cost& other, double times) {
  for (const TypedFlops& typed : other.flops_by_type) AddFlops(typed.type, typed.flops * times);
  transcendentals += other.transcendentals * times;
  bytes_accessed += other.bytes_accessed * times;
  collective_bytes += other.collective_bytes * times;
  collectives += other.collectives * times;
}

void Cost::MaxWith(const Cost& other) {
  for (const TypedFlops& typed : other.flops_by_type) {
    auto it = std::find_if(flops_by_type.begin(), flops_by_type.end(),
                           [&](const TypedFlops& t) { return t.type == typed.type; });
    if (it == flops_by_type.end()) {
      flops_by_type.push_back(typed);
    } else {
      it->flops = std::max(it->flops, typed.flops);
    }
  }
  flops = 0;
  for (const TypedFlops& typed : flops_by_type) flops += typed.flops;
  transcendentals = std::max(transcendentals, other.transcendentals);
  bytes_accessed = std::max(bytes_accessed, other.bytes_accessed);
  collective_bytes = std::max(collective_bytes, other.collective_bytes);
  collectives = std::max(collectives, other.collectives);
}

int64_t ShapeBytes(const Shape& shape) {
  if (shape.IsTuple()) return 8 * shape.tuple_size();
  if (!shape.IsArray()) return 0;
  // A dynamic array carries its dimension sizes, an int32 each, after the
  // data (an unbounded one has no data bytes XLA can count).
  const int64_t sizes = shape.is_static() ? 0 : 4 * shape.rank();
  return std::max<int64_t>(shape.ByteSizeOf(), 0) + sizes;
}

namespace {

// Bytes an instruction writes: its array leaves (sort, batch-norm, top-k,
// opt-barrier, variadic reduce and collectives write every array of their
// tuple; the pointer table is `tuple`'s own).
double OutputBytes(const HloInstruction& hlo) {
  return static_cast<double>(hlo.shape().IsTuple() ? LeafBytes(hlo.shape())
                                                   : ShapeBytes(hlo.shape()));
}

// Bytes of the default rule: every operand read, the output written.
double DefaultBytes(const HloInstruction& hlo) {
  double bytes = OutputBytes(hlo);
  for (const HloInstruction* operand : hlo.operands()) bytes += ShapeBytes(operand->shape());
  return bytes;
}

double OperandBytes(const HloInstruction& hlo, int64_t from) {
  double bytes = 0;
  for (int64_t i = from; i < hlo.operand_count(); ++i) bytes += ShapeBytes(hlo.operand(i)->shape());
  return bytes;
}

// The element type an instruction computes in: the inputs' for ops whose
// result type differs from what they compute (dot, compare, ...).
PrimitiveType ComputeType(const HloInstruction& hlo) {
  const Shape* shape = &hlo.shape();
  if (hlo.operand_count() > 0 && hlo.opcode() != HloOpcode::kSelect &&
      hlo.opcode() != HloOpcode::kClamp && hlo.opcode() != HloOpcode::kConvert) {
    shape = &hlo.operand(0)->shape();
  }
  while (shape->IsTuple() && shape->tuple_size() > 0) shape = &shape->tuple_shapes(0);
  return shape->IsArray() ? shape->element_type() : PrimitiveType::F32;
}

bool IsCollectiveOp(HloOpcode op) { return IsCollectiveOpcode(op); }

// Opcodes that move no data and compute nothing.
bool IsFree(HloOpcode op) {
  switch (op) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast:
    case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::StatusOr<Cost> CostAnalysis::ComputationCostOf(const HloComputation& computation) {
  if (auto it = computation_costs_.find(&computation); it != computation_costs_.end()) {
    return it->second;
  }
  if (!in_progress_.insert(&computation).second) {
    return InvalidArgument("computation ", AsAbsl(computation.name()), " calls itself");
  }
  Cost total;
  for (const auto& inst : computation.instructions()) {
    XLITE_ASSIGN_OR_RETURN(Cost cost, InstructionCostOf(*inst));
    total.Accumulate(cost);
  }
  in_progress_.erase(&computation);
  computation_costs_.emplace(&computation, total);
  return total;
}

absl::StatusOr<Cost> CostAnalysis::AppliedCost(const HloComputation* callee, double times) {
  Cost cost;
  if (callee == nullptr) return cost;
  XLITE_ASSIGN_OR_RETURN(Cost sub, ComputationCostOf(*callee));
  // Only the arithmetic is copied: the callee's operands live in registers.
  for (const TypedFlops& typed : sub.flops_by_type) cost.AddFlops(typed.type, typed.flops * times);
  cost.transcendentals = sub.transcendentals * times;
  return cost;
}

absl::StatusOr<Cost> CostAnalysis::WhileCost(const HloInstruction& while_op) {
  const auto& called = while_op.called_computations();
  if (called.size() != 2) {
    return InvalidArgument("while ", AsAbsl(while_op.name()), " needs a condition and a body");
  }
  XLITE_ASSIGN_OR_RETURN(Cost condition, ComputationCostOf(*called[0]));
  XLITE_ASSIGN_OR_RETURN(Cost body, ComputationCostOf(*called[1]));
  // XLA prices one pass of each; a counted loop runs its body `trips` times
  // and tests its condition once more than that.
  std::optional<int64_t> trips = WhileTripCount(while_op);
  const bool counted = trips.has_value() && options_.multiply_trip_counts;
  const double n = counted ? static_cast<double>(*trips) : 1;
  Cost cost;
  cost.Accumulate(body, n);
  cost.Accumulate(condition, counted ? n + 1 : 1);
  return cost;
}

absl::StatusOr<Cost> CostAnalysis::FusionCost(const HloInstruction& fusion) {
  const HloComputation* body = fusion.to_apply();
  if (body == nullptr) {
    return InvalidArgument("fusion ", AsAbsl(fusion.name()), " has no body");
  }
  XLITE_ASSIGN_OR_RETURN(Cost inner, ComputationCostOf(*body));
  // Arithmetic from the body; memory traffic only at the fusion's boundary.
  Cost cost = inner;
  double bytes = static_cast<double>(cost_internal::FusionOutputBytes(fusion));
  for (int64_t i = 0; i < fusion.operand_count(); ++i) {
    const HloInstruction* param = body->parameter_instruction(i);
    bytes += param != nullptr ? cost_internal::FusionOperandReadBytes(*param)
                              : ShapeBytes(fusion.operand(i)->shape());
  }
  bytes += static_cast<double>(cost_internal::FusionConstantBytes(*body));
  cost.bytes_accessed = bytes;
  return cost;
}

absl::StatusOr<Cost> CostAnalysis::InstructionCostOf(const HloInstruction& hlo) {
  const HloOpcode op = hlo.opcode();
  Cost cost;
  if (IsFree(op)) return cost;
  cost.bytes_accessed = DefaultBytes(hlo);
  const double out_elements = static_cast<double>(Elements(hlo.shape()));
  if (IsCollectiveOp(op)) {
    cost.collectives = 1;
    cost.collective_bytes = static_cast<double>(
        std::max<int64_t>(LeafBytes(hlo.shape()), static_cast<int64_t>(OperandBytes(hlo, 0))));
  }
  switch (op) {
    case HloOpcode::kCopy:
      return cost;  // a copy moves data, it computes nothing
    case HloOpcode::kTuple:
      cost.bytes_accessed = static_cast<double>(ShapeBytes(hlo.shape()));
      return cost;
    case HloOpcode::kTranspose:
      if (cost_internal::TransposeIsBitcast(hlo)) cost.bytes_accessed = 0;
      return cost;
    case HloOpcode::kSlice:
      cost.bytes_accessed = 2.0 * ShapeBytes(hlo.shape());
      return cost;
    // As XLA, only the first start index is counted (one index array in its
    // older form, the first of the scalars in today's).
    case HloOpcode::kDynamicSlice:
      cost.bytes_accessed = 2.0 * ShapeBytes(hlo.shape()) + ShapeBytes(hlo.operand(1)->shape());
      return cost;
    case HloOpcode::kDynamicUpdateSlice:
      // The operand is updated in place: only the update is read and written.
      cost.bytes_accessed =
          2.0 * ShapeBytes(hlo.operand(1)->shape()) + ShapeBytes(hlo.operand(2)->shape());
      return cost;
    case HloOpcode::kGather:
      cost.bytes_accessed = 2.0 * ShapeBytes(hlo.shape()) + ShapeBytes(hlo.operand(1)->shape());
      return cost;
    case HloOpcode::kScatter: {
      // Operands: n inputs, the indices, n updates.
      const int64_t n = (hlo.operand_count() - 1) / 2;
      double updates_bytes = 0, update_elements = 0;
      for (int64_t i = n + 1; i < hlo.operand_count(); ++i) {
        updates_bytes += ShapeBytes(hlo.operand(i)->shape());
      }
      if (n + 1 < hlo.operand_count()) {
        update_elements = static_cast<double>(Elements(hlo.operand(n + 1)->shape()));
      }
      cost.bytes_accessed = 3.0 * updates_bytes + ShapeBytes(hlo.operand(n)->shape());
      XLITE_ASSIGN_OR_RETURN(Cost applied, AppliedCost(hlo.to_apply(), update_elements));
      applied.bytes_accessed = cost.bytes_accessed;
      return applied;
    }
    case HloOpcode::kInfeed:
      cost.bytes_accessed =
          static_cast<double>(hlo.shape().IsTuple() && hlo.shape().tuple_size() > 0
                                  ? LeafBytes(hlo.shape().tuple_shapes(0))
                                  : LeafBytes(hlo.shape()));
      return cost;
    case HloOpcode::kOutfeed:
      cost.bytes_accessed = static_cast<double>(LeafBytes(hlo.operand(0)->shape()));
      return cost;
    case HloOpcode::kDot:
    case HloOpcode::kScaledDot:
    case HloOpcode::kRaggedDot: {
      const Shape& lhs = hlo.operand(0)->shape();
      const auto& attrs = hlo.attrs<DotAttrs>();
      double reduction = 1;
      for (int64_t d : attrs.dims.lhs_contracting)
        reduction *= static_cast<double>(lhs.dimensions(d));
      double outputs = out_elements;
      if (op == HloOpcode::kRaggedDot) {
        // As XLA: one leading output dimension dropped per rhs group dimension.
        outputs = 1;
        const Shape& out = hlo.shape();
        for (int64_t d = static_cast<int64_t>(attrs.ragged.rhs_group.size()); d < out.rank(); ++d) {
          outputs *= static_cast<double>(out.dimensions(d));
        }
      }
      cost.AddFlops(ComputeType(hlo), 2 * outputs * reduction);
      return cost;
    }
    case HloOpcode::kConvolution:
      cost.AddFlops(ComputeType(hlo), cost_internal::ConvolutionFlops(hlo));
      return cost;
    case HloOpcode::kReduce: {
      const Shape& out = hlo.shape().IsTuple() ? hlo.shape().tuple_shapes(0) : hlo.shape();
      const double applications =
          static_cast<double>(Elements(hlo.operand(0)->shape()) - Elements(out));
      XLITE_ASSIGN_OR_RETURN(Cost applied, AppliedCost(hlo.to_apply(), applications));
      applied.bytes_accessed = cost.bytes_accessed;
      return applied;
    }
    case HloOpcode::kReduceWindow: {
      XLITE_ASSIGN_OR_RETURN(
          Cost applied, AppliedCost(hlo.to_apply(), cost_internal::ReduceWindowApplications(hlo)));
      applied.bytes_accessed = cost.bytes_accessed;
      return applied;
    }
    case HloOpcode::kSelectAndScatter: {
      const auto& called = hlo.called_computations();
      double window_elements = 1;
      for (const WindowDimension& w : hlo.attrs<WindowAttrs>().window) window_elements *= w.size;
      const double sources = static_cast<double>(Elements(hlo.operand(1)->shape()));
      XLITE_ASSIGN_OR_RETURN(Cost select, AppliedCost(called.empty() ? nullptr : called[0],
                                                      sources * (window_elements - 1)));
      XLITE_ASSIGN_OR_RETURN(Cost scatter,
                             AppliedCost(called.size() < 2 ? nullptr : called[1], sources));
      select.Accumulate(scatter);
      select.bytes_accessed = cost.bytes_accessed;
      return select;
    }
    case HloOpcode::kMap: {
      XLITE_ASSIGN_OR_RETURN(Cost applied, AppliedCost(hlo.to_apply(), out_elements));
      applied.bytes_accessed = cost.bytes_accessed;
      return applied;
    }
    case HloOpcode::kSort: {
      const double n = static_cast<double>(Elements(hlo.operand(0)->shape()));
      cost.AddFlops(ComputeType(hlo),
                    n * static_cast<double>(cost_internal::Log2Ceiling(static_cast<int64_t>(n))));
      return cost;
    }
    case HloOpcode::kFft: {
      double log_factors = 1;
      for (int64_t length : hlo.attrs<FftAttrs>().length) {
        log_factors *= static_cast<double>(cost_internal::Log2Floor(length));
      }
      const Shape& in = hlo.operand(0)->shape();
      const double elements = static_cast<double>(
          Elements(in.IsTuple() && in.tuple_size() > 0 ? in.tuple_shapes(0) : in));
      cost.AddFlops(ComputeType(hlo), 2 * 4 * log_factors * elements);
      return cost;
    }
    case HloOpcode::kTriangularSolve: {
      const Shape& a = hlo.operand(0)->shape();
      const Shape& b = hlo.operand(1)->shape();
      cost.bytes_accessed = ShapeBytes(hlo.shape()) + ShapeBytes(a) / 2.0 + ShapeBytes(b);
      const double n = a.rank() > 0 ? static_cast<double>(a.dimensions(a.rank() - 1)) : 1;
      cost.AddFlops(ComputeType(hlo), 2 * n * static_cast<double>(Elements(b)));
      return cost;
    }
    case HloOpcode::kCholesky: {
      const Shape& a = hlo.operand(0)->shape();
      cost.bytes_accessed = static_cast<double>(ShapeBytes(a));
      const int64_t n = a.rank() > 0 ? a.dimensions(a.rank() - 1) : 1;
      cost.AddFlops(ComputeType(hlo), static_cast<double>(n * Elements(a) / 3));
      return cost;
    }
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart: {
      // XLA assumes two participants: one addition per output element, and
      // counts the output's arrays rather than its pointer table.
      cost.AddFlops(ComputeType(hlo),
                    static_cast<double>(cost_internal::ElementsRecursive(hlo.shape())));
      cost.bytes_accessed = static_cast<double>(LeafBytes(hlo.shape())) + OperandBytes(hlo, 0);
      return cost;
    }
    case HloOpcode::kRng:
      cost.transcendentals = out_elements;
      return cost;
    case HloOpcode::kRngBitGenerator:
      cost.transcendentals = static_cast<double>(cost_internal::ElementsRecursive(hlo.shape()));
      return cost;
    case HloOpcode::kFusion:
      return FusionCost(hlo);
    case HloOpcode::kCall:
    case HloOpcode::kAsyncStart: {
      if (hlo.to_apply() == nullptr) return cost;
      return ComputationCostOf(*hlo.to_apply());
    }
    case HloOpcode::kWhile:
      return WhileCost(hlo);
    case HloOpcode::kConditional: {
      Cost most;
      for (const HloComputation* branch : hlo.called_computations()) {
        XLITE_ASSIGN_OR_RETURN(Cost branch_cost, ComputationCostOf(*branch));
        most.MaxWith(branch_cost);
      }
      return most;
    }
    case HloOpcode::kCustomCall:
      if (options_.custom_calls_unknown) {
        cost.AddFlops(ComputeType(hlo), -1);
        cost.bytes_accessed = -1;
        return cost;
      }
      if (const LapackTarget* lapack = FindLapackTarget(hlo.attrs<CustomCallAttrs>().target)) {
        cost.AddFlops(lapack->type, cost_internal::LapackFlops(hlo, *lapack));
      }
      // Other targets are unknown work (XLA reports -1): the data they touch
      // is still counted.
      return cost;
    case HloOpcode::kScan:
      return Unimplemented("cost of scan (", AsAbsl(hlo.name()), ")");
    default:
      break;
  }
  if (IsElementwiseOpcode(op) || op == HloOpcode::kBitcastConvert) {
    if (IsTranscendentalOpcode(op)) {
      cost.transcendentals = out_elements;
    } else {
      cost.AddFlops(ComputeType(hlo), out_elements);
    }
  }
  return cost;
}

namespace {

// Walks the module from the entry, replacing while and call instructions by
// their callees' instructions, each counted as often as it runs.
class Flattener {
 public:
  Flattener(CostAnalysis* analysis, const CostOptions& options, ModuleCost* out)
      : analysis_(analysis), options_(options), out_(out) {}

  absl::Status Visit(const HloComputation& computation, double executions, int depth) {
    if (depth > kMaxCallDepth) return InvalidArgument(CallDepthMessage());
    for (const auto& inst : computation.instructions()) {
      const auto& called = inst->called_computations();
      if (inst->opcode() == HloOpcode::kWhile && called.size() == 2) {
        std::optional<int64_t> trips = WhileTripCount(*inst);
        const bool counted = trips.has_value() && options_.multiply_trip_counts;
        const double n = counted ? static_cast<double>(*trips) : 1;
        XLITE_RETURN_IF_ERROR(Visit(*called[0], executions * (counted ? n + 1 : 1), depth + 1));
        XLITE_RETURN_IF_ERROR(Visit(*called[1], executions * n, depth + 1));
        if (!trips) ++out_->loops_with_unknown_trip_count;
        continue;
      }
      if (inst->opcode() == HloOpcode::kCall && inst->to_apply() != nullptr) {
        XLITE_RETURN_IF_ERROR(Visit(*inst->to_apply(), executions, depth + 1));
        continue;
      }
      if (IsFree(inst->opcode())) continue;
      XLITE_ASSIGN_OR_RETURN(Cost once, analysis_->InstructionCostOf(*inst));
      if (inst->opcode() == HloOpcode::kCustomCall &&
          (options_.custom_calls_unknown ||
           FindLapackTarget(inst->attrs<CustomCallAttrs>().target) == nullptr)) {
        ++custom_calls_;
      }
      auto [it, inserted] = index_.try_emplace(inst.get(), out_->instructions.size());
      if (inserted) out_->instructions.push_back({inst.get(), Cost(), 0});
      InstructionCost& record = out_->instructions[it->second];
      record.cost.Accumulate(once, executions);
      record.executions += executions;
      out_->total.Accumulate(once, executions);
    }
    return absl::OkStatus();
  }

  int64_t custom_calls() const { return custom_calls_; }

 private:
  CostAnalysis* analysis_;
  CostOptions options_;
  ModuleCost* out_;
  absl::flat_hash_map<const HloInstruction*, size_t> index_;
  int64_t custom_calls_ = 0;
};

}  // namespace

absl::StatusOr<ModuleCost> AnalyzeModuleCost(const HloModule& module, const CostOptions& options) {
  ModuleCost result;
  if (module.entry_computation() == nullptr)
    return InvalidArgument("module has no entry computation");
  CostAnalysis analysis(options);
  Flattener flattener(&analysis, options, &result);
  XLITE_RETURN_IF_ERROR(flattener.Visit(*module.entry_computation(), 1, 0));
  result.custom_calls = flattener.custom_calls();
  return result;
}

}  // namespace xlite
