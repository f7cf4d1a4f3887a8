#include "xlite/eval/interpreter_executable.h"

#include "xlite/eval/evaluator.h"

namespace xlite::eval {
namespace {

class InterpreterExecutable : public runtime::Executable {
 public:
  explicit InterpreterExecutable(const HloModule& module) : module_(module) {}

  absl::StatusOr<Literal> Execute(absl::Span<const Literal> args,
                                  const runtime::ExecuteOptions& options) override {
    EvalOptions eval_options;
    eval_options.rng_seed = options.rng_seed;
    eval_options.deadline = options.deadline;
    Evaluator evaluator(eval_options);
    return evaluator.Run(module_, args);
  }

 private:
  const HloModule& module_;
};

}  // namespace

std::unique_ptr<runtime::Executable> MakeInterpreterExecutable(const HloModule& module) {
  return std::make_unique<InterpreterExecutable>(module);
}

}  // namespace xlite::eval
