// flatten-call-graph: gives every computation called from a control-flow
// site (call, while condition/body, conditional branch) exactly one such
// caller by cloning it for the other sites, as XLA's FlattenCallGraph.
// Embedded uses (reduce/map/sort/scatter... to_apply, fusion bodies, async
// wrapped computations) may stay shared; a computation used both ways keeps
// the embedded users and every control-flow site gets a clone.
#ifndef XLITE_PASSES_FLATTEN_CALL_GRAPH_H_
#define XLITE_PASSES_FLATTEN_CALL_GRAPH_H_

#include <cstdint>

#include "xlite/passes/pass.h"

namespace xlite {

// The most instructions the pass copies; beyond it the pass refuses (before
// changing anything) instead of growing the module exponentially.
inline constexpr int64_t kMaxFlattenCopies = int64_t{1} << 20;

class FlattenCallGraphPass : public HloPass {
 public:
  std::string_view name() const override { return "flatten-call-graph"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_FLATTEN_CALL_GRAPH_H_
