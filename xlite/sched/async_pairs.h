// Asynchronous collectives and copies: which instructions start and finish
// one, the kind each pair (or synchronous collective) occupies — one
// resource per kind in the latency hiding scheduler, as XLA's AsyncTracker
// (copy-start/copy-done are its kCopy) — and the instruction that does the
// transfer (the op itself, or the one an async-start wraps).
#ifndef XLITE_SCHED_ASYNC_PAIRS_H_
#define XLITE_SCHED_ASYNC_PAIRS_H_

#include <optional>
#include <string_view>

#include "xlite/ir/instruction.h"

namespace xlite {

enum class CollectiveKind : uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kCollectivePermute,
  kOther,
  kCopy  // copy-start/copy-done: a transfer between memory spaces
};
inline constexpr int kNumCollectiveKinds = 7;
std::string_view CollectiveKindName(CollectiveKind kind);

// The kind of a synchronous collective or of the transfer an async start
// begins (all-reduce-start, all-gather-start, collective-permute-start,
// copy-start, or async-start wrapping a collective); nullopt for anything else.
std::optional<CollectiveKind> CollectiveKindOf(const HloInstruction& inst);

// The instruction that describes the communication: `inst` itself, or the
// collective an async-start wraps (the root of its computation).
const HloInstruction& CommunicatingInstruction(const HloInstruction& inst);

// An async start of a collective or copy, and the matching done (its operand).
bool IsAsyncCollectiveStart(const HloInstruction& inst);
bool IsAsyncCollectiveDone(const HloInstruction& inst);
// The start a done finishes (its operand), when `done` is one.
const HloInstruction* StartOfDone(const HloInstruction& done);

}  // namespace xlite

#endif  // XLITE_SCHED_ASYNC_PAIRS_H_
