#include "xlite/spmd/propagation.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/passes/pass_registry.h"
#include "xlite/spmd/partitioner.h"
#include "xlite/spmd/propagator.h"
#include "xlite/spmd/sharding_annotations.h"
#include "xlite/spmd/shardy_import.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {

absl::Status ValidateAnnotations(const HloModule& module, bool is_spmd) {
  const int64_t declared = is_spmd ? module.config().num_partitions : module.config().replica_count;
  // Modules that do not say how many devices they run on (XLA's pass tests)
  // may name any distinct devices, subsets included.
  const int64_t devices = declared > 1 ? declared : HloSharding::kAnyDeviceCount;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (!inst->has_sharding()) continue;
      XLITE_RETURN_IF_ERROR(UnspecifiedDims(*inst).status());
      const Shape shape = inst->ShardedShape();
      absl::Status status = inst->sharding().Validate(shape, devices);
      if (!status.ok()) {
        return InvalidArgument("sharding of %", inst->name(), " (", shape.ToString(), ") ",
                               PrintSharding(inst->sharding()), ": ", status.message(),
                               declared > 1 ? absl::StrCat(" (num_partitions=", devices, ")") : "");
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PropagationResult> PropagateShardings(HloModule& module,
                                                     const PropagationOptions& options) {
  if (module.entry_computation() == nullptr) return InvalidArgument("module has no entry");
  XLITE_ASSIGN_OR_RETURN(const bool imported, ImportShardy(module));
  XLITE_RETURN_IF_ERROR(ValidateAnnotations(module, options.is_spmd));
  Propagator propagator(module, options);
  PropagationResult result = propagator.Run();
  result.changed |= imported;
  return result;
}

absl::StatusOr<bool> ShardingPropagationPass::Run(HloModule& module) {
  XLITE_ASSIGN_OR_RETURN(PropagationResult result, PropagateShardings(module, options_));
  return result.changed;
}

const InstructionOrigins* PropagationResult::Find(std::string_view name) const {
  for (const InstructionOrigins& o : instructions) {
    if (o.instruction->name() == name) return &o;
  }
  return nullptr;
}

namespace {

const char* KindWord(ShardingOrigin::Kind kind) {
  switch (kind) {
    case ShardingOrigin::Kind::kNone:
      return "none";
    case ShardingOrigin::Kind::kAnnotation:
      return "annotated";
    case ShardingOrigin::Kind::kForward:
      return "forward";
    case ShardingOrigin::Kind::kBackward:
      return "backward";
    case ShardingOrigin::Kind::kLinked:
      return "linked";
    case ShardingOrigin::Kind::kRule:
      return "rule";
  }
  return "?";
}

}  // namespace

std::string PropagationResult::Chain(const InstructionOrigins& start, int64_t leaf) const {
  std::vector<std::string> hops;
  std::string end;
  const InstructionOrigins* at = &start;
  const ShardingOrigin* first = nullptr;
  std::set<std::pair<const HloInstruction*, int64_t>> seen;
  while (at != nullptr && leaf >= 0 && leaf < static_cast<int64_t>(at->leaves.size())) {
    const ShardingOrigin& o = at->leaves[leaf];
    if (first == nullptr) first = &o;
    if (!seen.insert({at->instruction, leaf}).second) {
      end = "(a merge: its inputs lead back here)";
      break;
    }
    if (o.kind == ShardingOrigin::Kind::kAnnotation) {
      end = absl::StrCat("annotated %", at->instruction->name());
      break;
    }
    if (o.kind == ShardingOrigin::Kind::kNone) {
      end = absl::StrCat("unsharded %", at->instruction->name());
      break;
    }
    if (o.kind == ShardingOrigin::Kind::kRule) {
      end = absl::StrCat(std::string(o.rule), " at %", at->instruction->name());
      break;
    }
    std::string hop = absl::StrCat(KindWord(o.kind), " ", std::string(o.rule),
                                   o.merged ? " (merged)" : "", " from %", o.from->name());
    if (o.from->shape().IsTuple()) absl::StrAppend(&hop, "{", o.from_leaf, "}");
    hops.push_back(std::move(hop));
    // A merge has several inputs; the sources list names them.
    if (o.merged) break;
    const HloInstruction* next = o.from;
    leaf = o.from_leaf;
    at = nullptr;
    for (const InstructionOrigins& candidate : instructions) {
      if (candidate.instruction == next) {
        at = &candidate;
        break;
      }
    }
    if (at != nullptr && at->leaves.size() == 1) leaf = 0;
  }
  // Long chains keep their first three and last two hops.
  constexpr size_t kHead = 3, kTail = 2;
  if (hops.size() > kHead + kTail + 1) {
    const size_t skipped = hops.size() - kHead - kTail;
    std::vector<std::string> kept(hops.begin(), hops.begin() + kHead);
    kept.push_back(absl::StrCat("... ", skipped, " more ..."));
    kept.insert(kept.end(), hops.end() - kTail, hops.end());
    hops = std::move(kept);
  }
  if (!end.empty()) hops.push_back(std::move(end));
  std::string out = absl::StrJoin(hops, " <- ");
  if (first != nullptr && (first->sources.size() > 1 || first->merged)) {
    std::vector<std::string> names;
    for (const HloInstruction* s : first->sources) names.push_back(absl::StrCat("%", s->name()));
    absl::StrAppend(&out, " [annotations: ", absl::StrJoin(names, ", "), "]");
  }
  return out;
}

void RegisterSpmdPasses() {
  static const bool registered = [] {
    RegisterPass(PassInfo{
        "sharding-propagation",
        "GSPMD sharding propagation from annotations to every instruction (is_spmd=true, "
        "propagate_to_output / propagate_to_parameters: default the module header's lists)",
        [](PassArgs& args) -> absl::StatusOr<std::unique_ptr<HloPass>> {
          PropagationOptions options;
          auto flag = [&](const char* key, std::optional<bool>* out) -> absl::Status {
            std::string value = args.Take(key, "");
            if (value.empty()) return absl::OkStatus();
            if (value != "true" && value != "false") {
              return InvalidArgument("sharding-propagation ", key, " must be true or false, got '",
                                     value, "'");
            }
            *out = value == "true";
            return absl::OkStatus();
          };
          std::optional<bool> is_spmd;
          XLITE_RETURN_IF_ERROR(flag("is_spmd", &is_spmd));
          options.is_spmd = is_spmd.value_or(true);
          XLITE_RETURN_IF_ERROR(flag("propagate_to_output", &options.propagate_to_output));
          XLITE_RETURN_IF_ERROR(flag("propagate_to_parameters", &options.propagate_to_parameters));
          return std::unique_ptr<HloPass>(std::make_unique<ShardingPropagationPass>(options));
        }});
    RegisterPass(
        PassInfo{"spmd-partitioner",
                 "SPMD partitioning: the per-partition program of a sharded module (shard shapes, "
                 "partition-id offsets, collectives between shardings)",
                 [](PassArgs&) -> absl::StatusOr<std::unique_ptr<HloPass>> {
                   return std::unique_ptr<HloPass>(std::make_unique<SpmdPartitionerPass>());
                 }});
    return true;
  }();
  (void)registered;
}

}  // namespace xlite::spmd
