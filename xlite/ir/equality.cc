#include "xlite/ir/equality.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/ir/schedule.h"

namespace xlite {
namespace {

std::string JoinNames(absl::Span<HloInstruction* const> insts) {
  return absl::StrJoin(insts, ", ", [](std::string* out, const HloInstruction* i) {
    absl::StrAppend(out, i->name());
  });
}

std::string JoinNames(const std::vector<HloComputation*>& comps) {
  return absl::StrJoin(comps, ", ", [](std::string* out, const HloComputation* c) {
    absl::StrAppend(out, c != nullptr ? c->name() : "<null>");
  });
}

std::string ShapeText(const Shape& s) { return s.ToString(); }

std::string ShapesText(const std::vector<Shape>& shapes) {
  return absl::StrJoin(shapes, ", ", [](std::string* out, const Shape& s) { s.AppendTo(out); });
}

// Records the first difference; every check returns whether things matched.
class Differ {
 public:
  explicit Differ(std::string* out) : out_(out) {}

  bool Fail(const std::string& context, const std::string& what) {
    if (out_ != nullptr) *out_ = context.empty() ? what : absl::StrCat(context, ": ", what);
    return false;
  }
  template <typename T>
  bool Same(const std::string& context, const char* field, const T& a, const T& b) {
    if (a == b) return true;
    return Fail(context, absl::StrCat(field, " differs"));
  }
  bool SameText(const std::string& context, const char* field, const std::string& a,
                const std::string& b) {
    if (a == b) return true;
    return Fail(context, absl::StrCat(field, " differs: \"", a, "\" vs \"", b, "\""));
  }

 private:
  std::string* out_;
};

bool ShardingsIdentical(const HloSharding& a, const HloSharding& b) {
  if (!(a == b) || !(a.metadata() == b.metadata())) return false;
  for (size_t i = 0; i < a.tuple_elements().size(); ++i) {
    if (!ShardingsIdentical(a.tuple_elements()[i], b.tuple_elements()[i])) return false;
  }
  return true;
}

bool AttrsEqual(const OpAttrs* a, const OpAttrs* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return a->Equals(*b);
}

bool CompareInstructions(const HloInstruction& a, const HloInstruction& b, Differ& d,
                         const std::string& where) {
  std::string ctx = absl::StrCat(where, "instruction ", a.name());
  if (!d.SameText(ctx, "name", a.name(), b.name())) return false;
  if (a.opcode() != b.opcode()) {
    return d.Fail(ctx, absl::StrCat("opcode ", std::string(OpcodeName(a.opcode())), " vs ",
                                    std::string(OpcodeName(b.opcode()))));
  }
  if (!(a.shape() == b.shape())) {
    return d.Fail(ctx, absl::StrCat("shape ", ShapeText(a.shape()), " vs ", ShapeText(b.shape())));
  }
  if (!d.SameText(ctx, "operands", JoinNames(a.operands()), JoinNames(b.operands()))) {
    return false;
  }
  if (!d.SameText(ctx, "called computations", JoinNames(a.called_computations()),
                  JoinNames(b.called_computations()))) {
    return false;
  }
  if (a.has_dimensions_attr() != b.has_dimensions_attr() || a.dimensions() != b.dimensions()) {
    return d.Fail(ctx, absl::StrCat("dimensions {", absl::StrJoin(a.dimensions(), ","), "} vs {",
                                    absl::StrJoin(b.dimensions(), ","), "}"));
  }
  if (!AttrsEqual(a.raw_attrs(), b.raw_attrs())) return d.Fail(ctx, "attributes differ");
  if (a.has_sharding() != b.has_sharding() ||
      (a.has_sharding() && !ShardingsIdentical(a.sharding(), b.sharding()))) {
    return d.Fail(ctx, "sharding differs");
  }
  if (!d.Same(ctx, "metadata", a.metadata(), b.metadata())) return false;
  if (!d.Same(ctx, "frontend_attributes", a.frontend_attributes(), b.frontend_attributes())) {
    return false;
  }
  if (!d.SameText(ctx, "backend_config", a.backend_config(), b.backend_config())) return false;
  if (!d.Same(ctx, "backend_config kind", a.backend_config_is_json(), b.backend_config_is_json())) {
    return false;
  }
  const Statistics* sa = a.statistics();
  const Statistics* sb = b.statistics();
  if ((sa == nullptr) != (sb == nullptr) || (sa != nullptr && !(*sa == *sb))) {
    return d.Fail(ctx, "statistics differ");
  }
  if (!d.SameText(ctx, "origin", a.origin(), b.origin())) return false;
  return d.SameText(ctx, "control predecessors", JoinNames(a.control_predecessors()),
                    JoinNames(b.control_predecessors()));
}

bool CompareComputations(const HloComputation& a, const HloComputation& b, Differ& d) {
  std::string ctx = absl::StrCat("computation ", a.name());
  if (!d.SameText(ctx, "name", a.name(), b.name())) return false;
  if (!d.Same(ctx, "entry flag", a.is_entry(), b.is_entry())) return false;
  if (!d.SameText(ctx, "execution_thread", a.execution_thread(), b.execution_thread())) {
    return false;
  }
  if (!d.Same(ctx, "fusion flag", a.is_fusion_computation(), b.is_fusion_computation())) {
    return false;
  }
  if (a.instruction_count() != b.instruction_count()) {
    return d.Fail(ctx, absl::StrCat("instruction count ", a.instruction_count(), " vs ",
                                    b.instruction_count()));
  }
  std::string where = absl::StrCat(ctx, ", ");
  // In text order: a scheduled module compares in its schedule.
  std::vector<HloInstruction*> order_a = TextOrder(a), order_b = TextOrder(b);
  for (size_t i = 0; i < order_a.size(); ++i) {
    if (!CompareInstructions(*order_a[i], *order_b[i], d, where)) return false;
  }
  const HloInstruction* ra = a.root_instruction();
  const HloInstruction* rb = b.root_instruction();
  return d.SameText(ctx, "root", ra ? ra->name() : "<none>", rb ? rb->name() : "<none>");
}

bool CompareConfigs(const ModuleConfig& a, const ModuleConfig& b, Differ& d) {
  const std::string ctx = "module config";
  auto layouts_text = [](const std::optional<std::vector<Shape>>& s) {
    return s ? ShapesText(*s) : std::string("<unset>");
  };
  auto result_text = [](const std::optional<Shape>& s) {
    return s ? s->ToString() : std::string("<unset>");
  };
  return d.SameText(ctx, "entry parameter layouts", layouts_text(a.entry_parameter_layouts),
                    layouts_text(b.entry_parameter_layouts)) &&
         d.SameText(ctx, "entry result layout", result_text(a.entry_result_layout),
                    result_text(b.entry_result_layout)) &&
         d.Same(ctx, "input_output_alias", a.input_output_alias, b.input_output_alias) &&
         d.Same(ctx, "buffer_donor", a.buffer_donors, b.buffer_donors) &&
         d.Same(ctx, "alias_passthrough_params", a.alias_passthrough_params,
                b.alias_passthrough_params) &&
         d.Same(ctx, "replica_count", a.replica_count, b.replica_count) &&
         d.Same(ctx, "num_partitions", a.num_partitions, b.num_partitions) &&
         d.Same(ctx, "allow_spmd_sharding_propagation_to_parameters",
                a.allow_spmd_sharding_propagation_to_parameters,
                b.allow_spmd_sharding_propagation_to_parameters) &&
         d.Same(ctx, "allow_spmd_sharding_propagation_to_output",
                a.allow_spmd_sharding_propagation_to_output,
                b.allow_spmd_sharding_propagation_to_output) &&
         d.Same(ctx, "frontend_attributes", a.frontend_attributes, b.frontend_attributes) &&
         d.SameText(ctx, "origin_recovery_table", a.origin_recovery_table, b.origin_recovery_table);
}

}  // namespace

bool InstructionsEqual(const HloInstruction& a, const HloInstruction& b,
                       std::string* first_difference) {
  Differ d(first_difference);
  return CompareInstructions(a, b, d, "");
}

bool ModulesEqual(const HloModule& a, const HloModule& b, std::string* first_difference) {
  Differ d(first_difference);
  if (!d.SameText("module", "name", a.name(), b.name())) return false;
  if (!d.Same("module", "is_scheduled", a.is_scheduled(), b.is_scheduled())) return false;
  if (!CompareConfigs(a.config(), b.config(), d)) return false;
  if (!d.Same("module", "stack frame index", a.stack_frames(), b.stack_frames())) {
    return false;
  }
  if (a.computations().size() != b.computations().size()) {
    return d.Fail("module", absl::StrCat("computation count ", a.computations().size(), " vs ",
                                         b.computations().size()));
  }
  for (size_t i = 0; i < a.computations().size(); ++i) {
    if (!CompareComputations(*a.computations()[i], *b.computations()[i], d)) return false;
  }
  const HloComputation* ea = a.entry_computation();
  const HloComputation* eb = b.entry_computation();
  return d.SameText("module", "entry", ea ? ea->name() : "<none>", eb ? eb->name() : "<none>");
}

}  // namespace xlite
