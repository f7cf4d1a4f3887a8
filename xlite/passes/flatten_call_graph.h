// flatten-call-graph: gives every computation called from a control-flow
// site (call, while condition/body, conditional branch) exactly one such
// caller by cloning it for the other sites, as XLA's FlattenCallGraph.
// Embedded uses (reduce/map/sort/scatter... to_apply, fusion bodies, async
// wrapped computations) may stay shared; a computation used both ways keeps
// the embedded users and every control-flow site gets a clone.
#ifndef XLITE_PASSES_FLATTEN_CALL_GRAPH_H_
#define XLITE_PASSES_FLATTEN_CALL_GRAPH_H_

#include "xlite/passes/pass.h"

namespace xlite {

class FlattenCallGraphPass : public HloPass {
 public:
  std::string_view name() const override { return "flatten-call-graph"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_FLATTEN_CALL_GRAPH_H_
