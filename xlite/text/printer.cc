// Module, computation and instruction text (the frame of the HLO format);
// values and per-opcode attributes come from value_printer.cc and
// attribute_printer.cc.
//
// Conventions, as XLA prints: an async chain whose computation is one
// instruction over the parameters prints in sugar form (`custom-call-start`,
// see async_sugar.h) unless PrintOptions::async_sugar is off, other chains
// in the explicit form (`async-start(...), calls=%wrapped`); computation
// signatures carry no layouts.
#include "xlite/text/printer.h"

#include "xlite/text/async_sugar.h"
#include "xlite/text/printer_internal.h"

namespace xlite {
namespace {

using printer_internal::AppendFrontendAttributesText;
using printer_internal::AppendInt;
using printer_internal::AppendLiteralText;
using printer_internal::AppendMetadataText;
using printer_internal::AppendName;
using printer_internal::AppendOpAttributes;
using printer_internal::AppendQuoted;
using printer_internal::AppendShapeIndex;
using printer_internal::AppendShardingText;
using printer_internal::AsyncSugarSet;

void AppendBoolList(const std::vector<bool>& values, std::string* out) {
  out->push_back('{');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->append(values[i] ? "true" : "false");
  }
  out->push_back('}');
}

// `/*index=N*/` before every fifth list element, as XLA prints long lists
// (unless `annotate` is off).
void AppendListSeparator(size_t i, std::string* out, bool annotate = true) {
  if (i == 0) return;
  out->append(", ");
  if (annotate && i % 5 == 0) {
    out->append("/*index=");
    AppendInt(static_cast<int64_t>(i), out);
    out->append("*/");
  }
}

void AppendSharedAttributes(const HloInstruction& inst, const PrintOptions& options,
                            std::string* out) {
  if (inst.has_sharding()) {
    out->append(", sharding=");
    AppendShardingText(inst.sharding(), out);
  }
  if (!inst.frontend_attributes().empty()) {
    out->append(", frontend_attributes=");
    AppendFrontendAttributesText(inst.frontend_attributes(), out);
  }
  if (!inst.origin().empty()) {
    out->append(", origin=");
    out->append(inst.origin());
  }
  if (const Statistics* s = inst.statistics()) {
    out->append(", statistics={visualizing_index=");
    AppendInt(s->visualizing_index, out);
    for (const auto& [name, value] : s->stats) {
      out->push_back(',');
      out->append(name);
      out->push_back('=');
      printer_internal::AppendFloat(value, PrimitiveType::F64, out);
    }
    out->push_back('}');
  }
  if (options.print_control_dependencies && !inst.control_predecessors().empty()) {
    out->append(", control-predecessors={");
    for (size_t i = 0; i < inst.control_predecessors().size(); ++i) {
      if (i > 0) out->append(", ");
      AppendName(inst.control_predecessors()[i]->name(), options.print_percent, out);
    }
    out->push_back('}');
  }
  if (options.print_metadata && !inst.metadata().empty()) {
    out->append(", metadata=");
    AppendMetadataText(inst.metadata(), out);
  }
  if (options.print_backend_config && !inst.backend_config().empty()) {
    out->append(", backend_config=");
    if (inst.backend_config_is_json()) {
      out->append(inst.backend_config());
    } else {
      AppendQuoted(inst.backend_config(), out);
    }
  }
}

// The one instruction of the async computation `inst` (an async op) runs,
// when the chain prints as sugar; null otherwise.
const HloInstruction* SugaredAsyncOp(const HloInstruction& inst, const AsyncSugarSet* sugared) {
  if (sugared == nullptr || inst.called_computations().empty()) return nullptr;
  HloOpcode op = inst.opcode();
  if (op != HloOpcode::kAsyncStart && op != HloOpcode::kAsyncUpdate &&
      op != HloOpcode::kAsyncDone) {
    return nullptr;
  }
  const HloComputation* callee = inst.called_computations()[0];
  return sugared->contains(callee) ? callee->root_instruction() : nullptr;
}

// `sugared`: the async computations printed as sugar (null: none).
void AppendInstructionLine(const HloInstruction& inst, const PrintOptions& options,
                           const AsyncSugarSet* sugared, std::string* out) {
  AppendName(inst.name(), options.print_percent, out);
  out->append(" = ");
  inst.shape().AppendTo(out);
  out->push_back(' ');
  const HloInstruction* wrapped = SugaredAsyncOp(inst, sugared);
  if (wrapped != nullptr) {
    out->append(OpcodeName(wrapped->opcode()));
    out->append(inst.opcode() == HloOpcode::kAsyncStart    ? "-start"
                : inst.opcode() == HloOpcode::kAsyncUpdate ? "-update"
                                                           : "-done");
  } else {
    out->append(OpcodeName(inst.opcode()));
  }
  out->push_back('(');
  if (inst.opcode() == HloOpcode::kParameter) {
    AppendInt(inst.parameter_number(), out);
  } else if (inst.opcode() == HloOpcode::kConstant) {
    const auto& c = inst.attrs<ConstantAttrs>();
    if (c.elided) {
      out->append("{...}");
    } else {
      AppendLiteralText(c.literal, out);
    }
  } else {
    for (int64_t i = 0; i < inst.operand_count(); ++i) {
      AppendListSeparator(static_cast<size_t>(i), out, options.print_index_annotations);
      const HloInstruction* operand = inst.operand(i);
      if (options.print_operand_shapes) {
        operand->shape().AppendTo(out);
        out->push_back(' ');
      }
      AppendName(operand->name(), options.print_percent, out);
    }
  }
  out->push_back(')');
  if (wrapped != nullptr && inst.opcode() == HloOpcode::kAsyncStart) {
    const std::string& thread = inst.attrs<AsyncAttrs>().execution_thread;
    if (thread != "main") {
      out->append(", async_execution_thread=");
      AppendQuoted(thread, out);
    }
    AppendOpAttributes(*wrapped, options.print_percent, out);
  } else {
    AppendOpAttributes(inst, options.print_percent, out);
  }
  AppendSharedAttributes(inst, options, out);
}

// ` (a: f32[2], b: s32[]) -> f32[2]`: parameters and result without layouts.
void AppendSignature(const HloComputation& c, std::string* out) {
  out->append(" (");
  // Numbers with no parameter (an invalid module the parser still takes)
  // are left out, so that the signature stays parseable.
  bool first = true;
  for (int64_t i = 0; i < c.num_parameters(); ++i) {
    const HloInstruction* p = c.parameter_instruction(i);
    if (p == nullptr) continue;
    if (!first) out->append(", ");
    first = false;
    // Signature names go without `%`, as XLA prints them.
    AppendName(p->name(), /*percent=*/false, out);
    out->append(": ");
    p->shape().AppendTo(out, /*print_layout=*/false);
  }
  out->append(") -> ");
  if (c.root_instruction() != nullptr) {
    c.root_instruction()->shape().AppendTo(out, /*print_layout=*/false);
  }
}

void AppendComputation(const HloComputation& c, const PrintOptions& options,
                       const AsyncSugarSet* sugared, std::string* out) {
  if (c.is_entry()) out->append("ENTRY ");
  AppendName(c.name(), options.print_percent, out);
  if (options.print_program_shape) AppendSignature(c, out);
  out->append(" {\n");
  for (const HloInstruction* inst : TextOrder(c)) {
    out->append(inst == c.root_instruction() ? "  ROOT " : "  ");
    AppendInstructionLine(*inst, options, sugared, out);
    out->push_back('\n');
  }
  out->push_back('}');
  if (c.execution_thread() != "main") {
    out->append(", execution_thread=");
    AppendQuoted(c.execution_thread(), out);
  }
  out->push_back('\n');
}

void AppendHeader(const HloModule& module, std::string* out) {
  const ModuleConfig& config = module.config();
  out->append("HloModule ");
  out->append(module.name());
  if (module.is_scheduled()) out->append(", is_scheduled=true");
  if (!config.input_output_alias.empty()) {
    out->append(", input_output_alias={ ");
    for (size_t i = 0; i < config.input_output_alias.size(); ++i) {
      const InputOutputAlias& a = config.input_output_alias[i];
      if (i > 0) out->append(", ");
      AppendShapeIndex(a.output_index, out);
      out->append(": (");
      AppendInt(a.parameter, out);
      out->append(", ");
      AppendShapeIndex(a.parameter_index, out);
      out->append(a.must_alias ? ", must-alias)" : ", may-alias)");
    }
    out->append(" }");
  }
  if (!config.buffer_donors.empty()) {
    out->append(", buffer_donor={ ");
    for (size_t i = 0; i < config.buffer_donors.size(); ++i) {
      if (i > 0) out->append(", ");
      out->push_back('(');
      AppendInt(config.buffer_donors[i].parameter, out);
      out->append(", ");
      AppendShapeIndex(config.buffer_donors[i].parameter_index, out);
      out->push_back(')');
    }
    out->append(" }");
  }
  if (config.alias_passthrough_params) out->append(", alias_passthrough_params=true");
  if (config.entry_parameter_layouts && config.entry_result_layout) {
    out->append(", entry_computation_layout={(");
    const std::vector<Shape>& params = *config.entry_parameter_layouts;
    for (size_t i = 0; i < params.size(); ++i) {
      AppendListSeparator(i, out);
      params[i].AppendTo(out);
    }
    out->append(")->");
    config.entry_result_layout->AppendTo(out);
    out->push_back('}');
  }
  auto spmd_flags = [&](const char* name, const std::vector<bool>& flags) {
    if (flags.size() == 1 && !flags[0]) return;
    out->append(", ");
    out->append(name);
    out->push_back('=');
    AppendBoolList(flags, out);
  };
  spmd_flags("allow_spmd_sharding_propagation_to_parameters",
             config.allow_spmd_sharding_propagation_to_parameters);
  spmd_flags("allow_spmd_sharding_propagation_to_output",
             config.allow_spmd_sharding_propagation_to_output);
  if (config.replica_count != 1) {
    out->append(", replica_count=");
    AppendInt(config.replica_count, out);
  }
  if (config.num_partitions != 1) {
    out->append(", num_partitions=");
    AppendInt(config.num_partitions, out);
  }
  if (!config.frontend_attributes.empty()) {
    out->append(", frontend_attributes=");
    AppendFrontendAttributesText(config.frontend_attributes, out);
  }
  if (!config.origin_recovery_table.empty()) {
    out->append(", origin_recovery_table=");
    out->append(config.origin_recovery_table);
    out->push_back('\n');  // XLA ends the table with a line break of its own
  }
  out->push_back('\n');
}

void AppendStackFrames(const StackFrameIndex& index, std::string* out) {
  if (index.empty()) return;
  auto names = [&](const char* title, const std::vector<std::string>& list) {
    if (list.empty()) return;
    out->append(title);
    out->push_back('\n');
    for (size_t i = 0; i < list.size(); ++i) {
      AppendInt(static_cast<int64_t>(i + 1), out);
      out->push_back(' ');
      AppendQuoted(list[i], out);
      out->push_back('\n');
    }
    out->push_back('\n');
  };
  names("FileNames", index.file_names);
  names("FunctionNames", index.function_names);
  if (!index.file_locations.empty()) {
    out->append("FileLocations\n");
    for (size_t i = 0; i < index.file_locations.size(); ++i) {
      const auto& l = index.file_locations[i];
      AppendInt(static_cast<int64_t>(i + 1), out);
      out->append(" {file_name_id=");
      AppendInt(l.file_name_id, out);
      out->append(" function_name_id=");
      AppendInt(l.function_name_id, out);
      out->append(" line=");
      AppendInt(l.line, out);
      out->append(" end_line=");
      AppendInt(l.end_line, out);
      out->append(" column=");
      AppendInt(l.column, out);
      out->append(" end_column=");
      AppendInt(l.end_column, out);
      out->append("}\n");
    }
    out->push_back('\n');
  }
  if (!index.frames.empty()) {
    out->append("StackFrames\n");
    for (size_t i = 0; i < index.frames.size(); ++i) {
      AppendInt(static_cast<int64_t>(i + 1), out);
      out->append(" {file_location_id=");
      AppendInt(index.frames[i].file_location_id, out);
      out->append(" parent_frame_id=");
      AppendInt(index.frames[i].parent_frame_id, out);
      out->append("}\n");
    }
    out->push_back('\n');
  }
  out->push_back('\n');
}

}  // namespace

void AppendModule(const HloModule& module, const PrintOptions& options, std::string* out) {
  AppendHeader(module, out);
  out->push_back('\n');
  AppendStackFrames(module.stack_frames(), out);
  AsyncSugarSet sugared;
  if (options.async_sugar) sugared = printer_internal::SugaredAsyncComputations(module);
  for (const auto& c : module.computations()) {
    if (sugared.contains(c.get())) continue;
    AppendComputation(*c, options, &sugared, out);
    out->push_back('\n');
  }
}

PrintOptions ShortParsablePrintOptions() {
  PrintOptions options;
  options.print_metadata = false;
  options.print_backend_config = false;
  options.print_percent = false;
  options.print_program_shape = false;
  options.print_control_dependencies = false;
  options.print_index_annotations = false;
  return options;
}

std::string PrintModule(const HloModule& module, const PrintOptions& options) {
  std::string out;
  // Dumps average well under 100 bytes an instruction; one reservation
  // avoids regrowing (and copying) a multi-megabyte string.
  int64_t instructions = 0;
  for (const auto& c : module.computations()) instructions += c->instruction_count();
  out.reserve(static_cast<size_t>(instructions) * 96 + 4096);
  AppendModule(module, options, &out);
  return out;
}

std::string PrintComputation(const HloComputation& computation, const PrintOptions& options) {
  std::string out;
  AppendComputation(computation, options, /*sugared=*/nullptr, &out);
  return out;
}

std::string PrintInstruction(const HloInstruction& instruction, const PrintOptions& options) {
  std::string out;
  AppendInstructionLine(instruction, options, /*sugared=*/nullptr, &out);
  return out;
}

std::string PrintSharding(const HloSharding& sharding) {
  std::string out;
  AppendShardingText(sharding, &out);
  return out;
}

std::string PrintShapeIndex(absl::Span<const int64_t> index) {
  std::string out;
  AppendShapeIndex(index, &out);
  return out;
}

std::string PrintLiteralValue(const Literal& literal) {
  std::string out;
  AppendLiteralText(literal, &out);
  return out;
}

}  // namespace xlite
