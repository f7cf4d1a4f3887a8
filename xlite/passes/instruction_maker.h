// Adds new instructions to the computations of an existing module, as passes
// need: names unique in the module, fresh unique ids, common shapes derived.
// New instructions go to the end of their computation; Finish() restores the
// operands-before-users order of every computation that got any and, in a
// scheduled module, places them in the schedule (HloSchedule::Update).
#ifndef XLITE_PASSES_INSTRUCTION_MAKER_H_
#define XLITE_PASSES_INSTRUCTION_MAKER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "xlite/ir/builder.h"
#include "xlite/ir/module.h"

namespace xlite {

class InstructionMaker {
 public:
  explicit InstructionMaker(HloModule& module);

  // Any opcode; `attrs` null gets the opcode's default record.
  HloInstruction* Add(HloComputation& c, HloOpcode opcode, Shape shape,
                      absl::Span<HloInstruction* const> operands,
                      std::unique_ptr<OpAttrs> attrs = nullptr);
  HloInstruction* Constant(HloComputation& c, Literal literal);
  HloInstruction* ScalarConstant(HloComputation& c, PrimitiveType type, double value);
  // `value` in every element of `shape` (a scalar constant broadcast).
  HloInstruction* Splat(HloComputation& c, const Shape& shape, double value);
  // Elementwise ops with the shape of their first operand.
  HloInstruction* Unary(HloComputation& c, HloOpcode opcode, HloInstruction* x);
  HloInstruction* Binary(HloComputation& c, HloOpcode opcode, HloInstruction* a, HloInstruction* b);
  HloInstruction* Compare(HloComputation& c, HloInstruction* a, HloInstruction* b,
                          ComparisonDirection direction);
  HloInstruction* Select(HloComputation& c, HloInstruction* pred, HloInstruction* on_true,
                         HloInstruction* on_false);
  HloInstruction* Convert(HloComputation& c, HloInstruction* x, PrimitiveType type);
  HloInstruction* Broadcast(HloComputation& c, HloInstruction* x, const Shape& shape,
                            std::vector<int64_t> dimensions);
  HloInstruction* Reshape(HloComputation& c, HloInstruction* x, const Shape& shape);
  // get-tuple-element(`tuple`), index `i`.
  HloInstruction* GetTupleElement(HloComputation& c, HloInstruction* tuple, int64_t i);

  // A copy of `original` (opcode, shape, attributes, dimensions, called
  // computations, sharding, metadata, frontend attributes, backend config)
  // on `operands`, added to `c` under a fresh name.
  HloInstruction* Clone(HloComputation& c, const HloInstruction& original,
                        absl::Span<HloInstruction* const> operands);
  // The same with another opcode and shape, named like the opcode (an
  // all-reduce made into all-reduce-start and back keeps its attributes).
  HloInstruction* CloneAs(HloComputation& c, const HloInstruction& original, HloOpcode opcode,
                          Shape shape, absl::Span<HloInstruction* const> operands);

  // Parameter `number` of `c` with the shape of `like` and a name like its.
  HloInstruction* Parameter(HloComputation& c, int64_t number, const HloInstruction& like);

  // Puts every computation that got new instructions back in order and
  // updates the schedule of a scheduled module.
  void Finish();

 private:
  std::string UniqueNameLike(std::string_view name);

  HloModule& module_;
  NameUniquer names_;
  std::vector<HloComputation*> touched_;                    // in first-touch order
  absl::flat_hash_set<const HloComputation*> touched_set_;  // looked up only
};

}  // namespace xlite

#endif  // XLITE_PASSES_INSTRUCTION_MAKER_H_
