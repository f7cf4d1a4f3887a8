#include "xlite/spmd/autoshard/auto_sharding_strategies.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/analysis/collective_model.h"
#include "xlite/spmd/factor_rule.h"
#include "xlite/spmd/partition_util.h"
#include "xlite/spmd/reshard.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

// Per tensor dim, the axes `axis_factor` puts on its factors (major factor
// first, mesh order within a factor).
std::vector<std::vector<int64_t>> DimAxes(const TensorFactors& dims,
                                          const std::vector<int64_t>& axis_factor) {
  std::vector<std::vector<int64_t>> out;
  for (const std::vector<int64_t>& factors : dims) {
    std::vector<int64_t> axes;
    for (int64_t f : factors) {
      for (size_t a = 0; a < axis_factor.size(); ++a) {
        if (axis_factor[a] == f) axes.push_back(static_cast<int64_t>(a));
      }
    }
    out.push_back(std::move(axes));
  }
  return out;
}

std::string Spec(const DeviceMesh& mesh, const std::vector<std::vector<int64_t>>& dim_axes) {
  std::vector<std::string> dims;
  for (const std::vector<int64_t>& axes : dim_axes) {
    if (axes.empty()) {
      dims.push_back("_");
      continue;
    }
    std::vector<std::string> names;
    for (int64_t a : axes) names.push_back(mesh.names[a]);
    dims.push_back(names.size() == 1 ? names[0]
                                     : absl::StrCat("(", absl::StrJoin(names, ","), ")"));
  }
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// The split of each factor under `axis_factor`; false when a factor is
// split unevenly, or a dim's minor factor is split while a more major one
// of the same dim is not split whole (its tiles would not be contiguous).
bool ValidAssignment(const FactorRule& rule, const DeviceMesh& mesh,
                     const std::vector<int64_t>& axis_factor) {
  std::vector<int64_t> split(rule.factor_sizes.size(), 1);
  for (size_t a = 0; a < axis_factor.size(); ++a) {
    if (axis_factor[a] >= 0) split[axis_factor[a]] *= mesh.sizes[a];
  }
  for (size_t f = 0; f < split.size(); ++f) {
    if (rule.factor_sizes[f] % split[f] != 0) return false;
  }
  auto contiguous = [&](const TensorFactors& dims) {
    for (const std::vector<int64_t>& factors : dims) {
      for (size_t j = 1; j < factors.size(); ++j) {
        if (split[factors[j]] == 1) continue;
        for (size_t i = 0; i < j; ++i) {
          if (split[factors[i]] != rule.factor_sizes[factors[i]]) return false;
        }
      }
    }
    return true;
  };
  for (const std::optional<TensorFactors>& operand : rule.operands) {
    if (operand.has_value() && !contiguous(*operand)) return false;
  }
  return contiguous(rule.results[0]);
}

// Every assignment of mesh axes (of size > 1) to splittable factors, the
// all-unassigned one first.
void EnumerateAssignments(const FactorRule& rule, const DeviceMesh& mesh, size_t axis,
                          std::vector<int64_t>& current, std::vector<std::vector<int64_t>>& out) {
  if (axis == mesh.sizes.size()) {
    if (ValidAssignment(rule, mesh, current)) out.push_back(current);
    return;
  }
  current[axis] = -1;
  EnumerateAssignments(rule, mesh, axis + 1, current, out);
  if (mesh.sizes[axis] == 1) return;
  for (size_t f = 0; f < rule.factor_sizes.size(); ++f) {
    if (rule.kinds[f] == FactorKind::kNeedReplication) continue;
    current[axis] = static_cast<int64_t>(f);
    EnumerateAssignments(rule, mesh, axis + 1, current, out);
  }
  current[axis] = -1;
}

double ShardBytes(const Shape& shape, const HloSharding& sharding) {
  if (!shape.IsArray()) return static_cast<double>(ShapeBytes(shape));
  return static_cast<double>(ShardShape(shape, ForPartitioning(sharding)).ByteSizeOf());
}

ShardingStrategy Replicated(const HloInstruction& inst, const DeviceMesh& mesh, double seconds) {
  ShardingStrategy s;
  s.axis_factor.assign(mesh.sizes.size(), -1);
  s.result = inst.shape().IsArray() ? HloSharding::Replicated() : ReplicatedLike(inst.shape());
  for (const HloInstruction* operand : inst.operands()) {
    // A tuple takes its elements as they come; everything else replicated.
    if (inst.opcode() == HloOpcode::kTuple || !operand->shape().IsArray()) {
      s.operands.push_back(std::nullopt);
    } else {
      s.operands.push_back(HloSharding::Replicated());
    }
  }
  s.compute_seconds = seconds;
  s.description = "replicated";
  return s;
}

// Whether the module lets propagation pick a sharding for output `leaf`
// (one entry in the list stands for every leaf).
bool OutputMayBeSharded(const ModuleConfig& config, int64_t leaf) {
  const std::vector<bool>& allowed = config.allow_spmd_sharding_propagation_to_output;
  if (allowed.size() == 1) return allowed[0];
  return leaf < static_cast<int64_t>(allowed.size()) && allowed[leaf];
}

// The roofline of one device's share under `s`: the flops divided over the
// `split` devices, the bytes scaled by how much of each operand and of the
// result the device holds (a replicated weight is read whole everywhere).
double LocalSeconds(const HloInstruction& inst, const ShardingStrategy& s, const Cost& whole,
                    int64_t split, const DeviceSpec& device) {
  Cost local = whole;
  const double share = 1.0 / static_cast<double>(split);
  local.flops *= share;
  local.transcendentals *= share;
  for (TypedFlops& f : local.flops_by_type) f.flops *= share;
  double full = ShapeBytes(inst.shape()), held = ShardBytes(inst.shape(), s.result);
  for (size_t i = 0; i < inst.operands().size(); ++i) {
    const Shape& shape = inst.operand(i)->shape();
    full += ShapeBytes(shape);
    held += s.operands[i].has_value() ? ShardBytes(shape, *s.operands[i]) : ShapeBytes(shape);
  }
  if (full > 0) local.bytes_accessed *= held / full;
  return Roofline(local, device).seconds;
}

}  // namespace

void RequireReplicatedOutputs(const HloModule& module, ReshardPricer& pricer,
                              const HloInstruction& root,
                              std::vector<ShardingStrategy>& strategies) {
  const ModuleConfig& config = module.config();
  for (ShardingStrategy& s : strategies) {
    if (root.opcode() == HloOpcode::kTuple) {
      for (size_t i = 0; i < root.operands().size(); ++i) {
        if (root.operand(i)->shape().IsArray() &&
            !OutputMayBeSharded(config, static_cast<int64_t>(i))) {
          s.operands[i] = HloSharding::Replicated();
        }
      }
    } else if (root.shape().IsArray() && !OutputMayBeSharded(config, 0)) {
      s.communication_seconds += pricer.Seconds(s.result, HloSharding::Replicated(), root.shape());
    }
  }
}

double ReshardPricer::Seconds(const HloSharding& from, const HloSharding& to, const Shape& shape) {
  const HloSharding f = ForPartitioning(from), t = ForPartitioning(to);
  if (f == t || !shape.IsArray()) return 0;
  std::string key = absl::StrCat(PrintSharding(f), "|", PrintSharding(t), "|", shape.ToString());
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  double seconds = 0;
  HloSharding current = f;
  for (const ReshardStep& step : PlanReshard(f, t, shape, num_devices_)) {
    std::optional<CollectiveKind> kind;
    int64_t n = 1;
    switch (step.kind) {
      case ReshardStep::Kind::kSlice:
        break;
      case ReshardStep::Kind::kAllGather:
        kind = CollectiveKind::kAllGather;
        n = TilesAlong(current, step.dim);
        break;
      case ReshardStep::Kind::kAllToAll:
        kind = CollectiveKind::kAllToAll;
        n = TilesAlong(current, step.dim);
        break;
      case ReshardStep::Kind::kPermute:
        kind = CollectiveKind::kCollectivePermute;
        n = 2;
        break;
    }
    if (kind.has_value()) {
      seconds +=
          AlphaBeta(*kind, static_cast<double>(step.bytes), n, device_.interconnect_latency_seconds,
                    device_.interconnect_bandwidth_bytes_per_second)
              .seconds;
    }
    current = step.result;
  }
  cache_.emplace(std::move(key), seconds);
  return seconds;
}

std::vector<ShardingStrategy> StrategiesOf(const HloInstruction& inst, const DeviceMesh& mesh,
                                           const DeviceSpec& device, CostAnalysis& costs) {
  absl::StatusOr<Cost> cost = costs.InstructionCostOf(inst);
  const double seconds = cost.ok() ? Roofline(*cost, device).seconds : 0;
  std::vector<ShardingStrategy> out = {Replicated(inst, mesh, seconds)};
  std::optional<FactorRule> rule = FactorRuleOf(inst);
  if (!inst.shape().IsArray() || !rule.has_value() || rule->results.size() != 1) return out;
  std::vector<std::vector<int64_t>> assignments;
  std::vector<int64_t> current(mesh.sizes.size(), -1);
  EnumerateAssignments(*rule, mesh, 0, current, assignments);
  // A factor only operands have that sums nothing (the sliced dim of a
  // dynamic-slice, a gather's indexed dims) cannot stay split: the
  // partitioner gathers the operand, which no strategy prices.
  std::vector<bool> in_result(rule->factor_sizes.size(), false);
  for (const std::vector<int64_t>& factors : rule->results[0]) {
    for (int64_t f : factors) in_result[f] = true;
  }
  for (const std::vector<int64_t>& axis_factor : assignments) {
    int64_t split = 1, reduced = 1;
    std::vector<std::string> sum_axes;
    bool unpriced = false;
    for (size_t a = 0; a < axis_factor.size(); ++a) {
      if (axis_factor[a] < 0) continue;
      unpriced = unpriced || (!in_result[axis_factor[a]] &&
                              rule->kinds[axis_factor[a]] != FactorKind::kReduction);
      split *= mesh.sizes[a];
      if (rule->kinds[axis_factor[a]] == FactorKind::kReduction) {
        reduced *= mesh.sizes[a];
        sum_axes.push_back(mesh.names[a]);
      }
    }
    if (split == 1 || unpriced) continue;  // strategy 0, or not priced
    ShardingStrategy s;
    s.axis_factor = axis_factor;
    const std::vector<std::vector<int64_t>> result_axes = DimAxes(rule->results[0], axis_factor);
    s.result = MeshSharding(mesh, result_axes);
    std::vector<std::string> operand_specs;
    for (size_t i = 0; i < inst.operands().size(); ++i) {
      const std::optional<TensorFactors>& dims =
          i < rule->operands.size() ? rule->operands[i] : std::nullopt;
      if (!inst.operand(i)->shape().IsArray()) {
        s.operands.push_back(std::nullopt);
      } else if (!dims.has_value()) {
        s.operands.push_back(HloSharding::Replicated());
      } else {
        const std::vector<std::vector<int64_t>> axes = DimAxes(*dims, axis_factor);
        s.operands.push_back(MeshSharding(mesh, axes));
        if (inst.operand(i)->shape().rank() > 0) operand_specs.push_back(Spec(mesh, axes));
      }
    }
    s.compute_seconds = cost.ok() ? LocalSeconds(inst, s, *cost, split, device) : 0;
    if (reduced > 1) {
      s.communication_seconds =
          AlphaBeta(CollectiveKind::kAllReduce, ShardBytes(inst.shape(), s.result), reduced,
                    device.interconnect_latency_seconds,
                    device.interconnect_bandwidth_bytes_per_second)
              .seconds;
    }
    s.description = Spec(mesh, result_axes);
    if (!operand_specs.empty()) {
      s.description = absl::StrCat(absl::StrJoin(operand_specs, " x "), " -> ", s.description);
    }
    if (!sum_axes.empty())
      absl::StrAppend(&s.description, " +sum(", absl::StrJoin(sum_axes, ","), ")");
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<ShardingStrategy> StateStrategies(const Shape& shape, const DeviceMesh& mesh) {
  FactorRule rule;
  TensorFactors dims;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    rule.factor_sizes.push_back(shape.dimensions(d));
    rule.kinds.push_back(FactorKind::kPassThrough);
    dims.push_back({d});
  }
  rule.results = {dims};
  ShardingStrategy replicated;
  replicated.axis_factor.assign(mesh.sizes.size(), -1);
  replicated.result = HloSharding::Replicated();
  replicated.description = "replicated";
  std::vector<ShardingStrategy> out = {replicated};
  std::vector<std::vector<int64_t>> assignments;
  std::vector<int64_t> current(mesh.sizes.size(), -1);
  EnumerateAssignments(rule, mesh, 0, current, assignments);
  for (const std::vector<int64_t>& axis_factor : assignments) {
    if (std::all_of(axis_factor.begin(), axis_factor.end(), [](int64_t f) { return f < 0; })) {
      continue;  // replicated, above
    }
    ShardingStrategy s;
    s.axis_factor = axis_factor;
    const std::vector<std::vector<int64_t>> axes = DimAxes(dims, axis_factor);
    s.result = MeshSharding(mesh, axes);
    s.description = Spec(mesh, axes);
    out.push_back(std::move(s));
  }
  return out;
}

double BytesPerDevice(const Shape& shape, const HloSharding& sharding) {
  return ShardBytes(shape, sharding);
}

}  // namespace xlite::spmd
