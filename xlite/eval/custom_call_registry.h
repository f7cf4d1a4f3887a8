// Custom-call targets the evaluator knows: a name -> handler table. The
// built-in registry covers the sharding annotations, host offloading markers,
// TopK and JAX's LAPACK calls; embedders copy it and add their own targets.
#ifndef XLITE_EVAL_CUSTOM_CALL_REGISTRY_H_
#define XLITE_EVAL_CUSTOM_CALL_REGISTRY_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/eval/eval_context.h"
#include "xlite/ir/instruction.h"
#include "xlite/ir/literal.h"
#include "xlite/ir/module.h"

namespace xlite::eval {

// Computes the custom-call `inst` from its evaluated operands.
using CustomCallHandler = std::function<absl::StatusOr<Literal>(
    const HloInstruction& inst, absl::Span<const Literal* const> operands, EvalContext& ctx)>;

class CustomCallRegistry {
 public:
  // The registry EvalOptions::custom_calls == nullptr stands for.
  static const CustomCallRegistry& BuiltIn();

  // Adds `target`, replacing an earlier handler of the same name.
  void Register(std::string target, CustomCallHandler handler);
  // nullptr when `target` is not registered.
  const CustomCallHandler* Find(std::string_view target) const;
  // Every registered name, sorted.
  std::vector<std::string> Targets() const;
  // The custom-call targets of `module` this registry lacks, sorted, unique.
  std::vector<std::string> UnknownTargets(const HloModule& module) const;

 private:
  // Looked up by name only; Targets() sorts before anything is printed.
  absl::flat_hash_map<std::string, CustomCallHandler> handlers_;
};

// Adds the built-in targets (custom_call_ops.cc).
void RegisterBuiltInCustomCalls(CustomCallRegistry& registry);
// Adds JAX's LAPACK targets (lapack_ops.cc, or lapack_unavailable.cc when
// xlite is built without LAPACK).
void RegisterLapackCustomCalls(CustomCallRegistry& registry);

}  // namespace xlite::eval

#endif  // XLITE_EVAL_CUSTOM_CALL_REGISTRY_H_
