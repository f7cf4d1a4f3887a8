// cse: replaces an instruction by an earlier identical one — same opcode,
// shape with layout, operands, attributes, called computations and sharding,
// no side effect — as XLA's HloCSE. Constants merge when their literals are
// equal; elided constants never merge (their data is unknown).
#ifndef XLITE_PASSES_CSE_H_
#define XLITE_PASSES_CSE_H_

#include "xlite/passes/pass.h"

namespace xlite {

class CsePass : public HloPass {
 public:
  std::string_view name() const override { return "cse"; }
  absl::StatusOr<bool> Run(HloModule& module) override;
};

}  // namespace xlite

#endif  // XLITE_PASSES_CSE_H_
