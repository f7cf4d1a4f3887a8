#include "xlite/spmd/autoshard/auto_sharding_strategies.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/analysis/alias_analysis.h"
#include "xlite/analysis/collective_model.h"
#include "xlite/base/status.h"
#include "xlite/passes/flatten_call_graph.h"
#include "xlite/spmd/factor_rule.h"
#include "xlite/spmd/partition_util.h"
#include "xlite/spmd/reshard.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {
namespace {

// Between plans equally fast the one with less memory per device wins: a
// byte costs this much in the objective (1 GB: 1 ns, below what any
// collective or kernel costs), never in the reported times.
constexpr double kSecondsPerByteOfTie = 1e-18;

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
  for (const std::vector<int64_t>& axis_factor : assignments) {
    int64_t split = 1, reduced = 1;
    std::vector<std::string> sum_axes;
    for (size_t a = 0; a < axis_factor.size(); ++a) {
      if (axis_factor[a] < 0) continue;
      split *= mesh.sizes[a];
      if (rule->kinds[axis_factor[a]] == FactorKind::kReduction) {
        reduced *= mesh.sizes[a];
        sum_axes.push_back(mesh.names[a]);
      }
    }
    if (split == 1) continue;  // strategy 0
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

MemoryPeak PeakMemory(const StrategyGraph& graph, const std::vector<int64_t>& choice) {
  // The nodes' bytes as differences between steps.
  std::vector<double> change(graph.fixed_bytes_at_step.size() + 1, 0);
  for (size_t v = 0; v < graph.nodes.size(); ++v) {
    if (!graph.live[v].has_value()) continue;
    const double b = graph.nodes[v].strategies[choice[v]].memory_bytes;
    change[graph.live[v]->start] += b;
    change[graph.live[v]->end + 1] -= b;
  }
  MemoryPeak peak;
  double nodes = 0;
  for (size_t t = 0; t < graph.fixed_bytes_at_step.size(); ++t) {
    nodes += change[t];
    const double at = nodes + graph.fixed_bytes_at_step[t];
    if (at > peak.bytes) peak = {at, static_cast<int64_t>(t)};
  }
  return peak;
}

ShardingProblem::MemoryRow MemoryRowAt(const StrategyGraph& graph, int64_t step) {
  ShardingProblem::MemoryRow row;
  row.fixed_bytes = graph.fixed_bytes_at_step[step];
  for (size_t v = 0; v < graph.nodes.size(); ++v) {
    const std::optional<LiveRange>& r = graph.live[v];
    if (r.has_value() && r->start <= step && step <= r->end) {
      row.nodes.push_back(static_cast<int64_t>(v));
    }
  }
  return row;
}

namespace {

// Per node of `graph` the live range of the buffer its result owns, per
// step the bytes of the other buffers; each strategy's memory_bytes set.
absl::Status AddMemory(const HloModule& module, StrategyGraph& graph) {
  // Liveness wants each control-flow callee called from one site: it runs on
  // a flattened copy, whose entry instructions keep their names.
  std::unique_ptr<HloModule> flat = module.Clone();
  FlattenCallGraphPass flatten;
  XLITE_RETURN_IF_ERROR(flatten.Run(*flat).status());
  flat->UpdateSchedule();
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<AliasAnalysis> aliases, AliasAnalysis::Run(*flat));
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<Liveness> liveness,
                         Liveness::Run(*aliases, CurrentSchedule(*flat)));
  absl::flat_hash_map<std::string_view, int64_t> node_of;  // entry names
  for (size_t v = 0; v < graph.nodes.size(); ++v) {
    node_of[graph.nodes[v].instruction->name()] = static_cast<int64_t>(v);
  }
  for (const HloInstruction* inst : liveness->timeline()) {
    graph.step_names.push_back(
        inst->parent() == flat->entry_computation()
            ? inst->name()
            : absl::StrCat(inst->name(), " (in ", inst->parent()->name(), ", which is not split)"));
  }
  const size_t steps = graph.step_names.size();
  graph.live.assign(graph.nodes.size(), std::nullopt);
  std::vector<double> fixed(steps + 1, 0);  // as differences
  for (const HloBuffer& buffer : aliases->buffers()) {
    const LiveRange& range = liveness->BufferRange(buffer.id);
    if (range.end < range.start) continue;  // never written
    // Owned by the first entry array instruction defining one of its values
    // (a while's state is owned by its initial value's producer: it keeps
    // that sharding through the loop).
    std::optional<int64_t> owner;
    for (int32_t id : buffer.values) {
      const HloValue& value = aliases->dataflow().value(id);
      if (value.instruction->parent() != flat->entry_computation() || !value.index.empty() ||
          !value.instruction->shape().IsArray()) {
        continue;
      }
      auto it = node_of.find(value.instruction->name());
      if (it != node_of.end() && !graph.live[it->second].has_value()) {
        owner = it->second;
        break;
      }
    }
    if (owner.has_value()) {
      graph.live[*owner] = range;
      const Shape& shape = graph.nodes[*owner].instruction->shape();
      for (ShardingStrategy& s : graph.nodes[*owner].strategies) {
        s.memory_bytes = ShardBytes(shape, s.result) * static_cast<double>(buffer.bytes) /
                         static_cast<double>(std::max<int64_t>(ShapeBytes(shape), 1));
      }
      continue;
    }
    fixed[range.start] += static_cast<double>(buffer.bytes);
    fixed[range.end + 1] -= static_cast<double>(buffer.bytes);
  }
  graph.fixed_bytes_at_step.assign(steps, 0);
  double now = 0;
  for (size_t t = 0; t < steps; ++t) graph.fixed_bytes_at_step[t] = now += fixed[t];
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<StrategyGraph> BuildStrategyGraph(const HloModule& module, const DeviceMesh& mesh,
                                                 const DeviceSpec& device, double memory_limit,
                                                 bool keep_annotations) {
  StrategyGraph graph;
  graph.problem.memory_limit = memory_limit;
  CostAnalysis costs;
  ReshardPricer pricer(device, mesh.num_devices());
  for (HloInstruction* inst : module.entry_computation()->MakeInstructionPostOrder()) {
    ShardingNode node;
    node.instruction = inst;
    node.strategies = StrategiesOf(*inst, mesh, device, costs);
    if (keep_annotations && inst->has_sharding()) {
      const HloSharding wanted = ForPartitioning(inst->sharding());
      std::erase_if(node.strategies, [&](const ShardingStrategy& s) {
        return !(ForPartitioning(s.result) == wanted);
      });
      if (node.strategies.empty()) {
        return absl::UnimplementedError(absl::StrCat(
            "not supported yet: keeping the annotation ", PrintSharding(inst->sharding()), " of %",
            inst->name(), ": it is no sharding over the mesh ", mesh.ToString(),
            " that its rule allows"));
      }
    }
    if (inst == module.entry_computation()->root_instruction()) {
      RequireReplicatedOutputs(module, pricer, *inst, node.strategies);
    }
    const int64_t v = static_cast<int64_t>(graph.nodes.size());
    // Edges from each array operand's producer.
    for (size_t i = 0; i < inst->operands().size(); ++i) {
      const HloInstruction* operand = inst->operand(i);
      if (!operand->shape().IsArray()) continue;
      const int64_t u = graph.index.at(operand);
      const std::vector<ShardingStrategy>& from = graph.nodes[u].strategies;
      ShardingProblem::Edge edge;
      edge.from = u;
      edge.to = v;
      bool any = false;
      for (const ShardingStrategy& fs : from) {
        for (const ShardingStrategy& ts : node.strategies) {
          const double c = ts.operands[i].has_value()
                               ? pricer.Seconds(fs.result, *ts.operands[i], operand->shape())
                               : 0;
          any = any || c != 0;
          edge.cost.push_back(c);
        }
      }
      if (!any) continue;
      graph.problem.edges.push_back(std::move(edge));
      graph.edge_operand.push_back(static_cast<int64_t>(i));
    }
    graph.index[inst] = v;
    graph.nodes.push_back(std::move(node));
  }
  XLITE_RETURN_IF_ERROR(AddMemory(module, graph));
  for (const ShardingNode& node : graph.nodes) {
    ShardingProblem::Node pnode;
    for (const ShardingStrategy& s : node.strategies) {
      pnode.cost.push_back(s.compute_seconds + s.communication_seconds +
                           s.memory_bytes * kSecondsPerByteOfTie);
      pnode.memory.push_back(s.memory_bytes);
    }
    graph.problem.nodes.push_back(std::move(pnode));
  }
  const MemoryPeak replicated = PeakMemory(graph, std::vector<int64_t>(graph.nodes.size(), 0));
  if (!graph.step_names.empty()) {
    graph.problem.memory_rows.push_back(MemoryRowAt(graph, replicated.step));
  }
  return graph;
}

}  // namespace xlite::spmd
