// The one cost of a collective, shared by `xlite cost` and the schedulers:
// which kind of transfer an instruction is, and its alpha-beta time over its
// replica group on a device (alpha: interconnect latency, beta: 1/bandwidth);
// an async copy moves its bytes at the memory bandwidth.
#ifndef XLITE_ANALYSIS_COLLECTIVE_MODEL_H_
#define XLITE_ANALYSIS_COLLECTIVE_MODEL_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "xlite/analysis/cost_analysis.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/ir/instruction.h"

namespace xlite {

// One resource per kind in the latency hiding scheduler, as XLA's
// AsyncTracker (copy-start/copy-done are its kCopy).
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

struct CollectiveEstimate {
  double seconds = 0;
  double bytes = 0;                     // the data the algorithm's cost is stated over
  int64_t group_size = 1;               // participants per replica group
  std::string_view algorithm = "none";  // ring, tree, direct, copy
};

// Alpha-beta cost of one collective of `kind` on `bytes` (the full,
// un-sharded array) among `n` participants:
//   all-reduce      ring 2(n-1)α + 2(n-1)/n·B·β, tree 2⌈log2 n⌉α + 2B·β (the cheaper)
//   all-gather, reduce-scatter, all-to-all   ring (n-1)α + (n-1)/n·B·β
//   collective-permute   α + B·β
// n <= 1 communicates nothing (0 s).
CollectiveEstimate AlphaBeta(CollectiveKind kind, double bytes, int64_t n, double alpha_seconds,
                             double bytes_per_second);

// One execution of the collective (or async collective start, or copy-start)
// `inst` on `device`; nothing for other instructions.
CollectiveEstimate CollectiveTime(const HloInstruction& inst, const DeviceSpec& device);

// The roofline of one flattened instruction (AnalyzeModuleCost's entries)
// where a collective's interconnect time is CollectiveTime times its
// executions, as the schedulers price it; other instructions as Roofline.
RooflineTime InstructionRoofline(const InstructionCost& entry, const DeviceSpec& device);

}  // namespace xlite

#endif  // XLITE_ANALYSIS_COLLECTIVE_MODEL_H_
