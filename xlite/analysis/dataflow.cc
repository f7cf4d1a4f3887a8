#include "xlite/analysis/dataflow.h"

#include <algorithm>
#include <deque>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "xlite/analysis/call_graph.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/ir/computation.h"

namespace xlite {

int32_t ShapePositionCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int32_t count = 1;
  for (const Shape& element : shape.tuple_shapes()) count += ShapePositionCount(element);
  return count;
}

namespace {

// Pre-order position of child `i` of a tuple shape.
int32_t ChildStart(const Shape& tuple, int64_t i) {
  int32_t position = 1;
  for (int64_t j = 0; j < i; ++j) position += ShapePositionCount(tuple.tuple_shapes(j));
  return position;
}

// The subshape at pre-order position `flat`, or nullptr.
const Shape* SubshapeAtFlat(const Shape& shape, int32_t flat) {
  if (flat == 0) return &shape;
  if (!shape.IsTuple() || flat < 0) return nullptr;
  int32_t position = 1;
  for (const Shape& element : shape.tuple_shapes()) {
    int32_t count = ShapePositionCount(element);
    if (flat < position + count) return SubshapeAtFlat(element, flat - position);
    position += count;
  }
  return nullptr;
}

// `count` positions of `src` starting at `src_pos` flow into `dst_pos...`.
struct Forward {
  int32_t dst_pos = 0;
  const HloInstruction* src = nullptr;
  int32_t src_pos = 0;
  int32_t count = 0;
};

// What flows where: the forwarding rules of every opcode that passes values
// through instead of writing new ones (the only per-opcode table of the
// dataflow). Positions no forward covers are defined by the instruction.
class ForwardRules {
 public:
  explicit ForwardRules(absl::flat_hash_map<const HloInstruction*, std::vector<Forward>>* out)
      : out_(*out) {}

  void Collect(const HloInstruction& inst) {
    const Shape& shape = inst.shape();
    auto operand = [&](int64_t i) -> const HloInstruction* {
      return i < inst.operand_count() ? inst.operand(i) : nullptr;
    };
    switch (inst.opcode()) {
      case HloOpcode::kTuple:
        for (int64_t i = 0; i < inst.operand_count() && i < shape.tuple_size(); ++i) {
          Add(inst, ChildStart(shape, i), operand(i), 0);
        }
        break;
      case HloOpcode::kGetTupleElement: {
        const HloInstruction* tuple = operand(0);
        const int64_t index = inst.has_attrs() ? inst.tuple_index() : -1;
        if (tuple != nullptr && tuple->shape().IsTuple() && index >= 0 &&
            index < tuple->shape().tuple_size()) {
          Add(inst, 0, tuple, ChildStart(tuple->shape(), index));
        }
        break;
      }
      case HloOpcode::kBitcast:
      case HloOpcode::kDomain:
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kAddDependency:
      case HloOpcode::kAsyncUpdate:
      case HloOpcode::kAllReduceDone:
        Add(inst, 0, operand(0), 0);
        break;
      case HloOpcode::kAsyncDone:
      case HloOpcode::kAllGatherDone:
      case HloOpcode::kCollectivePermuteDone:
        // The start's {1} is the result.
        if (operand(0) != nullptr && operand(0)->shape().IsTuple() &&
            operand(0)->shape().tuple_size() > 1) {
          Add(inst, 0, operand(0), ChildStart(operand(0)->shape(), 1));
        }
        break;
      case HloOpcode::kCopyDone:
        Add(inst, 0, operand(0), 1);  // copy-start's {0}: the destination
        break;
      case HloOpcode::kCopyStart:
        if (shape.IsTuple() && shape.tuple_size() > 1)
          Add(inst, ChildStart(shape, 1), operand(0), 0);
        break;
      case HloOpcode::kSend:
        if (shape.IsTuple() && shape.tuple_size() > 0) Add(inst, 1, operand(0), 0);
        break;
      case HloOpcode::kRecvDone:
        if (shape.IsTuple() && shape.tuple_size() > 0) Add(inst, 1, operand(0), 1);
        break;
      case HloOpcode::kAsyncStart:
        OperandsIntoChildZero(inst, /*single_is_whole=*/false);
        break;
      case HloOpcode::kAllGatherStart:
        OperandsIntoChildZero(inst, /*single_is_whole=*/true);
        break;
      case HloOpcode::kCollectivePermuteStart:
        // {0} is the operand; the in-place form also writes into operand 1.
        if (shape.IsTuple() && shape.tuple_size() > 1) {
          Add(inst, 1, operand(0), 0);
          if (inst.operand_count() >= 2) Add(inst, ChildStart(shape, 1), operand(1), 0);
        }
        break;
      case HloOpcode::kWhile:
        if (inst.called_computations().size() == 2) {
          const HloComputation* condition = inst.called_computations()[0];
          const HloComputation* body = inst.called_computations()[1];
          // Init and body result meet in the loop state: the while, the
          // body's and the condition's parameter hold either.
          const HloInstruction* holders[] = {&inst, body->parameter_instruction(0),
                                             condition->parameter_instruction(0)};
          for (const HloInstruction* holder : holders) {
            if (holder == nullptr) continue;
            Add(*holder, 0, operand(0), 0);
            Add(*holder, 0, body->root_instruction(), 0);
          }
        }
        break;
      case HloOpcode::kConditional:
        for (size_t b = 0; b < inst.called_computations().size(); ++b) {
          const HloComputation* branch = inst.called_computations()[b];
          Add(inst, 0, branch->root_instruction(), 0);
          if (branch->parameter_instruction(0) != nullptr) {
            Add(*branch->parameter_instruction(0), 0, operand(static_cast<int64_t>(b) + 1), 0);
          }
        }
        break;
      case HloOpcode::kCall:
        if (!inst.called_computations().empty()) {
          const HloComputation* callee = inst.called_computations()[0];
          Add(inst, 0, callee->root_instruction(), 0);
          for (int64_t j = 0; j < callee->num_parameters(); ++j) {
            if (callee->parameter_instruction(j) != nullptr) {
              Add(*callee->parameter_instruction(j), 0, operand(j), 0);
            }
          }
        }
        break;
      default:
        break;
    }
  }

 private:
  // The whole subtree of `src` at `src_pos` into `dst` at `dst_pos`, when the
  // two subshapes have the same structure (malformed input forwards nothing).
  void Add(const HloInstruction& dst, int32_t dst_pos, const HloInstruction* src, int32_t src_pos) {
    if (src == nullptr) return;
    const Shape* to = SubshapeAtFlat(dst.shape(), dst_pos);
    const Shape* from = SubshapeAtFlat(src->shape(), src_pos);
    if (to == nullptr || from == nullptr) return;
    const int32_t count = ShapePositionCount(*to);
    if (count != ShapePositionCount(*from) || to->IsTuple() != from->IsTuple()) return;
    out_[&dst].push_back({dst_pos, src, src_pos, count});
  }

  // Async starts keep their operands at {0}: the operand itself when there
  // is one (all-gather-start), else a tuple of them ({0, i}).
  void OperandsIntoChildZero(const HloInstruction& inst, bool single_is_whole) {
    const Shape& shape = inst.shape();
    if (!shape.IsTuple() || shape.tuple_size() == 0) return;
    if (single_is_whole && inst.operand_count() == 1) {
      Add(inst, 1, inst.operand(0), 0);
      return;
    }
    const Shape& operands = shape.tuple_shapes(0);
    if (!operands.IsTuple()) return;
    for (int64_t i = 0; i < inst.operand_count() && i < operands.tuple_size(); ++i) {
      Add(inst, 1 + ChildStart(operands, i), inst.operand(i), 0);
    }
  }

  absl::flat_hash_map<const HloInstruction*, std::vector<Forward>>& out_;
};

}  // namespace

int32_t FlatIndexOf(const Shape& shape, const ShapeIndex& index) {
  const Shape* current = &shape;
  int32_t flat = 0;
  for (int64_t i : index) {
    if (!current->IsTuple() || i < 0 || i >= current->tuple_size()) return -1;
    flat += ChildStart(*current, i);
    current = &current->tuple_shapes(i);
  }
  return flat;
}

ShapeIndex ShapeIndexOfFlat(const Shape& shape, int32_t flat_index) {
  ShapeIndex index;
  const Shape* current = &shape;
  while (flat_index > 0 && current->IsTuple()) {
    int32_t position = 1;
    for (int64_t i = 0; i < current->tuple_size(); ++i) {
      const int32_t count = ShapePositionCount(current->tuple_shapes(i));
      if (flat_index < position + count) {
        index.push_back(i);
        flat_index -= position;
        current = &current->tuple_shapes(i);
        break;
      }
      position += count;
    }
  }
  return index;
}

const HloInstruction* DataflowAnalysis::CallSiteOf(const HloComputation& c) const {
  auto it = call_site_.find(&c);
  return it == call_site_.end() ? nullptr : it->second;
}

absl::Status DataflowAnalysis::FindSequentialComputations() {
  const HloComputation* entry = module_.entry_computation();
  if (entry == nullptr) return InvalidArgument("module has no entry computation");
  const CallGraph graph(module_);
  call_site_[entry] = nullptr;
  // Callers first, so a computation is sequential when a sequential one
  // calls it as control flow.
  const std::vector<HloComputation*>& post_order = graph.PostOrder();
  for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
    const HloComputation* c = *it;
    if (c == entry) continue;
    const HloInstruction* site = nullptr;
    for (const CallSite& call : graph.CallSitesOf(*c)) {
      if (call.kind != CallKind::kControlFlow || !call_site_.contains(call.caller())) continue;
      if (site != nullptr && site != call.instruction) {
        return Unimplemented("computation ", AsAbsl(c->name()),
                             " has several control-flow call sites (", AsAbsl(site->name()), ", ",
                             AsAbsl(call.instruction->name()), "); run flatten-call-graph first");
      }
      site = call.instruction;
    }
    if (site != nullptr) call_site_[c] = site;
  }
  for (const auto& c : module_.computations()) {
    if (call_site_.contains(c.get())) sequential_.push_back(c.get());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<DataflowAnalysis>> DataflowAnalysis::Run(const HloModule& module) {
  std::unique_ptr<DataflowAnalysis> analysis(new DataflowAnalysis(module));
  XLITE_RETURN_IF_ERROR(analysis->FindSequentialComputations());
  analysis->Propagate();
  return analysis;
}

void DataflowAnalysis::Propagate() {
  // Every analysed instruction in a deterministic order; its slot.
  std::vector<const HloInstruction*> order;
  for (const HloComputation* c : sequential_) {
    for (const auto& inst : c->instructions()) order.push_back(inst.get());
  }
  int32_t total = 0;
  for (const HloInstruction* inst : order) {
    const int32_t count = ShapePositionCount(inst->shape());
    slots_[inst] = {total, count};
    total += count;
  }
  sets_.assign(static_cast<size_t>(total), {});

  absl::flat_hash_map<const HloInstruction*, std::vector<Forward>> forwards;
  ForwardRules rules(&forwards);
  for (const HloInstruction* inst : order) rules.Collect(*inst);

  // Positions no forward covers hold the value the instruction defines.
  absl::flat_hash_map<const HloInstruction*, std::vector<const HloInstruction*>> dependents;
  for (const HloInstruction* inst : order) {
    const Slot slot = slots_.at(inst);
    std::vector<bool> covered(static_cast<size_t>(slot.count), false);
    auto it = forwards.find(inst);
    if (it != forwards.end()) {
      for (const Forward& f : it->second) {
        if (!slots_.contains(f.src)) continue;
        for (int32_t k = 0; k < f.count; ++k) covered[f.dst_pos + k] = true;
        std::vector<const HloInstruction*>& deps = dependents[f.src];
        if (deps.empty() || deps.back() != inst) deps.push_back(inst);
      }
    }
    for (int32_t p = 0; p < slot.count; ++p) {
      if (covered[p]) continue;
      HloValue value;
      value.id = static_cast<int32_t>(values_.size());
      value.instruction = inst;
      value.index = ShapeIndexOfFlat(inst->shape(), p);
      value.shape = SubshapeAtFlat(inst->shape(), p);
      sets_[slot.first + p] = {value.id};
      values_.push_back(std::move(value));
    }
  }

  // Unions grow monotonically over a finite set of values, so the worklist
  // empties (loops take a few rounds).
  std::deque<const HloInstruction*> work(order.begin(), order.end());
  absl::flat_hash_map<const HloInstruction*, bool> queued;
  for (const HloInstruction* inst : order) queued[inst] = true;
  std::vector<int32_t> merged;
  while (!work.empty()) {
    const HloInstruction* inst = work.front();
    work.pop_front();
    queued[inst] = false;
    auto it = forwards.find(inst);
    if (it == forwards.end()) continue;
    const Slot slot = slots_.at(inst);
    std::vector<std::vector<int32_t>> fresh(static_cast<size_t>(slot.count));
    std::vector<bool> covered(static_cast<size_t>(slot.count), false);
    for (const Forward& f : it->second) {
      auto src = slots_.find(f.src);
      if (src == slots_.end()) continue;
      for (int32_t k = 0; k < f.count; ++k) {
        const std::vector<int32_t>& from = sets_[src->second.first + f.src_pos + k];
        std::vector<int32_t>& to = fresh[f.dst_pos + k];
        merged.clear();
        std::set_union(to.begin(), to.end(), from.begin(), from.end(), std::back_inserter(merged));
        to.swap(merged);
        covered[f.dst_pos + k] = true;
      }
    }
    bool changed = false;
    for (int32_t p = 0; p < slot.count; ++p) {
      if (covered[p] && sets_[slot.first + p] != fresh[p]) {
        sets_[slot.first + p] = std::move(fresh[p]);
        changed = true;
      }
    }
    if (!changed) continue;
    auto deps = dependents.find(inst);
    if (deps == dependents.end()) continue;
    for (const HloInstruction* dep : deps->second) {
      if (!queued[dep]) {
        queued[dep] = true;
        work.push_back(dep);
      }
    }
  }

  positions_.assign(values_.size(), {});
  for (const HloValue& value : values_) {
    positions_[value.id].push_back(
        {value.instruction, FlatIndexOf(value.instruction->shape(), value.index)});
  }
  for (const HloInstruction* inst : order) {
    const Slot slot = slots_.at(inst);
    for (int32_t p = 0; p < slot.count; ++p) {
      for (int32_t id : sets_[slot.first + p]) {
        const HloValue& value = values_[id];
        if (value.instruction == inst && positions_[id][0].flat_index == p) continue;
        positions_[id].push_back({inst, p});
      }
    }
  }
}

absl::Span<const int32_t> DataflowAnalysis::ValueSetAtFlat(const HloInstruction& inst,
                                                           int32_t flat_index) const {
  auto it = slots_.find(&inst);
  if (it == slots_.end() || flat_index < 0 || flat_index >= it->second.count) return {};
  return sets_[it->second.first + flat_index];
}

absl::Span<const int32_t> DataflowAnalysis::ValueSetAt(const HloInstruction& inst,
                                                       const ShapeIndex& index) const {
  return ValueSetAtFlat(inst, FlatIndexOf(inst.shape(), index));
}

std::vector<int32_t> DataflowAnalysis::AllValuesAt(const HloInstruction& inst) const {
  std::vector<int32_t> all;
  auto it = slots_.find(&inst);
  if (it == slots_.end()) return all;
  for (int32_t p = 0; p < it->second.count; ++p) {
    const std::vector<int32_t>& set = sets_[it->second.first + p];
    all.insert(all.end(), set.begin(), set.end());
  }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

int32_t DataflowAnalysis::ValueDefinedAt(const HloInstruction& inst,
                                         const ShapeIndex& index) const {
  const int32_t flat = FlatIndexOf(inst.shape(), index);
  for (int32_t id : ValueSetAtFlat(inst, flat)) {
    if (values_[id].instruction == &inst && values_[id].index == index) return id;
  }
  return -1;
}

}  // namespace xlite
