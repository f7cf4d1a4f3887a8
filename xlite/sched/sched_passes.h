// The passes of xlite/sched under XLA's names, added to the pass registry
// (so that `xlite opt --passes=` and pipelines find them).
#ifndef XLITE_SCHED_SCHED_PASSES_H_
#define XLITE_SCHED_SCHED_PASSES_H_

namespace xlite {

// Idempotent.
void RegisterSchedulingPasses();

}  // namespace xlite

#endif  // XLITE_SCHED_SCHED_PASSES_H_
