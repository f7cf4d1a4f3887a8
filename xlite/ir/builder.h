// HloBuilder: makes computations and modules in C++ (tests, embedders,
// passes), choosing unique names and the attribute records opcodes need.
#ifndef XLITE_IR_BUILDER_H_
#define XLITE_IR_BUILDER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "xlite/ir/module.h"

namespace xlite {

// Hands out names unique within one scope: `add`, `add.1`, `add.2`, ...
// Share one between the builders of a module to keep names module-unique.
class NameUniquer {
 public:
  std::string GetUniqueName(std::string_view prefix);
  // Marks a name chosen elsewhere as taken.
  void Reserve(std::string name) { used_.insert(std::move(name)); }

 private:
  absl::flat_hash_set<std::string> used_;
  absl::flat_hash_map<std::string, int64_t> next_suffix_;
};

class HloBuilder {
 public:
  // `names` may be shared with other builders; when null the builder uses
  // its own.
  explicit HloBuilder(std::string computation_name, NameUniquer* names = nullptr);

  HloInstruction* AddParameter(int64_t number, Shape shape, std::string name = "");
  HloInstruction* AddConstant(Literal literal, std::string name = "");
  // A scalar constant of `type` holding `value` (rounded as Literal does).
  HloInstruction* AddScalarConstant(PrimitiveType type, double value);
  // Any opcode. When `attrs` is null, a default record is made for opcodes
  // that always carry one (everything but kNone and the optional kAccuracy).
  HloInstruction* AddInstruction(HloOpcode opcode, Shape shape,
                                 absl::Span<HloInstruction* const> operands,
                                 std::unique_ptr<OpAttrs> attrs = nullptr, std::string name = "");
  HloInstruction* AddGetTupleElement(HloInstruction* tuple, int64_t index);
  HloInstruction* AddTuple(absl::Span<HloInstruction* const> elements);

  // The root; when never set, Build uses the last instruction added.
  void SetRoot(HloInstruction* root) { root_ = root; }

  // Finishes the computation; the builder is empty afterwards.
  std::unique_ptr<HloComputation> Build();

 private:
  HloInstruction* Add(std::unique_ptr<HloInstruction> inst, std::string name);

  std::unique_ptr<HloComputation> computation_;
  NameUniquer own_names_;
  NameUniquer* names_;
  HloInstruction* root_ = nullptr;
};

// A module of `computations` in the given order (callees before callers);
// the last one is the entry. Fusion bodies are marked from their callers.
std::unique_ptr<HloModule> MakeModule(std::string name,
                                      std::vector<std::unique_ptr<HloComputation>> computations);

}  // namespace xlite

#endif  // XLITE_IR_BUILDER_H_
