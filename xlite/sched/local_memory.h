// What memory-aware schedulers see of one computation: per instruction the
// bytes it allocates and the local buffers it reads and defines (a buffer is
// local when it is a temporary that neither enters through a parameter nor
// leaves through the root: only those are allocated and freed inside), and a
// tracker of the bytes live while a bottom-up list scheduler places them.
#ifndef XLITE_SCHED_LOCAL_MEMORY_H_
#define XLITE_SCHED_LOCAL_MEMORY_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "xlite/analysis/alias_analysis.h"
#include "xlite/analysis/liveness.h"

namespace xlite {

struct LocalMemory {
  LocalMemory(const AliasAnalysis& aliases, const HloComputation& c);

  // Operands and control predecessors, each once, in order.
  std::vector<int32_t> Predecessors(int32_t i) const;
  // The size of a local buffer this computation writes; 0 for one it only
  // reads (written in a callee, it is accounted there).
  int64_t BytesOf(int32_t buffer) const {
    auto it = bytes.find(buffer);
    return it == bytes.end() ? 0 : it->second;
  }

  std::vector<HloInstruction*> instructions;                  // text order
  absl::flat_hash_map<const HloInstruction*, int32_t> index;  // looked up only
  std::vector<int64_t> defined_bytes;           // every buffer it writes but parameters
  std::vector<std::vector<int32_t>> reads;      // local buffer ids, sorted
  absl::flat_hash_map<int32_t, int64_t> bytes;  // local buffer -> size
  absl::flat_hash_map<int32_t, std::vector<int32_t>> readers;  // local buffer -> instructions
  // The buffers each instruction reads and the local ones it writes,
  // numbered densely from 0 (slots), for trackers that look them up at
  // every step.
  std::vector<std::vector<int32_t>> read_slots, define_slots;
  std::vector<int64_t> slot_bytes;
};

// Local bytes live as instructions are placed from the last one up: a
// buffer opens when its last reader is placed and closes when its writer
// is. An output nobody reads is live only while its writer runs.
class BottomUpMemory {
 public:
  explicit BottomUpMemory(const LocalMemory& memory)
      : memory_(memory), open_(memory.slot_bytes.size(), false) {}

  // Bytes live while instruction `i` (a LocalMemory index) runs, were it
  // placed next.
  int64_t BytesWhileRunning(int32_t i) const;
  // How placing `i` changes the bytes live above it: the buffers it reads
  // open, the ones it writes close.
  int64_t Change(int32_t i) const;
  void Place(int32_t i);

  int64_t live() const { return live_; }
  int64_t peak() const { return peak_; }

 private:
  struct Effect {
    int64_t opened = 0;        // reads not yet live
    int64_t closed = 0;        // writes live above
    int64_t dead_written = 0;  // writes nobody above reads
  };
  Effect EffectOf(int32_t i) const;

  const LocalMemory& memory_;
  std::vector<bool> open_;  // slot -> live above
  int64_t live_ = 0, peak_ = 0;
};

// The module's memory limit seen from one computation: the bytes outside
// its local buffers while each of its instructions runs (parameters,
// constants, outputs, what its caller holds, a callee's own peak), taken
// from the liveness of a base order and assumed to stay as the computation
// is reordered. In the base order every instruction fits iff its peak does.
struct MemoryBudget {
  int64_t limit = 0;
  std::vector<int64_t> other_bytes;  // per LocalMemory index
  int64_t least_other_bytes = 0;
  // Base order positions nothing may be moved across (sorted): peaks an
  // order went over the limit at.
  std::vector<int32_t> barriers;

  // Whether instruction `i` fits while `bytes_while_running` local bytes
  // are live (BottomUpMemory::BytesWhileRunning).
  bool Fits(int64_t bytes_while_running, int32_t i) const;
  bool Exceeded(const BottomUpMemory& tracker) const;
};
MemoryBudget BudgetOf(const LocalMemory& memory, absl::Span<HloInstruction* const> base_order,
                      const Liveness& base, int64_t limit);

}  // namespace xlite

#endif  // XLITE_SCHED_LOCAL_MEMORY_H_
