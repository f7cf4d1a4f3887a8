// Checks of the ModuleConfig against the entry computation:
// entry_computation_layout, input_output_alias and buffer_donor entries.
#include "xlite/analysis/verifier_internal.h"
#include "xlite/inference/shape_inference.h"

namespace xlite::verifier {
namespace {

std::string IndexText(const ShapeIndex& index) {
  std::string text = "{";
  for (size_t i = 0; i < index.size(); ++i) absl::StrAppend(&text, i ? "," : "", index[i]);
  return text + "}";
}

// With layouts compared too when both shapes carry one.
bool LayoutsAgree(const Shape& a, const Shape& b) {
  if (a.IsTuple()) {
    for (int64_t i = 0; i < a.tuple_size() && i < b.tuple_size(); ++i) {
      if (!LayoutsAgree(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  return !a.has_layout() || !b.has_layout() || a.layout() == b.layout();
}

void CheckEntryLayout(const HloModule& module, const VerifyOptions& options, ErrorSink& errors) {
  const ModuleConfig& config = module.config();
  const HloComputation& entry = *module.entry_computation();
  auto agree = [&](const Shape& layout, const Shape& actual) {
    return ShapesCompatible(layout, actual) &&
           (!options.layout_sensitive || LayoutsAgree(layout, actual));
  };
  if (config.entry_parameter_layouts.has_value()) {
    const std::vector<Shape>& params = *config.entry_parameter_layouts;
    if (static_cast<int64_t>(params.size()) != entry.num_parameters()) {
      errors.AddModule(absl::StrCat("entry_computation_layout has ", params.size(),
                                    " parameters, entry computation %", entry.name(), " has ",
                                    entry.num_parameters()));
    } else {
      for (size_t i = 0; i < params.size(); ++i) {
        const HloInstruction* p = entry.parameter_instruction(static_cast<int64_t>(i));
        if (p != nullptr && !agree(params[i], p->shape())) {
          errors.AddModule(absl::StrCat("entry_computation_layout parameter ", i, " is ",
                                        params[i].ToString(), " but parameter %", p->name(), " is ",
                                        p->shape().ToString()));
        }
      }
    }
  }
  if (config.entry_result_layout.has_value() && entry.root_instruction() != nullptr &&
      !agree(*config.entry_result_layout, entry.root_instruction()->shape())) {
    errors.AddModule(absl::StrCat("entry_computation_layout result is ",
                                  config.entry_result_layout->ToString(), " but the root is ",
                                  entry.root_instruction()->shape().ToString()));
  }
}

// The shape of (parameter, index) in the entry, or nullptr with an error.
const Shape* ParameterSubshape(const HloComputation& entry, int64_t parameter,
                               const ShapeIndex& index, absl::string_view what, ErrorSink& errors) {
  const HloInstruction* p = entry.parameter_instruction(parameter);
  if (p == nullptr) {
    errors.AddModule(absl::StrCat(what, " names parameter ", parameter, " but the entry has ",
                                  entry.num_parameters()));
    return nullptr;
  }
  const Shape* s = ShapeAtIndex(p->shape(), index);
  if (s == nullptr) {
    errors.AddModule(absl::StrCat(what, " names index ", IndexText(index), " of parameter ",
                                  parameter, " which is ", p->shape().ToString(false)));
  }
  return s;
}

void CheckAliasing(const HloModule& module, ErrorSink& errors) {
  const ModuleConfig& config = module.config();
  const HloComputation& entry = *module.entry_computation();
  for (const InputOutputAlias& alias : config.input_output_alias) {
    const Shape* in = ParameterSubshape(entry, alias.parameter, alias.parameter_index,
                                        "input_output_alias", errors);
    if (entry.root_instruction() == nullptr) return;
    const Shape& result = entry.root_instruction()->shape();
    const Shape* out = ShapeAtIndex(result, alias.output_index);
    if (out == nullptr) {
      errors.AddModule(absl::StrCat("input_output_alias names output index ",
                                    IndexText(alias.output_index), " of ", result.ToString(false)));
    } else if (in != nullptr && !ShapesCompatible(*in, *out)) {
      errors.AddModule(absl::StrCat(
          "input_output_alias pairs output ", IndexText(alias.output_index), " ",
          out->ToString(false), " with parameter ", alias.parameter, " ",
          IndexText(alias.parameter_index), " ", in->ToString(false), ": shapes must be equal"));
    }
  }
  for (const BufferDonor& donor : config.buffer_donors) {
    ParameterSubshape(entry, donor.parameter, donor.parameter_index, "buffer_donor", errors);
  }
}

}  // namespace

void CheckModuleConfig(const HloModule& module, const VerifyOptions& options, ErrorSink& errors) {
  const ModuleConfig& config = module.config();
  if (config.replica_count < 1 || config.num_partitions < 1) {
    errors.AddModule(absl::StrCat("replica_count=", config.replica_count, " and num_partitions=",
                                  config.num_partitions, " must be positive"));
  } else if (int64_t devices = 0;
             __builtin_mul_overflow(config.replica_count, config.num_partitions, &devices)) {
    errors.AddModule(absl::StrCat("replica_count=", config.replica_count,
                                  " × num_partitions=", config.num_partitions, " overflows int64"));
  }
  CheckEntryLayout(module, options, errors);
  CheckAliasing(module, errors);
}

}  // namespace xlite::verifier
