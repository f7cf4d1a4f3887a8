#include "xlite/spmd/autoshard/auto_sharding_graph.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xlite/analysis/alias_analysis.h"
#include "xlite/analysis/cost_analysis.h"
#include "xlite/base/status.h"
#include "xlite/passes/flatten_call_graph.h"
#include "xlite/spmd/partition_util.h"
#include "xlite/text/printer.h"

namespace xlite::spmd {

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

// Between plans equally fast the one with less memory per device wins: a
// byte costs this much in the objective (1 GB: 1 ns, below what any
// collective or kernel costs), never in the reported times.
constexpr double kSecondsPerByteOfTie = 1e-18;

// How many instructions call each computation, in any role.
absl::flat_hash_map<const HloComputation*, int64_t> CallerCounts(const HloModule& module) {
  absl::flat_hash_map<const HloComputation*, int64_t> counts;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      for (const HloComputation* called : inst->called_computations()) ++counts[called];
    }
  }
  return counts;
}

bool OnlyTupleElementUsers(const HloInstruction& inst) {
  return std::all_of(inst.users().begin(), inst.users().end(), [](const HloInstruction* u) {
    return u->opcode() == HloOpcode::kGetTupleElement;
  });
}

// Whether `loop` is modelled inside (see BuildStrategyGraph).
bool IsModelledLoop(const HloInstruction& loop,
                    const absl::flat_hash_map<const HloComputation*, int64_t>& callers) {
  if (loop.opcode() != HloOpcode::kWhile || loop.called_computations().size() != 2 ||
      !loop.shape().IsTuple() || loop.IsRoot() || !OnlyTupleElementUsers(loop)) {
    return false;
  }
  for (const Shape& element : loop.shape().tuple_shapes()) {
    if (!element.IsArray()) return false;
  }
  const HloInstruction* init = loop.operand(0);
  const HloComputation* condition = loop.called_computations()[0];
  const HloComputation* body = loop.called_computations()[1];
  const HloInstruction* root = body->root_instruction();
  return init->opcode() == HloOpcode::kTuple && root->opcode() == HloOpcode::kTuple &&
         callers.at(condition) == 1 && callers.at(body) == 1 &&
         condition->parameter_instructions().size() == 1 &&
         body->parameter_instructions().size() == 1 &&
         OnlyTupleElementUsers(*condition->parameter_instruction(0)) &&
         OnlyTupleElementUsers(*body->parameter_instruction(0));
}

void Scale(std::vector<ShardingStrategy>& strategies, double executions) {
  for (ShardingStrategy& s : strategies) {
    s.compute_seconds *= executions;
    s.communication_seconds *= executions;
  }
}

// Builds the nodes and edges, computation by computation.
class GraphBuilder {
 public:
  GraphBuilder(const HloModule& module, const DeviceMesh& mesh, const DeviceSpec& device,
               bool keep_annotations, StrategyGraph& graph)
      : module_(module),
        mesh_(mesh),
        device_(device),
        keep_annotations_(keep_annotations),
        graph_(graph),
        pricer_(device, mesh.num_devices()),
        callers_(CallerCounts(module)) {}

  absl::Status AddComputation(const HloComputation& computation, double executions) {
    for (const HloInstruction* inst : computation.MakeInstructionPostOrder()) {
      if (const auto state = states_.find(inst); state != states_.end()) continue;
      if (std::optional<int64_t> v = ForwardedNode(*inst)) {
        graph_.nodes[*v].members.push_back(inst);
        graph_.index[inst] = *v;
        continue;
      }
      if (IsModelledLoop(*inst, callers_)) {
        XLITE_RETURN_IF_ERROR(AddLoop(*inst, executions));
        continue;
      }
      XLITE_RETURN_IF_ERROR(AddInstruction(*inst, executions));
    }
    return absl::OkStatus();
  }

  const absl::flat_hash_set<const HloComputation*>& modelled() const { return modelled_; }

 private:
  // The node a get-tuple-element forwards: a modelled loop's state element,
  // or the element of a tuple instruction (a call's result once inlined).
  std::optional<int64_t> ForwardedNode(const HloInstruction& inst) const {
    if (inst.opcode() != HloOpcode::kGetTupleElement) return std::nullopt;
    const HloInstruction& tuple = *inst.operand(0);
    if (const auto state = states_.find(&tuple); state != states_.end()) {
      return state->second[inst.tuple_index()];
    }
    if (tuple.opcode() == HloOpcode::kTuple && inst.shape().IsArray()) {
      return graph_.index.at(tuple.operand(inst.tuple_index()));
    }
    return std::nullopt;
  }

  // Strategies of `inst` restricted to its annotation when one is kept.
  absl::Status Keep(const HloInstruction& inst, const std::optional<HloSharding>& annotation,
                    std::vector<ShardingStrategy>& strategies) {
    if (!keep_annotations_ || !annotation.has_value()) return absl::OkStatus();
    const HloSharding wanted = ForPartitioning(*annotation);
    std::erase_if(strategies, [&](const ShardingStrategy& s) {
      return !(ForPartitioning(s.result) == wanted);
    });
    if (strategies.empty()) {
      return absl::UnimplementedError(absl::StrCat("not supported yet: keeping the annotation ",
                                                   PrintSharding(*annotation), " of %", inst.name(),
                                                   ": it is no sharding over the mesh ",
                                                   mesh_.ToString(), " that its rule allows"));
    }
    return absl::OkStatus();
  }

  int64_t AddNode(const HloInstruction& inst, std::optional<HloSharding> annotation,
                  std::vector<ShardingStrategy> strategies) {
    ShardingNode node;
    node.instruction = &inst;
    node.annotation = std::move(annotation);
    if (inst.opcode() != HloOpcode::kWhile) node.members.push_back(&inst);
    node.strategies = std::move(strategies);
    graph_.nodes.push_back(std::move(node));
    return static_cast<int64_t>(graph_.nodes.size()) - 1;
  }

  // An edge u -> v of a `shape` value, v needing it as wanted(v's strategy)
  // says (nullopt: as it comes), paid `executions` times.
  template <typename Wanted>
  void AddEdge(int64_t u, int64_t v, const Shape& shape, double executions, Wanted wanted) {
    ShardingProblem::Edge edge;
    edge.from = u;
    edge.to = v;
    bool any = false;
    for (const ShardingStrategy& fs : graph_.nodes[u].strategies) {
      for (const ShardingStrategy& ts : graph_.nodes[v].strategies) {
        const std::optional<HloSharding> want = wanted(ts);
        const double c =
            want.has_value() ? pricer_.Seconds(fs.result, *want, shape) * executions : 0;
        any = any || c != 0;
        edge.cost.push_back(c);
      }
    }
    if (any) graph_.problem.edges.push_back(std::move(edge));
  }

  absl::Status AddInstruction(const HloInstruction& inst, double executions) {
    std::vector<ShardingStrategy> strategies = StrategiesOf(inst, mesh_, device_, costs_);
    Scale(strategies, executions);
    const std::optional<HloSharding> annotation =
        inst.has_sharding() ? std::optional(inst.sharding()) : std::nullopt;
    XLITE_RETURN_IF_ERROR(Keep(inst, annotation, strategies));
    if (&inst == module_.entry_computation()->root_instruction()) {
      RequireReplicatedOutputs(module_, pricer_, inst, strategies);
    }
    const int64_t v = AddNode(inst, annotation, std::move(strategies));
    for (size_t i = 0; i < inst.operands().size(); ++i) {
      const HloInstruction* operand = inst.operand(i);
      if (!operand->shape().IsArray()) continue;
      AddEdge(graph_.index.at(operand), v, operand->shape(), executions,
              [i](const ShardingStrategy& s) { return s.operands[i]; });
    }
    graph_.index[&inst] = v;
    return absl::OkStatus();
  }

  // The loop's state elements (priced against the initial values once and
  // the body's results every iteration), its body, and the loop itself
  // (its condition, replicated).
  absl::Status AddLoop(const HloInstruction& loop, double executions) {
    const HloComputation& condition = *loop.called_computations()[0];
    const HloComputation& body = *loop.called_computations()[1];
    modelled_.insert(&body);
    const double trips = static_cast<double>(WhileTripCount(loop).value_or(1));
    const HloInstruction& init = *loop.operand(0);
    ModelledLoop modelled{&loop, {}};
    for (int64_t i = 0; i < static_cast<int64_t>(loop.shape().tuple_shapes().size()); ++i) {
      const Shape& shape = loop.shape().tuple_shapes(i);
      std::vector<ShardingStrategy> strategies = StateStrategies(shape, mesh_);
      std::optional<HloSharding> annotation;
      if (loop.has_sharding() && loop.sharding().IsTuple()) {
        annotation = loop.sharding().tuple_elements()[i];
      }
      XLITE_RETURN_IF_ERROR(Keep(loop, annotation, strategies));
      const int64_t v = AddNode(loop, annotation, std::move(strategies));
      AddEdge(graph_.index.at(init.operand(i)), v, shape, executions,
              [](const ShardingStrategy& s) { return std::optional(s.result); });
      modelled.state.push_back(v);
    }
    for (const HloInstruction* state : std::initializer_list<const HloInstruction*>{
             &loop, condition.parameter_instruction(0), body.parameter_instruction(0)}) {
      states_[state] = modelled.state;
    }
    for (const HloInstruction* user : condition.parameter_instruction(0)->users()) {
      graph_.nodes[modelled.state[user->tuple_index()]].members.push_back(user);
    }
    XLITE_RETURN_IF_ERROR(AddComputation(body, executions * trips));
    const HloInstruction& root = *body.root_instruction();
    for (size_t i = 0; i < modelled.state.size(); ++i) {
      const int64_t u = graph_.index.at(root.operand(i));
      if (u == modelled.state[i]) continue;  // passed through
      AddEdge(u, modelled.state[i], root.operand(i)->shape(), executions * trips,
              [](const ShardingStrategy& s) { return std::optional(s.result); });
    }
    // The loop node: its condition's work, run once more than the body.
    std::vector<ShardingStrategy> strategies = StrategiesOf(loop, mesh_, device_, costs_);
    double condition_seconds = 0;
    for (const auto& inst : condition.instructions()) {
      absl::StatusOr<Cost> cost = costs_.InstructionCostOf(*inst);
      if (cost.ok()) condition_seconds += Roofline(*cost, device_).seconds;
    }
    strategies[0].compute_seconds = condition_seconds * (trips + 1) * executions;
    strategies.resize(1);
    graph_.index[&loop] = AddNode(loop, std::nullopt, std::move(strategies));
    graph_.loops.push_back(std::move(modelled));
    return absl::OkStatus();
  }

  const HloModule& module_;
  const DeviceMesh& mesh_;
  const DeviceSpec& device_;
  const bool keep_annotations_;
  StrategyGraph& graph_;
  ReshardPricer pricer_;
  CostAnalysis costs_;
  const absl::flat_hash_map<const HloComputation*, int64_t> callers_;
  // A modelled loop, its body's and its condition's parameters: the nodes
  // of its state elements.
  absl::flat_hash_map<const HloInstruction*, std::vector<int64_t>> states_;
  absl::flat_hash_set<const HloComputation*> modelled_;
};

// Per node of `graph` the live range of the buffer its result owns, per
// step the bytes of the other buffers; each strategy's memory_bytes set.
absl::Status AddMemory(const HloModule& module,
                       const absl::flat_hash_set<const HloComputation*>& modelled,
                       StrategyGraph& graph) {
  // Liveness wants each control-flow callee called from one site: it runs on
  // a flattened copy, whose instructions keep their names where they are not
  // copies.
  std::unique_ptr<HloModule> flat = module.Clone();
  FlattenCallGraphPass flatten;
  XLITE_RETURN_IF_ERROR(flatten.Run(*flat).status());
  flat->UpdateSchedule();
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<AliasAnalysis> aliases, AliasAnalysis::Run(*flat));
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<Liveness> liveness,
                         Liveness::Run(*aliases, CurrentSchedule(*flat)));
  absl::flat_hash_set<std::string_view> modelled_names = {module.entry_computation()->name()};
  for (const HloComputation* c : modelled) modelled_names.insert(c->name());
  for (const HloInstruction* inst : liveness->timeline()) {
    std::string name = inst->name();
    if (inst->parent() != flat->entry_computation()) {
      absl::StrAppend(
          &name, " (in ", inst->parent()->name(),
          modelled_names.contains(inst->parent()->name()) ? ")" : ", which is not split)");
    }
    graph.step_names.push_back(std::move(name));
  }
  absl::flat_hash_map<std::string_view, const HloInstruction*> flat_named;
  for (const auto& c : flat->computations()) {
    for (const auto& inst : c->instructions()) flat_named[inst->name()] = inst.get();
  }
  const size_t steps = graph.step_names.size();
  graph.live.assign(graph.nodes.size(), std::nullopt);
  absl::flat_hash_map<int32_t, int64_t> owner_of_buffer;
  // A loop's state element lives in one buffer, the state node's.
  for (const ModelledLoop& loop : graph.loops) {
    const HloInstruction* at = flat_named.at(loop.loop->name());
    for (size_t i = 0; i < loop.state.size(); ++i) {
      const absl::Span<const int32_t> values =
          aliases->dataflow().ValueSetAt(*at, {static_cast<int64_t>(i)});
      if (!values.empty())
        owner_of_buffer.try_emplace(aliases->BufferOfValue(values[0]), loop.state[i]);
    }
  }
  // Every other buffer: the first node defining one of its values.
  absl::flat_hash_map<std::string_view, int64_t> node_of;
  for (size_t v = 0; v < graph.nodes.size(); ++v) {
    if (graph.nodes[v].members.empty() || graph.nodes[v].instruction->opcode() == HloOpcode::kWhile)
      continue;
    node_of[graph.nodes[v].instruction->name()] = static_cast<int64_t>(v);
  }
  // Node v holds a buffer of `bytes` (a `shape` value) over `range`.
  auto own = [&](int64_t v, const LiveRange& range, const Shape& shape, int64_t bytes) {
    graph.live[v] = range;
    for (ShardingStrategy& s : graph.nodes[v].strategies) {
      s.memory_bytes = BytesPerDevice(shape, s.result) * static_cast<double>(bytes) /
                       static_cast<double>(std::max<int64_t>(ShapeBytes(shape), 1));
    }
  };
  std::vector<double> fixed(steps + 1, 0);  // as differences
  for (const HloBuffer& buffer : aliases->buffers()) {
    const LiveRange& range = liveness->BufferRange(buffer.id);
    if (range.end < range.start) continue;  // never written
    auto owner = owner_of_buffer.find(buffer.id);
    std::optional<int64_t> v;
    if (owner != owner_of_buffer.end()) v = owner->second;
    for (size_t k = 0; !v.has_value() && k < buffer.values.size(); ++k) {
      const HloValue& value = aliases->dataflow().value(buffer.values[k]);
      if (!value.index.empty() || !value.instruction->shape().IsArray()) continue;
      auto it = node_of.find(value.instruction->name());
      if (it != node_of.end() && !graph.live[it->second].has_value()) v = it->second;
    }
    if (v.has_value() && !graph.live[*v].has_value()) {
      own(*v, range, *aliases->dataflow().value(buffer.values[0]).shape, buffer.bytes);
      if (owner != owner_of_buffer.end()) {
        // An entry parameter that starts a loop's state stays whole-step
        // as it was sharded (the loop works on its resharded copy).
        for (int32_t id : buffer.values) {
          const HloValue& value = aliases->dataflow().value(id);
          auto param = node_of.find(value.instruction->name());
          if (value.instruction->opcode() == HloOpcode::kParameter &&
              value.instruction->parent() == flat->entry_computation() && param != node_of.end() &&
              !graph.live[param->second].has_value()) {
            own(param->second, LiveRange{0, static_cast<int64_t>(steps) - 1}, *value.shape,
                ShapeBytes(*value.shape));
          }
        }
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
  GraphBuilder builder(module, mesh, device, keep_annotations, graph);
  XLITE_RETURN_IF_ERROR(builder.AddComputation(*module.entry_computation(), 1));
  XLITE_RETURN_IF_ERROR(AddMemory(module, builder.modelled(), graph));
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
