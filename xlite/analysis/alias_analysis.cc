#include "xlite/analysis/alias_analysis.h"

#include <algorithm>
#include <numeric>

#include "xlite/analysis/cost_analysis.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"

namespace xlite {

std::string_view BufferKindName(BufferKind kind) {
  switch (kind) {
    case BufferKind::kTemporary:
      return "temporary";
    case BufferKind::kEntryParameter:
      return "parameter";
    case BufferKind::kConstant:
      return "constant";
    case BufferKind::kOutput:
      return "output";
  }
  return "temporary";
}

std::vector<InPlacePair> InPlacePairsOf(const HloInstruction& inst) {
  auto from_aliasing = [](const std::vector<OutputOperandAlias>& aliasing) {
    std::vector<InPlacePair> pairs;
    for (const OutputOperandAlias& a : aliasing) {
      pairs.push_back({a.output_index, a.operand, a.operand_index});
    }
    return pairs;
  };
  switch (inst.opcode()) {
    case HloOpcode::kDynamicUpdateSlice:
      return {{{}, 0, {}}};
    case HloOpcode::kScatter: {
      // (operands..., indices, updates...): output i reuses operand i.
      const int64_t n = (inst.operand_count() - 1) / 2;
      if (n == 1) return {{{}, 0, {}}};
      std::vector<InPlacePair> pairs;
      for (int64_t i = 0; i < n; ++i) pairs.push_back({{i}, i, {}});
      return pairs;
    }
    case HloOpcode::kFusion:
      if (!inst.has_attrs()) return {};
      return from_aliasing(inst.attrs<FusionAttrs>().output_to_operand_aliasing);
    case HloOpcode::kCustomCall:
      if (!inst.has_attrs()) return {};
      return from_aliasing(inst.attrs<CustomCallAttrs>().output_to_operand_aliasing);
    default:
      return {};
  }
}

namespace {

class UnionFind {
 public:
  explicit UnionFind(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int32_t Find(int32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  // The smaller id stays the root, so buffers are numbered by first value.
  void Union(int32_t a, int32_t b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    parent_[b] = a;
  }

 private:
  std::vector<int32_t> parent_;
};

// Whether an in-place op may write over its operand's value: the operand
// defines it, reads it nowhere else and does not return it, and it is
// neither an entry parameter nor a constant (both outlive the op). Anything
// else needs a copy (copy insertion's job), so the output gets a buffer of
// its own: memory is then over- rather than under-counted.
bool CanWriteInPlace(const DataflowAnalysis& dataflow, const HloInstruction& op,
                     const InPlacePair& pair) {
  if (pair.operand < 0 || pair.operand >= op.operand_count()) return false;
  const HloInstruction* operand = op.operand(pair.operand);
  absl::Span<const int32_t> set = dataflow.ValueSetAt(*operand, pair.operand_index);
  if (set.size() != 1) return false;
  const HloValue& value = dataflow.value(set[0]);
  if (value.instruction != operand || value.index != pair.operand_index) return false;
  if (operand->opcode() == HloOpcode::kParameter || operand->opcode() == HloOpcode::kConstant) {
    return false;
  }
  return operand->user_count() == 1 && !operand->IsRoot();
}

}  // namespace

absl::StatusOr<std::unique_ptr<AliasAnalysis>> AliasAnalysis::Run(const HloModule& module) {
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<DataflowAnalysis> dataflow, DataflowAnalysis::Run(module));
  std::unique_ptr<AliasAnalysis> analysis(new AliasAnalysis(std::move(dataflow)));
  analysis->Build();
  return analysis;
}

void AliasAnalysis::Build() {
  const DataflowAnalysis& df = *dataflow_;
  const size_t n = df.values().size();
  UnionFind sets(n);
  // Values that meet at one position live in one buffer.
  for (const HloComputation* c : df.sequential_computations()) {
    for (const auto& inst : c->instructions()) {
      const int32_t count = ShapePositionCount(inst->shape());
      for (int32_t p = 0; p < count; ++p) {
        absl::Span<const int32_t> set = df.ValueSetAtFlat(*inst, p);
        for (size_t k = 1; k < set.size(); ++k) sets.Union(set[0], set[k]);
      }
      for (const InPlacePair& pair : InPlacePairsOf(*inst)) {
        if (!CanWriteInPlace(df, *inst, pair)) continue;
        const int32_t out = df.ValueDefinedAt(*inst, pair.output_index);
        absl::Span<const int32_t> in =
            df.ValueSetAt(*inst->operand(pair.operand), pair.operand_index);
        if (out >= 0 && !in.empty()) sets.Union(out, in[0]);
      }
    }
  }
  // Entry outputs aliased to parameters reuse the parameter's buffer.
  const HloComputation* entry = df.module().entry_computation();
  std::vector<bool> donated_value(n, false);
  auto parameter_value = [&](int64_t number, const ShapeIndex& index) -> int32_t {
    const HloInstruction* param = entry->parameter_instruction(number);
    return param == nullptr ? -1 : df.ValueDefinedAt(*param, index);
  };
  for (const InputOutputAlias& alias : df.module().config().input_output_alias) {
    const int32_t param = parameter_value(alias.parameter, alias.parameter_index);
    if (param < 0) continue;
    donated_value[param] = true;
    for (int32_t out : df.ValueSetAt(*entry->root_instruction(), alias.output_index)) {
      sets.Union(param, out);
    }
  }
  for (const BufferDonor& donor : df.module().config().buffer_donors) {
    const int32_t param = parameter_value(donor.parameter, donor.parameter_index);
    if (param >= 0) donated_value[param] = true;
  }

  std::vector<bool> is_output(n, false);
  for (int32_t id : df.AllValuesAt(*entry->root_instruction())) is_output[id] = true;

  buffer_of_value_.assign(n, -1);
  for (size_t v = 0; v < n; ++v) {
    const int32_t root = sets.Find(static_cast<int32_t>(v));
    if (buffer_of_value_[root] < 0) {
      buffer_of_value_[root] = static_cast<int32_t>(buffers_.size());
      HloBuffer buffer;
      buffer.id = static_cast<int32_t>(buffers_.size());
      buffers_.push_back(std::move(buffer));
    }
    const int32_t id = buffer_of_value_[root];
    buffer_of_value_[v] = id;
    HloBuffer& buffer = buffers_[id];
    buffer.values.push_back(static_cast<int32_t>(v));
    const HloValue& value = df.value(static_cast<int32_t>(v));
    buffer.bytes = std::max(buffer.bytes, ShapeBytes(*value.shape));
    const bool entry_param = value.instruction->opcode() == HloOpcode::kParameter &&
                             value.instruction->parent() == entry;
    if (entry_param) {
      buffer.kind = BufferKind::kEntryParameter;
      buffer.donated = buffer.donated || donated_value[v];
    } else if (value.instruction->opcode() == HloOpcode::kConstant &&
               buffer.kind != BufferKind::kEntryParameter) {
      buffer.kind = BufferKind::kConstant;
    } else if (is_output[v] && buffer.kind == BufferKind::kTemporary) {
      buffer.kind = BufferKind::kOutput;
    }
  }
  // A buffer that reaches the output is an output even when a constant
  // defines one of its values.
  for (HloBuffer& buffer : buffers_) {
    if (buffer.kind != BufferKind::kConstant) continue;
    for (int32_t v : buffer.values) {
      if (is_output[v]) buffer.kind = BufferKind::kOutput;
    }
  }
}

std::vector<int32_t> AliasAnalysis::BuffersAt(const HloInstruction& inst) const {
  std::vector<int32_t> ids;
  for (int32_t v : dataflow_->AllValuesAt(inst)) ids.push_back(buffer_of_value_[v]);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

const HloValue& AliasAnalysis::RepresentativeValue(int32_t buffer_id) const {
  const HloBuffer& buffer = buffers_[buffer_id];
  const HloComputation* entry = dataflow_->module().entry_computation();
  const HloValue* best = &dataflow_->value(buffer.values[0]);
  for (int32_t v : buffer.values) {
    const HloValue& value = dataflow_->value(v);
    // A parameter's buffer is named by the parameter (the values that loops
    // write into it come later).
    if (value.instruction->opcode() == HloOpcode::kParameter &&
        value.instruction->parent() == entry) {
      return value;
    }
    if (ShapeBytes(*value.shape) > ShapeBytes(*best->shape)) best = &value;
  }
  return *best;
}

}  // namespace xlite
