// Dataflow analysis: the values (arrays and tuple tables) each instruction
// defines, and the set of values every (instruction, ShapeIndex) may hold,
// through tuples, get-tuple-element, bitcast, while, conditional, call and
// the async start/done pairs. Alias analysis and liveness build on it.
#ifndef XLITE_ANALYSIS_DATAFLOW_H_
#define XLITE_ANALYSIS_DATAFLOW_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xlite/ir/module.h"

namespace xlite {

// One value: what an instruction writes at one index of its shape (an array,
// or the pointer table of a tuple). Values are numbered deterministically:
// computations in module order, instructions in text order, indices in
// pre-order.
struct HloValue {
  int32_t id = 0;
  const HloInstruction* instruction = nullptr;
  ShapeIndex index;
  const Shape* shape = nullptr;  // the subshape at `index`
};

// A place that may hold a value: instruction and pre-order position in its
// shape (0 is the whole shape).
struct HloPosition {
  const HloInstruction* instruction = nullptr;
  int32_t flat_index = 0;
};

class DataflowAnalysis {
 public:
  // Analyses the entry and every computation it reaches through while,
  // conditional and call ("sequential" computations; fusion bodies, reducers
  // and async wrapped computations run inside their caller and hold no
  // values of their own). Fails when a sequential computation has several
  // control-flow call sites (run flatten-call-graph first).
  static absl::StatusOr<std::unique_ptr<DataflowAnalysis>> Run(const HloModule& module);

  const HloModule& module() const { return module_; }
  const std::vector<HloValue>& values() const { return values_; }
  const HloValue& value(int32_t id) const { return values_[id]; }

  bool IsAnalysed(const HloInstruction& inst) const { return slots_.contains(&inst); }
  // The values `inst` may hold at `index` (sorted ids); empty when `inst` is
  // not analysed or the index does not exist.
  absl::Span<const int32_t> ValueSetAt(const HloInstruction& inst, const ShapeIndex& index) const;
  absl::Span<const int32_t> ValueSetAtFlat(const HloInstruction& inst, int32_t flat_index) const;
  // Every value `inst` may hold anywhere in its shape (sorted, unique).
  std::vector<int32_t> AllValuesAt(const HloInstruction& inst) const;
  // The value `inst` defines at `index`, or -1 when it forwards one there.
  int32_t ValueDefinedAt(const HloInstruction& inst, const ShapeIndex& index) const;
  // Where a value may be found (defining position first).
  const std::vector<HloPosition>& PositionsOf(int32_t value_id) const {
    return positions_[value_id];
  }

  // The sequential computations, callees before callers (module order).
  const std::vector<const HloComputation*>& sequential_computations() const { return sequential_; }
  bool IsSequential(const HloComputation& c) const { return call_site_.contains(&c); }
  // The while/conditional/call instruction calling a sequential computation
  // (nullptr for the entry).
  const HloInstruction* CallSiteOf(const HloComputation& c) const;

 private:
  explicit DataflowAnalysis(const HloModule& module) : module_(module) {}
  absl::Status FindSequentialComputations();
  void Propagate();

  struct Slot {
    int32_t first = 0;  // index into sets_
    int32_t count = 0;  // positions in the shape
  };
  const HloModule& module_;
  std::vector<HloValue> values_;
  std::vector<std::vector<HloPosition>> positions_;
  std::vector<std::vector<int32_t>> sets_;
  // Looked up only, never iterated (output order comes from the module).
  absl::flat_hash_map<const HloInstruction*, Slot> slots_;
  absl::flat_hash_map<const HloComputation*, const HloInstruction*> call_site_;
  std::vector<const HloComputation*> sequential_;
};

// Pre-order positions of a shape: 1 for an array, 1 + the children's for a
// tuple.
int32_t ShapePositionCount(const Shape& shape);
// The pre-order position of `index` in `shape`, or -1 when it does not exist.
int32_t FlatIndexOf(const Shape& shape, const ShapeIndex& index);
// The ShapeIndex of pre-order position `flat_index`.
ShapeIndex ShapeIndexOfFlat(const Shape& shape, int32_t flat_index);

}  // namespace xlite

#endif  // XLITE_ANALYSIS_DATAFLOW_H_
