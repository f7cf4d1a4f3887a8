// async-collective-creator turns all-reduce, all-gather, collective-permute,
// reduce-scatter and all-to-all into start/done pairs (the dedicated
// -start/-done opcodes where HLO has them, async-start/async-done around a
// wrapped computation otherwise); convert-async-collectives-to-sync turns a
// pair back into the synchronous op when nothing is scheduled between them.
// Both keep a module's schedule: the new instructions take the place of the
// ones they replace.
#ifndef XLITE_SCHED_ASYNC_COLLECTIVES_H_
#define XLITE_SCHED_ASYNC_COLLECTIVES_H_

#include "xlite/passes/pass.h"

namespace xlite {

class AsyncCollectiveCreatorPass : public HloPass {
 public:
  std::string_view name() const override { return "async-collective-creator"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

class ConvertAsyncCollectivesToSyncPass : public HloPass {
 public:
  std::string_view name() const override { return "convert-async-collectives-to-sync"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_SCHED_ASYNC_COLLECTIVES_H_
