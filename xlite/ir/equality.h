// Structural equality of modules, for round-trip tests: everything the text
// format carries must survive, and the first difference is reported in words.
#ifndef XLITE_IR_EQUALITY_H_
#define XLITE_IR_EQUALITY_H_

#include <string>

#include "xlite/ir/module.h"

namespace xlite {

// True when `a` and `b` have the same name, config, stack frames, schedule
// flag and computations (in order), whose instructions (in order) agree on
// name, opcode, shape with layout, operands and called computations by name,
// dimensions, attributes, sharding (with metadata), metadata, frontend
// attributes, backend config, statistics, origin and control predecessors.
// Otherwise false, with a description of the first difference in
// `first_difference` when it is not null.
bool ModulesEqual(const HloModule& a, const HloModule& b, std::string* first_difference);

// The same comparison for a single instruction (operands etc. by name).
bool InstructionsEqual(const HloInstruction& a, const HloInstruction& b,
                       std::string* first_difference);

}  // namespace xlite

#endif  // XLITE_IR_EQUALITY_H_
