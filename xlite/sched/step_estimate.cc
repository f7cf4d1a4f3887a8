#include "xlite/sched/step_estimate.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/ir/computation.h"
#include "xlite/ir/op_source.h"

namespace xlite {
namespace {

constexpr std::string_view kComputeStream = kComputeStreamName;

class Simulator {
 public:
  Simulator(const SourceLines& sources, const HloSchedule& schedule, LatencyModel& model,
            bool synchronous, StepEstimate& out)
      : sources_(sources),
        schedule_(schedule),
        model_(model),
        synchronous_(synchronous),
        out_(out) {}

  // Runs `c` once from `begin`; returns its end and its critical path.
  // Statistics count `executions` runs; slices are recorded when `record`.
  absl::StatusOr<std::pair<double, double>> Run(const HloComputation& c, double begin,
                                                double executions, bool record) {
    if (!schedule_.has_sequence(c)) return InvalidArgument("no schedule for ", AsAbsl(c.name()));
    absl::Span<HloInstruction* const> order = schedule_.sequence(c);
    absl::flat_hash_map<const HloInstruction*, double> ready, path, finish;
    std::array<double, kNumCollectiveKinds> stream_free;
    stream_free.fill(begin);
    double compute_free = begin, longest = 0;
    for (const HloInstruction* inst : order) {
      double t0 = compute_free, p0 = 0;
      auto wait_for = [&](const HloInstruction* pred) {
        auto r = ready.find(pred);
        if (r != ready.end()) t0 = std::max(t0, r->second);
        auto p = path.find(pred);
        if (p != path.end()) p0 = std::max(p0, p->second);
      };
      for (const HloInstruction* operand : inst->operands()) wait_for(operand);
      for (const HloInstruction* pred : inst->control_predecessors()) wait_for(pred);
      const std::optional<CollectiveKind> kind = CollectiveKindOf(*inst);
      if (IsAsyncCollectiveStart(*inst) && !synchronous_) {
        const CollectiveEstimate comm = model_.Collective(*inst);
        const int k = static_cast<int>(*kind);
        const double issue = std::max(t0, stream_free[k]);
        finish[inst] = issue + comm.seconds;
        stream_free[k] = issue + comm.seconds;
        ready[inst] = t0;
        path[inst] = p0 + comm.seconds;
        compute_free = t0;
        Communication(*inst, comm, *kind, executions);
        pending_[inst] = collective_index_;
        if (record) Slice(*inst, CollectiveKindName(*kind), issue, issue + comm.seconds);
      } else if (const HloInstruction* start = StartOfDone(*inst);
                 start != nullptr && !synchronous_) {
        auto f = finish.find(start);
        const double done_at = f == finish.end() ? t0 : std::max(t0, f->second);
        auto pending = pending_.find(start);
        if (pending != pending_.end()) {
          out_.collectives[pending->second].exposed_seconds += (done_at - t0) * executions;
        }
        out_.exposed_communication_seconds += (done_at - t0) * executions;
        compute_free = done_at;
        ready[inst] = done_at;
        path[inst] = p0;
      } else if (StartOfDone(*inst) != nullptr) {
        // Synchronous reading of a pair: the start did the waiting.
        compute_free = t0;
        ready[inst] = t0;
        path[inst] = p0;
      } else if (kind.has_value()) {
        // Synchronous: compute waits for the whole collective.
        const CollectiveEstimate comm = model_.Collective(*inst);
        const int k = static_cast<int>(*kind);
        const double issue = std::max(t0, stream_free[k]);
        const double end = issue + comm.seconds;
        stream_free[k] = end;
        Communication(*inst, comm, *kind, executions);
        out_.collectives.back().exposed_seconds = (end - t0) * executions;
        out_.exposed_communication_seconds += (end - t0) * executions;
        compute_free = end;
        ready[inst] = end;
        path[inst] = p0 + comm.seconds;
        if (record) Slice(*inst, CollectiveKindName(*kind), issue, end);
      } else if (inst->opcode() == HloOpcode::kWhile && inst->called_computations().size() == 2) {
        const double trips =
            static_cast<double>(std::max<int64_t>(WhileTripCount(*inst).value_or(1), 0));
        double end = t0, body_path = 0;
        if (trips > 0) {
          // One iteration (condition, then body), recorded; the rest repeat it.
          XLITE_ASSIGN_OR_RETURN(auto cond, Run(*inst->called_computations()[0], t0,
                                                executions * (trips + 1), record));
          XLITE_ASSIGN_OR_RETURN(auto body, Run(*inst->called_computations()[1], cond.first,
                                                executions * trips, record));
          const double once = body.first - t0;
          body_path = cond.second + body.second;
          end = t0 + once * trips;
          if (record && trips > 1) {
            out_.slices.push_back(
                {absl::StrCat(AsAbsl(inst->name()), " iterations 2..", static_cast<int64_t>(trips)),
                 inst->metadata().op_name, std::string(kComputeStream), body.first, end, "", ""});
          }
        }
        compute_free = end;
        ready[inst] = end;
        path[inst] = p0 + body_path * trips;
      } else if (IsSimulatedCall(*inst)) {
        // A call (one CallInlinerPass keeps) runs its callee in place; a
        // conditional runs the branch its constant selector picks, else the
        // one that takes longest: its collectives are the module's.
        XLITE_ASSIGN_OR_RETURN(const HloComputation* callee, CalleeToRun(*inst, t0));
        XLITE_ASSIGN_OR_RETURN(auto ran, Run(*callee, t0, executions, record));
        compute_free = ran.first;
        ready[inst] = ran.first;
        path[inst] = p0 + ran.second;
      } else {
        XLITE_ASSIGN_OR_RETURN(double seconds, model_.ComputeSeconds(*inst));
        out_.compute_seconds += seconds * executions;
        compute_free = t0 + seconds;
        ready[inst] = t0 + seconds;
        path[inst] = p0 + seconds;
        if (record && seconds > 0) {
          XLITE_ASSIGN_OR_RETURN(Cost cost, model_.ComputeCost(*inst));
          TimelineSlice& slice = Slice(*inst, kComputeStream, t0, t0 + seconds);
          slice.flops = cost.flops;
          slice.bytes_accessed = cost.bytes_accessed;
        }
      }
      longest = std::max(longest, path[inst]);
    }
    double end = compute_free;
    for (const auto& [inst, t] : ready) end = std::max(end, t);
    return std::make_pair(end, longest);
  }

 private:
  // Calls and conditionals whose computations are scheduled are simulated
  // through; anything else is priced whole by the cost analysis.
  bool IsSimulatedCall(const HloInstruction& inst) const {
    if (inst.opcode() != HloOpcode::kCall && inst.opcode() != HloOpcode::kConditional) {
      return false;
    }
    if (inst.called_computations().empty()) return false;
    for (const HloComputation* callee : inst.called_computations()) {
      if (callee == nullptr || !schedule_.has_sequence(*callee)) return false;
    }
    return true;
  }

  // The callee a call or conditional runs (see IsSimulatedCall).
  absl::StatusOr<const HloComputation*> CalleeToRun(const HloInstruction& inst, double begin) {
    const std::vector<HloComputation*>& callees = inst.called_computations();
    if (inst.opcode() != HloOpcode::kConditional) return callees[0];
    if (std::optional<int64_t> branch = ConstantBranch(inst)) return callees[*branch];
    const HloComputation* longest = callees[0];
    double longest_seconds = -1;
    for (const HloComputation* branch : callees) {
      StepEstimate scratch;
      Simulator trial(sources_, schedule_, model_, synchronous_, scratch);
      XLITE_ASSIGN_OR_RETURN(auto ran, trial.Run(*branch, begin, 1, /*record=*/false));
      if (ran.first - begin > longest_seconds) {
        longest_seconds = ran.first - begin;
        longest = branch;
      }
    }
    return longest;
  }

  // The branch a conditional with a constant selector takes (XLA's rule: a
  // pred picks the true branch first, an index out of range the last).
  static std::optional<int64_t> ConstantBranch(const HloInstruction& conditional) {
    const int64_t branches = static_cast<int64_t>(conditional.called_computations().size());
    if (branches == 1) return 0;
    const HloInstruction* selector = conditional.operand(0);
    if (selector->opcode() != HloOpcode::kConstant || !selector->shape().IsArray()) {
      return std::nullopt;
    }
    const int64_t value = selector->literal().GetInt64(0);
    if (selector->shape().element_type() == PrimitiveType::PRED) return value != 0 ? 0 : 1;
    return value < 0 || value >= branches ? branches - 1 : value;
  }

  void Communication(const HloInstruction& inst, const CollectiveEstimate& comm,
                     CollectiveKind kind, double executions) {
    const HloInstruction& op = CommunicatingInstruction(inst);
    CollectiveTiming timing;
    timing.name = inst.name();
    // The collective's own name: all-reduce for an all-reduce-start too.
    timing.opcode = std::string(kind == CollectiveKind::kOther ? OpcodeName(op.opcode())
                                                               : CollectiveKindName(kind));
    timing.op_name =
        op.metadata().op_name.empty() ? inst.metadata().op_name : op.metadata().op_name;
    timing.source = sources_.Of(op);
    if (timing.source.empty()) timing.source = sources_.Of(inst);
    timing.computation = inst.parent()->name();
    timing.algorithm = comm.algorithm;
    timing.executions = executions;
    timing.seconds = comm.seconds * executions;
    collective_index_ = out_.collectives.size();
    out_.collectives.push_back(std::move(timing));
    out_.communication_seconds += comm.seconds * executions;
    out_.stream_seconds[static_cast<int>(kind)] += comm.seconds * executions;
  }

  TimelineSlice& Slice(const HloInstruction& inst, std::string_view stream, double begin,
                       double end) {
    out_.slices.push_back({inst.name(), inst.metadata().op_name, std::string(stream), begin, end,
                           inst.shape().ToString(/*print_layout=*/false), sources_.Of(inst)});
    return out_.slices.back();
  }

  const SourceLines& sources_;
  const HloSchedule& schedule_;
  LatencyModel& model_;
  const bool synchronous_;
  StepEstimate& out_;
  absl::flat_hash_map<const HloInstruction*, size_t> pending_;  // start -> collectives index
  size_t collective_index_ = 0;
};

}  // namespace

absl::StatusOr<StepEstimate> EstimateStep(const HloModule& module, const HloSchedule& schedule,
                                          LatencyModel& model, bool synchronous) {
  StepEstimate estimate;
  if (module.entry_computation() == nullptr) return InvalidArgument("module has no entry");
  const SourceLines sources(module);
  Simulator simulator(sources, schedule, model, synchronous, estimate);
  XLITE_ASSIGN_OR_RETURN(auto result, simulator.Run(*module.entry_computation(), 0, 1, true));
  estimate.step_seconds = result.first;
  estimate.critical_path_seconds = result.second;
  double bound = std::max(estimate.compute_seconds, estimate.critical_path_seconds);
  for (double s : estimate.stream_seconds) bound = std::max(bound, s);
  estimate.lower_bound_seconds = bound;
  return estimate;
}

}  // namespace xlite
