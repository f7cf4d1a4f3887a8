#include "xlite/sched/schedule_constraints.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "xlite/ir/computation.h"

namespace xlite {
namespace {

// Whether `user` reads the value `position` holds: a tuple only forwards its
// operands, a get-tuple-element reads the top-level table alone (as XLA's
// HloValue uses).
bool ReadsValueAt(const HloInstruction& user, const HloPosition& position) {
  if (user.opcode() == HloOpcode::kTuple) return false;
  if (user.opcode() == HloOpcode::kGetTupleElement) return position.flat_index == 0;
  return true;
}

bool IsCallSite(const HloInstruction& inst) {
  return !inst.called_computations().empty() && inst.opcode() != HloOpcode::kAsyncStart &&
         inst.opcode() != HloOpcode::kAsyncDone && inst.opcode() != HloOpcode::kFusion;
}

}  // namespace

const KindCounts& ScheduleConstraintBuilder::DonesIn(const HloComputation& c) {
  if (auto it = dones_in_.find(&c); it != dones_in_.end()) return it->second;
  KindCounts counts{};
  for (const auto& inst : c.instructions()) {
    if (const HloInstruction* start = StartOfDone(*inst); start != nullptr) {
      ++counts[static_cast<int>(*CollectiveKindOf(*start))];
    }
    for (const HloComputation* callee : inst->called_computations()) {
      const KindCounts& inner = DonesIn(*callee);
      for (int k = 0; k < kNumCollectiveKinds; ++k) counts[k] += inner[k];
    }
  }
  return dones_in_[&c] = counts;
}

ScheduleConstraints ScheduleConstraintBuilder::For(absl::Span<HloInstruction* const> order) {
  ScheduleConstraints out;
  const int32_t n = static_cast<int32_t>(order.size());
  absl::flat_hash_map<const HloInstruction*, int32_t> position;
  for (int32_t i = 0; i < n; ++i) position[order[i]] = i;
  for (const HloInstruction* inst : order) {
    if (!IsCallSite(*inst)) continue;
    KindCounts counts{};
    for (const HloComputation* callee : inst->called_computations()) {
      const KindCounts& inner = DonesIn(*callee);
      for (int k = 0; k < kNumCollectiveKinds; ++k) counts[k] += inner[k];
    }
    if (std::any_of(counts.begin(), counts.end(), [](int32_t c) { return c > 0; })) {
      out.callee_dones[inst] = counts;
    }
  }

  // Whether `to` depends on `from`, by a forward sweep from `from` (the
  // order is topological), once per start asked about.
  absl::flat_hash_map<int32_t, std::vector<bool>> reached_from;
  auto reaches = [&](int32_t from, int32_t to) {
    if (to <= from) return to == from;
    auto [it, inserted] = reached_from.try_emplace(from);
    std::vector<bool>& reached = it->second;
    if (inserted) {
      reached.assign(n, false);
      reached[from] = true;
      for (int32_t j = from + 1; j < n; ++j) {
        auto reached_by = [&](const HloInstruction* pred) {
          auto p = position.find(pred);
          return p != position.end() && reached[p->second];
        };
        reached[j] =
            std::any_of(order[j]->operands().begin(), order[j]->operands().end(), reached_by) ||
            std::any_of(order[j]->control_predecessors().begin(),
                        order[j]->control_predecessors().end(), reached_by);
      }
    }
    return static_cast<bool>(reached[to]);
  };
  const DataflowAnalysis& dataflow = aliases_.dataflow();
  for (const HloInstruction* done : order) {
    const HloInstruction* start = StartOfDone(*done);
    if (start == nullptr || !position.contains(start)) continue;
    const int32_t s = position.at(start);
    // Every value that shares a buffer with the done's result, but the
    // result itself: its readers must run before the start fills the buffer.
    for (int32_t buffer : aliases_.BuffersAt(*done)) {
      for (int32_t v : aliases_.buffer(buffer).values) {
        const HloInstruction* definer = dataflow.value(v).instruction;
        if (definer == done || definer == start) continue;
        for (const HloPosition& at : dataflow.PositionsOf(v)) {
          for (const HloInstruction* user : at.instruction->users()) {
            auto u = position.find(user);
            if (u == position.end() || !ReadsValueAt(*user, at) || reaches(s, u->second)) continue;
            out.edges.push_back({user, start});
          }
        }
      }
    }
  }
  std::sort(out.edges.begin(), out.edges.end(), [&](const OrderEdge& a, const OrderEdge& b) {
    return std::make_pair(position.at(a.first), position.at(a.second)) <
           std::make_pair(position.at(b.first), position.at(b.second));
  });
  out.edges.erase(std::unique(out.edges.begin(), out.edges.end()), out.edges.end());
  const bool forward = std::all_of(out.edges.begin(), out.edges.end(), [&](const OrderEdge& e) {
    return position.at(e.first) < position.at(e.second);
  });
  if (!forward) {
    out.reordered = OrderWithEdges(order, out.edges);
    if (out.reordered.size() != order.size()) {  // a cycle: keep the dependences alone
      out.edges.clear();
      out.reordered.clear();
    }
  }
  return out;
}

HloSchedule::Sequence OrderWithEdges(absl::Span<HloInstruction* const> order,
                                     absl::Span<const OrderEdge> edges) {
  const int32_t n = static_cast<int32_t>(order.size());
  absl::flat_hash_map<const HloInstruction*, int32_t> position;
  for (int32_t i = 0; i < n; ++i) position[order[i]] = i;
  std::vector<std::vector<int32_t>> successors(n);
  std::vector<int32_t> waiting(n, 0);
  auto link = [&](const HloInstruction* before, int32_t after) {
    auto b = position.find(before);
    if (b == position.end()) return;
    successors[b->second].push_back(after);
    ++waiting[after];
  };
  for (int32_t i = 0; i < n; ++i) {
    for (const HloInstruction* operand : order[i]->operands()) link(operand, i);
    for (const HloInstruction* pred : order[i]->control_predecessors()) link(pred, i);
  }
  for (const OrderEdge& e : edges) link(e.first, position.at(e.second));
  // The earliest ready instruction of `order` first.
  std::priority_queue<int32_t, std::vector<int32_t>, std::greater<int32_t>> ready;
  for (int32_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  HloSchedule::Sequence result;
  result.reserve(n);
  while (!ready.empty()) {
    const int32_t i = ready.top();
    ready.pop();
    result.push_back(order[i]);
    for (int32_t next : successors[i]) {
      if (--waiting[next] == 0) ready.push(next);
    }
  }
  return result;
}

}  // namespace xlite
