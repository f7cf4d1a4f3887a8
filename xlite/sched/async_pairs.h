// Asynchronous collectives and copies: which instructions start and finish
// one (the kind each occupies and the instruction that does the transfer
// are in analysis/collective_model.h, beside the cost of the transfer).
#ifndef XLITE_SCHED_ASYNC_PAIRS_H_
#define XLITE_SCHED_ASYNC_PAIRS_H_

#include <optional>
#include <string_view>

#include "xlite/analysis/collective_model.h"
#include "xlite/ir/instruction.h"

namespace xlite {

// An async start of a collective or copy, and the matching done (its operand).
bool IsAsyncCollectiveStart(const HloInstruction& inst);
bool IsAsyncCollectiveDone(const HloInstruction& inst);
// The start a done finishes (its operand), when `done` is one.
const HloInstruction* StartOfDone(const HloInstruction& done);

}  // namespace xlite

#endif  // XLITE_SCHED_ASYNC_PAIRS_H_
