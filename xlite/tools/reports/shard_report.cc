#include "xlite/tools/reports/shard_report.h"

#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "xlite/analysis/verifier.h"
#include "xlite/compiler/compile.h"
#include "xlite/sched/async_pairs.h"
#include "xlite/sched/latency_model.h"
#include "xlite/spmd/partition_report.h"
#include "xlite/text/printer.h"

namespace xlite::tools {
namespace {

using Json = nlohmann::ordered_json;

std::string LeafSharding(const HloInstruction& inst, int64_t leaf) {
  if (!inst.has_sharding()) return "none";
  if (inst.sharding().IsTuple()) {
    const auto& e = inst.sharding().tuple_elements();
    return leaf < static_cast<int64_t>(e.size()) ? PrintSharding(e[leaf]) : "none";
  }
  return PrintSharding(inst.sharding());
}

bool Wanted(const ShardReportOptions& options, const HloInstruction& inst) {
  if (options.names.empty()) return true;
  for (const std::string& name : options.names) {
    if (absl::StripPrefix(name, "%") == inst.name()) return true;
  }
  return false;
}

Json OriginJson(const spmd::PropagationResult& result, const spmd::InstructionOrigins& origins,
                int64_t leaf) {
  const spmd::ShardingOrigin& o = origins.leaves[leaf];
  static constexpr const char* kKinds[] = {"none",     "annotation", "forward",
                                           "backward", "linked",     "rule"};
  Json j = {{"kind", kKinds[static_cast<int>(o.kind)]},
            {"sharding", LeafSharding(*origins.instruction, leaf)}};
  if (o.from != nullptr) j["from"] = o.from->name();
  if (!o.rule.empty()) j["rule"] = std::string(o.rule);
  if (o.kind != spmd::ShardingOrigin::Kind::kAnnotation &&
      o.kind != spmd::ShardingOrigin::Kind::kNone) {
    j["aggressiveness"] = o.aggressiveness;
    j["merged"] = o.merged;
  }
  j["chain"] = result.Chain(origins, leaf);
  if (!o.conflicts.empty()) j["conflicts"] = o.conflicts;
  return j;
}

Json SummaryJson(const spmd::PartitionSummary& s) {
  Json values = Json::array();
  for (const spmd::PartitionSummary::Value& v : s.largest_values) {
    values.push_back(
        {{"bytes", v.bytes}, {"computation", v.computation}, {"name", v.name}, {"shape", v.shape}});
  }
  Json kinds = Json::array();
  for (const spmd::PartitionSummary::Kind& k : s.kinds) {
    Json kind = {{"kind", k.kind}, {"count", k.count}, {"bytes_per_device", k.bytes}};
    if (k.seconds.has_value()) kind["seconds"] = *k.seconds;
    kinds.push_back(std::move(kind));
  }
  Json collectives = Json::array();
  for (size_t i = 0; i < s.collectives.size(); ++i) {
    const spmd::InsertedCollective& c = s.collectives[i];
    Json j = {{"kind", c.kind},
              {"name", c.name},
              {"computation", c.computation},
              {"bytes_per_device", c.bytes},
              {"reason", c.reason},
              {"producer", c.producer},
              {"producer_sharding", c.producer_sharding},
              {"consumer", c.consumer},
              {"needed_sharding", c.needed_sharding}};
    if (s.collective_seconds[i].has_value()) j["seconds"] = *s.collective_seconds[i];
    collectives.push_back(std::move(j));
  }
  Json fallbacks = Json::array();
  for (const spmd::PartitionFallback& f : s.fallbacks) {
    fallbacks.push_back({{"instruction", f.instruction},
                         {"opcode", f.opcode},
                         {"computation", f.computation},
                         {"reason", f.reason}});
  }
  return {{"partitions", s.num_partitions},
          {"parameter_bytes_per_device", s.parameter_bytes},
          {"output_bytes_per_device", s.output_bytes},
          {"largest_values", values},
          {"collectives_by_kind", kinds},
          {"collectives", collectives},
          {"fallbacks", fallbacks}};
}

// The propagated module as the report shows it: per instruction its
// sharding (with the chain and conflicts), as text or JSON, and totals.
// Made while the propagation result's instructions are alive (the
// partitioner replaces them afterwards).
struct PropagationView {
  std::string text;
  Json instructions = Json::array();
  int64_t total = 0, annotated = 0, conflicts = 0, unsharded = 0, rounds = 0;
};

PropagationView DescribePropagation(const ShardReportOptions& options, const HloModule& module,
                                    const spmd::PropagationResult& result) {
  PropagationView view;
  const HloComputation* computation = nullptr;
  for (const spmd::InstructionOrigins& origins : result.instructions) {
    const HloInstruction& inst = *origins.instruction;
    for (const spmd::ShardingOrigin& o : origins.leaves) {
      view.annotated += o.kind == spmd::ShardingOrigin::Kind::kAnnotation;
      view.conflicts += static_cast<int64_t>(o.conflicts.size());
    }
    if (!Wanted(options, inst)) continue;
    if (options.json) {
      Json entry = {{"computation", inst.parent()->name()},
                    {"name", inst.name()},
                    {"sharding", inst.has_sharding() ? PrintSharding(inst.sharding()) : "none"}};
      if (options.explain) {
        Json leaves = Json::array();
        for (size_t l = 0; l < origins.leaves.size(); ++l) {
          leaves.push_back(OriginJson(result, origins, static_cast<int64_t>(l)));
        }
        entry["leaves"] = std::move(leaves);
      }
      view.instructions.push_back(std::move(entry));
      continue;
    }
    if (options.print_module) continue;
    if (inst.parent() != computation) {
      computation = inst.parent();
      absl::StrAppend(&view.text, computation->name(), ":\n");
    }
    absl::StrAppend(&view.text, "  %", inst.name(), " = ",
                    inst.has_sharding() ? PrintSharding(inst.sharding()) : "none", "\n");
    for (size_t l = 0; l < origins.leaves.size(); ++l) {
      const spmd::ShardingOrigin& o = origins.leaves[l];
      const std::string prefix =
          origins.leaves.size() > 1 ? absl::StrCat("    {", l, "} ") : std::string("    ");
      if (options.explain) {
        absl::StrAppend(&view.text, prefix, result.Chain(origins, static_cast<int64_t>(l)), "\n");
      }
      for (const std::string& c : o.conflicts)
        absl::StrAppend(&view.text, prefix, "conflict: ", c, "\n");
    }
  }
  view.total = static_cast<int64_t>(result.instructions.size());
  view.unsharded = result.unsharded;
  view.rounds = result.fixed_point_rounds;
  if (options.print_module && !options.json) view.text = PrintModule(module);
  return view;
}

// The partition report of a compiled module, timing collectives on `device`
// when there is one.
spmd::PartitionSummary Summarize(const compiler::CompileResult& compiled, const HloModule& module,
                                 const DeviceSpec* device) {
  std::unique_ptr<LatencyModel> model;
  spmd::CollectiveSeconds seconds;
  if (device != nullptr) {
    model = std::make_unique<LatencyModel>(*device);
    seconds = [&model](const HloInstruction& inst) -> std::optional<double> {
      if (!CollectiveKindOf(inst).has_value()) return std::nullopt;
      return model->Collective(inst).seconds;
    };
  }
  return spmd::SummarizePartition(*compiled.partition, *compiled.entry, module, seconds);
}

}  // namespace

bool HasInstructionNamed(const HloModule& module, std::string_view name) {
  if (name.starts_with('%')) name.remove_prefix(1);
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (inst->name() == name) return true;
    }
  }
  return false;
}

absl::StatusOr<ShardReport> ReportShardings(HloModule& module, const ShardReportOptions& options) {
  ShardReport report;
  std::optional<PropagationView> view;
  std::optional<spmd::PartitionSummary> summary;
  if (options.partition) {
    compiler::CompileOptions compile;
    compile.partition = true;
    compile.propagation = options.propagation;
    compile.after_propagation = [&](const HloModule& propagated,
                                    const spmd::PropagationResult& result) {
      view = DescribePropagation(options, propagated, result);
      return absl::OkStatus();
    };
    absl::StatusOr<compiler::CompileResult> compiled = compiler::Compile(module, compile);
    if (!compiled.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          view.has_value() ? "partitioning failed: " : "", compiled.status().message()));
    }
    report.warnings = compiled->warnings;
    summary = Summarize(*compiled, module, options.device);
  } else {
    absl::StatusOr<spmd::PropagationResult> result =
        spmd::PropagateShardings(module, options.propagation);
    if (!result.ok()) return result.status();
    absl::Status verified = VerifyModule(module);
    if (!verified.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the module after sharding-propagation does not verify: ", verified.message()));
    }
    view = DescribePropagation(options, module, *result);
  }
  if (options.json) {
    report.json = {{"module", module.name()},      {"instructions", view->instructions},
                   {"total", view->total},         {"annotated_values", view->annotated},
                   {"unsharded", view->unsharded}, {"conflicts", view->conflicts},
                   {"rounds", view->rounds}};
    if (summary.has_value()) report.json["partition"] = SummaryJson(*summary);
    return report;
  }
  report.text = std::move(view->text);
  if (summary.has_value()) report.text += spmd::FormatPartitionReport(*summary);
  absl::StrAppend(&report.text, module.name(), ": ", view->total, " instructions, ",
                  view->annotated, " annotated values, ", view->unsharded, " without a sharding, ",
                  view->conflicts, " conflicts, ", view->rounds, " rounds\n");
  return report;
}

}  // namespace xlite::tools
