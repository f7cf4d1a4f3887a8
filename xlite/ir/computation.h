// HloComputation: owns its instructions (kept in definition order, operands
// before users), its parameters by number, and its root.
#ifndef XLITE_IR_COMPUTATION_H_
#define XLITE_IR_COMPUTATION_H_

#include <memory>
#include <string>
#include <vector>

#include "xlite/ir/instruction.h"

namespace xlite {

class HloModule;

class HloComputation {
 public:
  explicit HloComputation(std::string name);
  HloComputation(const HloComputation&) = delete;
  HloComputation& operator=(const HloComputation&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  HloModule* parent() const { return parent_; }
  void set_parent(HloModule* m) { parent_ = m; }
  bool is_entry() const;

  // Takes ownership; parameters are also indexed by their number.
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> inst);
  // Room for `n` instructions (a parser that knows the count avoids the
  // slack of a growing vector).
  void ReserveInstructions(int64_t n) { instructions_.reserve(static_cast<size_t>(n)); }
  // Removes an instruction that has no users and is not the root.
  void RemoveInstruction(HloInstruction* inst);
  // Removes every instruction `is_dead` selects in one sweep (linear time);
  // each must be unused outside the selection and not the root. Returns how
  // many were removed.
  template <typename Pred>
  int64_t RemoveInstructionsIf(Pred is_dead) {
    std::vector<HloInstruction*> dead;
    for (const auto& inst : instructions_) {
      if (is_dead(inst.get())) dead.push_back(inst.get());
    }
    RemoveSelected(dead);
    return static_cast<int64_t>(dead.size());
  }
  // Reorders the instructions so that every operand and control predecessor
  // comes before its users, moving as little as possible (an order that is
  // already valid stays). Passes call this after adding instructions.
  void SortInstructionsTopologically();

  int64_t instruction_count() const { return static_cast<int64_t>(instructions_.size()); }
  // Instructions in definition (text) order.
  const std::vector<std::unique_ptr<HloInstruction>>& instructions() const { return instructions_; }
  // Topologically sorted over operands and control predecessors: depth-first
  // from each sink (no users, no control successors) in definition order,
  // operands in order, as XLA does (deterministic). Cycles are cut.
  std::vector<HloInstruction*> MakeInstructionPostOrder() const;
  // Every instruction in a topological order that keeps `preferred`'s order
  // where it is valid: depth-first from each instruction of `preferred` in
  // turn, then from the others in definition order, so an instruction
  // missing from `preferred` lands just before its first user there.
  // Instructions of other computations in `preferred` are ignored.
  std::vector<HloInstruction*> TopologicalOrderKeeping(
      absl::Span<HloInstruction* const> preferred) const;

  HloInstruction* root_instruction() const { return root_; }
  void set_root_instruction(HloInstruction* root) { root_ = root; }

  int64_t num_parameters() const { return static_cast<int64_t>(parameters_.size()); }
  // nullptr when parameter `i` was never defined.
  HloInstruction* parameter_instruction(int64_t i) const;
  const std::vector<HloInstruction*>& parameter_instructions() const { return parameters_; }

  // `execution_thread="..."` of the computation (default "main").
  const std::string& execution_thread() const { return execution_thread_; }
  void set_execution_thread(std::string t) { execution_thread_ = std::move(t); }

  // True for a fusion body (called by a fusion instruction).
  bool is_fusion_computation() const { return is_fusion_; }
  void set_is_fusion_computation(bool v) { is_fusion_ = v; }

 private:
  // Depth-first from `starts`, then from every instruction in definition order.
  std::vector<HloInstruction*> PostOrder(absl::Span<HloInstruction* const> starts) const;
  void RemoveSelected(const std::vector<HloInstruction*>& dead);

  std::string name_;
  HloModule* parent_ = nullptr;
  std::vector<std::unique_ptr<HloInstruction>> instructions_;
  std::vector<HloInstruction*> parameters_;
  HloInstruction* root_ = nullptr;
  std::string execution_thread_ = "main";
  bool is_fusion_ = false;
};

}  // namespace xlite

#endif  // XLITE_IR_COMPUTATION_H_
