#include "xlite/eval/evaluator.h"

#include <memory>
#include <new>
#include <random>
#include <stdexcept>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/eval/eval_context.h"
#include "xlite/eval/op_handlers.h"

namespace xlite {
namespace {

// The evaluation order of a computation and, per instruction, where its
// operands sit in that order and how many reads remain before its value can
// be dropped. Built once per computation and reused (loop bodies, reducers).
struct ComputationPlan {
  std::vector<const HloInstruction*> order;
  std::vector<std::vector<int32_t>> operand_slots;
  std::vector<int32_t> use_counts;
  int32_t root_slot = -1;
};

ComputationPlan MakePlan(const HloComputation& computation) {
  ComputationPlan plan;
  std::vector<HloInstruction*> post = computation.MakeInstructionPostOrder();
  absl::flat_hash_map<const HloInstruction*, int32_t> slot_of;
  slot_of.reserve(post.size());
  for (HloInstruction* inst : post) {
    slot_of[inst] = static_cast<int32_t>(plan.order.size());
    plan.order.push_back(inst);
  }
  plan.operand_slots.resize(plan.order.size());
  plan.use_counts.assign(plan.order.size(), 0);
  for (size_t i = 0; i < plan.order.size(); ++i) {
    for (const HloInstruction* operand : plan.order[i]->operands()) {
      int32_t slot = slot_of.at(operand);
      plan.operand_slots[i].push_back(slot);
      ++plan.use_counts[slot];
    }
  }
  plan.root_slot = slot_of.at(computation.root_instruction());
  return plan;
}

absl::Status CheckArgument(const Shape& expected, const Literal& arg, int64_t index) {
  const Shape& got = arg.shape();
  bool same = expected.IsTuple() ? got.IsTuple() && got.tuple_size() == expected.tuple_size()
                                 : got.element_type() == expected.element_type() &&
                                       got.dimensions() == expected.dimensions();
  if (!same) {
    return InvalidArgument("argument ", index, " has shape ", got.ToString(), " but parameter ",
                           index, " expects ", expected.ToString());
  }
  if (expected.IsTuple()) {
    for (int64_t i = 0; i < expected.tuple_size(); ++i) {
      XLITE_RETURN_IF_ERROR(
          CheckArgument(expected.tuple_shapes(i), arg.tuple_elements()[i], index));
    }
  }
  return absl::OkStatus();
}

}  // namespace

class Evaluator::Impl : public eval::EvalContext {
 public:
  explicit Impl(EvalOptions options)
      : options_(options),
        handlers_(eval::DefaultOpHandlers()),
        rng_(options.rng_seed ^
             (0x9e3779b97f4a7c15ull *
              static_cast<uint64_t>(options.replica_id * 1000003 + options.partition_id + 1))) {}

  const EvalOptions& options() const override { return options_; }
  std::mt19937_64& rng() override { return rng_; }

  absl::StatusOr<Literal> Call(const HloComputation& computation,
                               absl::Span<const Literal* const> args) override {
    if (static_cast<int64_t>(args.size()) != computation.num_parameters()) {
      return InvalidArgument("computation ", computation.name(), " takes ",
                             computation.num_parameters(), " arguments, got ", args.size());
    }
    XLITE_RETURN_IF_ERROR(CheckDeadline());
    const ComputationPlan& plan = PlanFor(computation);
    size_t n = plan.order.size();
    std::vector<Literal> owned(n);
    std::vector<const Literal*> value(n, nullptr);
    std::vector<int32_t> uses = plan.use_counts;
    std::vector<const Literal*> operands;
    for (size_t i = 0; i < n; ++i) {
      const HloInstruction& inst = *plan.order[i];
      if (inst.opcode() == HloOpcode::kParameter) {
        value[i] = args[inst.parameter_number()];
        continue;
      }
      if (absl::Status in_time = CheckDeadline(); !in_time.ok()) return Annotate(in_time, inst);
      operands.clear();
      for (int32_t slot : plan.operand_slots[i]) operands.push_back(value[slot]);
      absl::StatusOr<Literal> result = Evaluate(inst, operands);
      if (!result.ok()) return result.status();
      owned[i] = *std::move(result);
      value[i] = &owned[i];
      // Drop operand values nobody reads any more (the root stays).
      for (int32_t slot : plan.operand_slots[i]) {
        if (--uses[slot] == 0 && slot != plan.root_slot) owned[slot] = Literal();
      }
    }
    size_t root = static_cast<size_t>(plan.root_slot);
    if (value[root] == &owned[root]) return std::move(owned[root]);
    return *value[root];  // the root is a parameter: copy it out
  }

  // One instruction on its operand values; errors name the instruction.
  absl::StatusOr<Literal> Evaluate(const HloInstruction& inst,
                                   absl::Span<const Literal* const> operands) {
    eval::OpHandler handler = handlers_.Get(inst.opcode());
    if (handler == nullptr) {
      return Unimplemented("the evaluator has no rule for ", AsAbsl(OpcodeName(inst.opcode())),
                           " (instruction %", inst.name(), ")");
    }
    absl::StatusOr<Literal> result = RunHandler(handler, inst, operands);
    if (!result.ok()) return Annotate(result.status(), inst);
    return result;
  }

 private:
  absl::Status CheckDeadline() const {
    if (options_.deadline == std::chrono::steady_clock::time_point::max() ||
        std::chrono::steady_clock::now() < options_.deadline) {
      return absl::OkStatus();
    }
    return absl::DeadlineExceededError("the evaluation ran out of time");
  }

  // Handlers allocate their results (and scratch) as literals: running out
  // of memory there is an error of this instruction, not an abort.
  absl::StatusOr<Literal> RunHandler(eval::OpHandler handler, const HloInstruction& inst,
                                     absl::Span<const Literal* const> operands) {
    try {
      return handler(inst, operands, *this);
    } catch (const std::bad_alloc&) {
    } catch (const std::length_error&) {
    }
    return absl::ResourceExhaustedError(
        absl::StrCat("out of memory while evaluating it (its result ", inst.shape().ToString(),
                     " takes ", CheckedStorageBytes(inst.shape()), " bytes)"));
  }

  static absl::Status Annotate(const absl::Status& status, const HloInstruction& inst) {
    // Nested calls already named the inner instruction: this adds the path.
    return absl::Status(status.code(),
                        absl::StrCat("%", inst.name(), " (", AsAbsl(OpcodeName(inst.opcode())),
                                     "): ", status.message()));
  }

  const ComputationPlan& PlanFor(const HloComputation& computation) {
    auto it = plans_.find(&computation);
    if (it != plans_.end()) return *it->second;
    auto plan = std::make_unique<ComputationPlan>(MakePlan(computation));
    return *plans_.emplace(&computation, std::move(plan)).first->second;
  }

  EvalOptions options_;
  const eval::OpHandlerTable& handlers_;
  std::mt19937_64 rng_;
  // Looked up only, never iterated: pointer keys keep output deterministic.
  absl::flat_hash_map<const HloComputation*, std::unique_ptr<ComputationPlan>> plans_;
};

Evaluator::Evaluator(EvalOptions options) : impl_(new Impl(options)) {}
Evaluator::~Evaluator() { delete impl_; }

absl::StatusOr<Literal> Evaluator::Run(const HloModule& module, absl::Span<const Literal> args) {
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return InvalidArgument("module ", module.name(), " has no entry");
  if (static_cast<int64_t>(args.size()) != entry->num_parameters()) {
    return InvalidArgument("module ", module.name(), " takes ", entry->num_parameters(),
                           " arguments, got ", args.size());
  }
  std::vector<const Literal*> pointers;
  for (size_t i = 0; i < args.size(); ++i) {
    const HloInstruction* param = entry->parameter_instruction(static_cast<int64_t>(i));
    XLITE_RETURN_IF_ERROR(CheckArgument(param->shape(), args[i], static_cast<int64_t>(i)));
    pointers.push_back(&args[i]);
  }
  return impl_->Call(*entry, pointers);
}

absl::StatusOr<Literal> Evaluator::RunComputation(const HloComputation& computation,
                                                  absl::Span<const Literal* const> args) {
  return impl_->Call(computation, args);
}

absl::StatusOr<Literal> Evaluator::EvaluateInstruction(const HloInstruction& inst,
                                                       absl::Span<const Literal* const> operands) {
  if (static_cast<int64_t>(operands.size()) != inst.operand_count()) {
    return InvalidArgument("%", inst.name(), " has ", inst.operand_count(), " operands, got ",
                           operands.size(), " values");
  }
  return impl_->Evaluate(inst, operands);
}

namespace eval {

const OpHandlerTable& DefaultOpHandlers() {
  static const OpHandlerTable* table = [] {
    auto* t = new OpHandlerTable();
    RegisterControlOps(*t);
    RegisterElementwiseOps(*t);
    RegisterDataMovementOps(*t);
    RegisterGatherScatterOps(*t);
    RegisterReductionOps(*t);
    RegisterLinalgOps(*t);
    RegisterCollectiveOps(*t);
    RegisterCustomCallOps(*t);
    return t;
  }();
  return *table;
}

}  // namespace eval
}  // namespace xlite
