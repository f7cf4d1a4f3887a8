#include "xlite/analysis/verifier.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "xlite/analysis/verifier_internal.h"
#include "xlite/inference/shape_inference.h"

namespace xlite {
namespace verifier {

void ErrorSink::Add(const HloInstruction& inst, absl::string_view message) {
  absl::string_view comp = inst.parent() != nullptr ? absl::string_view(inst.parent()->name())
                                                    : absl::string_view("<none>");
  out_->push_back(
      {&inst, absl::StrCat("%", inst.name(), " in computation %", comp, ": ", message)});
}

void ErrorSink::Add(const HloComputation& comp, absl::string_view message) {
  out_->push_back({nullptr, absl::StrCat("computation %", comp.name(), ": ", message)});
}

void ErrorSink::AddModule(absl::string_view message) {
  out_->push_back({nullptr, absl::StrCat("module: ", message)});
}

namespace {

std::string ShapeText(const Shape& s) { return s.ToString(/*print_layout=*/false); }

// Element counts times widths, as the layout-sensitive bitcast check needs.
void CheckBitcastBytes(const HloInstruction& inst, ErrorSink& errors) {
  const Shape& in = inst.operand(0)->shape();
  if (!in.IsArray() || !inst.shape().IsArray()) return;
  int64_t a = in.ByteSizeOf(), b = inst.shape().ByteSizeOf();
  if (a != b) {
    errors.Add(inst, absl::StrCat("bitcast must keep the byte size, got ", a, " bytes (",
                                  in.ToString(), ") to ", b, " (", inst.shape().ToString(), ")"));
  }
}

void CheckParameterReplication(const HloInstruction& inst, ErrorSink& errors) {
  const auto& replication = inst.attrs<ParameterAttrs>().replication;
  if (replication.has_value() &&
      static_cast<int64_t>(replication->size()) != inst.shape().LeafCount()) {
    errors.Add(inst, absl::StrCat("parameter_replication has ", replication->size(),
                                  " entries, the shape has ", inst.shape().LeafCount(), " leaves"));
  }
}

void CheckCalledComputations(const HloInstruction& inst, const HloModule& module,
                             ErrorSink& errors) {
  for (const HloComputation* c : inst.called_computations()) {
    if (c == nullptr || c->parent() != &module) {
      errors.Add(inst, "calls a computation that is not in the module");
    }
  }
  if (inst.opcode() == HloOpcode::kFusion && !inst.called_computations().empty() &&
      inst.called_computations()[0] != nullptr &&
      inst.called_computations()[0]->num_parameters() != inst.operand_count()) {
    errors.Add(inst, absl::StrCat("fusion has ", inst.operand_count(),
                                  " operands but its computation takes ",
                                  inst.called_computations()[0]->num_parameters(), " parameters"));
  }
}

void CheckInstruction(const HloInstruction& inst, const HloModule& module,
                      const VerifyOptions& options, ErrorSink& errors) {
  // Every other check may compute sizes from the shape: an invalid one (an
  // overflowing size, a negative dimension) is reported alone.
  if (absl::Status valid = ValidateShape(inst.shape()); !valid.ok()) {
    errors.Add(inst, valid);
    return;
  }
  if (!WrittenShapeTriviallyHolds(inst)) {
    absl::StatusOr<Shape> inferred = InferShape(inst);
    if (!inferred.ok()) {
      errors.Add(inst, inferred.status());
    } else if (!ShapesCompatible(*inferred, inst.shape())) {
      errors.Add(inst, absl::StrCat("shape inference gives ", ShapeText(*inferred),
                                    " but the instruction is ", ShapeText(inst.shape())));
    } else if (options.layout_sensitive) {
      CheckInferredLayout(inst, *inferred, errors);
    }
  }
  if (inst.opcode() == HloOpcode::kParameter && inst.has_attrs()) {
    CheckParameterReplication(inst, errors);
  }
  if (options.layout_sensitive && inst.opcode() == HloOpcode::kBitcast) {
    CheckBitcastBytes(inst, errors);
  }
  if (options.layout_sensitive) CheckLayoutUnchanged(inst, errors);
  if (!inst.called_computations().empty()) CheckCalledComputations(inst, module, errors);
  if (inst.has_sharding()) CheckSharding(inst, module.config(), errors);
  if (AttrsKindOf(inst.opcode()) == AttrsKind::kCollective && inst.has_attrs()) {
    CheckCollective(inst, module.config(), errors);
  }
  CheckAsyncPairing(inst, errors);
  CheckXlaInstructionRules(inst, errors);
}

// Each async computation is started by one async-start (XLA's verifier
// requires it: the computation's runtime state belongs to that start).
// `starts` remembers the first start of each computation seen.
void CheckAsyncStartCaller(
    const HloInstruction& inst,
    absl::flat_hash_map<const HloComputation*, const HloInstruction*>& starts, ErrorSink& errors) {
  const HloComputation* callee = inst.to_apply();
  if (callee == nullptr) return;
  auto [it, inserted] = starts.emplace(callee, &inst);
  if (!inserted) {
    errors.Add(inst, absl::StrCat("starts async computation %", callee->name(), ", which %",
                                  it->second->name(),
                                  " already starts (an async computation has one async-start "
                                  "caller)"));
  }
}

void CheckComputationNames(const HloModule& module, ErrorSink& errors) {
  absl::flat_hash_set<absl::string_view> names;
  names.reserve(module.computations().size());
  for (const auto& comp : module.computations()) {
    if (!names.insert(comp->name()).second) {
      errors.Add(*comp, "computation name is not unique in the module");
    }
  }
}

}  // namespace
}  // namespace verifier

std::vector<Violation> FindViolations(const HloModule& module, const VerifyOptions& options) {
  std::vector<Violation> out;
  verifier::ErrorSink errors(&out);
  if (module.entry_computation() == nullptr) errors.AddModule("has no entry computation");
  verifier::CheckComputationNames(module, errors);
  verifier::InstructionPositions positions(module);
  absl::flat_hash_map<const HloComputation*, const HloInstruction*> async_starts;
  for (const auto& comp : module.computations()) {
    verifier::CheckComputationStructure(
        *comp, positions,
        [&](const HloInstruction& inst) {
          verifier::CheckInstruction(inst, module, options, errors);
          if (inst.opcode() == HloOpcode::kAsyncStart) {
            verifier::CheckAsyncStartCaller(inst, async_starts, errors);
          }
        },
        errors);
  }
  if (module.entry_computation() != nullptr) {
    verifier::CheckModuleConfig(module, options, errors);
  }
  verifier::CheckCallNesting(module, errors);
  verifier::CheckAllReduceLayoutConstraints(module, errors);
  if (module.is_scheduled()) verifier::CheckSchedule(module, errors);
  return out;
}

std::vector<std::string> VerifyModuleAll(const HloModule& module, const VerifyOptions& options) {
  std::vector<std::string> texts;
  for (Violation& violation : FindViolations(module, options)) {
    texts.push_back(std::move(violation.text));
  }
  return texts;
}

absl::Status VerifyModule(const HloModule& module, const VerifyOptions& options) {
  std::vector<std::string> errors = VerifyModuleAll(module, options);
  if (errors.empty()) return absl::OkStatus();
  constexpr size_t kMaxReported = 20;
  size_t shown = std::min(errors.size(), kMaxReported);
  std::string text = absl::StrJoin(errors.begin(), errors.begin() + shown, "\n");
  if (errors.size() > shown) {
    absl::StrAppend(&text, "\n(", errors.size() - shown, " more errors)");
  }
  return absl::InvalidArgumentError(text);
}

}  // namespace xlite
