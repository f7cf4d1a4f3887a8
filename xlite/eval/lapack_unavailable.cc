// JAX's LAPACK custom-call targets in a build without LAPACKE: each is known
// by name and stops with a clear error (lapack_ops.cc is the real thing).
#include "xlite/base/status.h"
#include "xlite/eval/custom_call_registry.h"
#include "xlite/ir/lapack/lapack_targets.h"

namespace xlite::eval {

void RegisterLapackCustomCalls(CustomCallRegistry& registry) {
  for (const std::string& name : LapackTargetNames()) {
    registry.Register(name,
                      [name](const HloInstruction&, absl::Span<const Literal* const>,
                             EvalContext&) -> absl::StatusOr<Literal> {
                        return Unimplemented("custom-call target \"", name,
                                             "\" (xlite was built without LAPACK)");
                      });
  }
}

}  // namespace xlite::eval
