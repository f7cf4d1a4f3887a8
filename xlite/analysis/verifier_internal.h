// The verifier's parts: an error sink that formats messages the same way for
// every check, and the check families verifier.cc runs. Internal to
// xlite/analysis. Messages are built only when a check fails.
#ifndef XLITE_ANALYSIS_VERIFIER_INTERNAL_H_
#define XLITE_ANALYSIS_VERIFIER_INTERNAL_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xlite/analysis/verifier.h"

namespace xlite::verifier {

class ErrorSink {
 public:
  explicit ErrorSink(std::vector<Violation>* out) : out_(out) {}
  // `%inst in computation %comp: message`.
  void Add(const HloInstruction& inst, absl::string_view message);
  // `computation %comp: message`.
  void Add(const HloComputation& comp, absl::string_view message);
  // `module: message`.
  void AddModule(absl::string_view message);
  void Add(const HloInstruction& inst, const absl::Status& status) {
    Add(inst, absl::string_view(status.message()));
  }

 private:
  std::vector<Violation>* out_;
};

// Text positions of the instructions of the computation being checked,
// indexed by unique id: one buffer for the whole module, so no per-
// computation hash map is needed. Falls back to a hash map when ids are
// negative, sparse or repeated.
class InstructionPositions {
 public:
  explicit InstructionPositions(const HloModule& module);
  // Starts recording `comp`'s instructions, which Add then gives in order.
  void Begin(const HloComputation& comp);
  void Add(const HloInstruction* inst, int32_t position);
  // Position of `inst` among those added for the current computation, or -1.
  int32_t Find(const HloInstruction* inst) const;

 private:
  int64_t id_limit_ = 0;  // ids at or above it are too sparse for by_id_
  bool map_mode_ = false;
  const HloComputation* current_ = nullptr;
  std::vector<int32_t> by_id_;
  std::vector<int32_t> owner_;  // index of the computation that wrote by_id_
  int32_t generation_ = 0;
  absl::flat_hash_map<const HloInstruction*, int32_t> by_pointer_;
};

// Names, parameter numbers, root, operand and control-edge membership, and
// acyclicity of one computation. `check_instruction` runs on each instruction
// in the same pass (the instructions are visited once, while in cache).
void CheckComputationStructure(const HloComputation& comp, InstructionPositions& positions,
                               absl::FunctionRef<void(const HloInstruction&)> check_instruction,
                               ErrorSink& errors);
// The module config against the entry computation.
void CheckModuleConfig(const HloModule& module, const VerifyOptions& options, ErrorSink& errors);
// The instruction's sharding (if any) against its shape and the device count.
void CheckSharding(const HloInstruction& inst, const ModuleConfig& config, ErrorSink& errors);
// replica_groups, channel ids and async start/done pairing.
void CheckCollective(const HloInstruction& inst, const ModuleConfig& config, ErrorSink& errors);
void CheckAsyncPairing(const HloInstruction& inst, ErrorSink& errors);
// XLA's non-shape rules for one instruction (verifier_xla_rules.cc).
void CheckXlaInstructionRules(const HloInstruction& inst, ErrorSink& errors);
// Layout-sensitive: elementwise ops, concatenate and dynamic slices keep the
// operands' layout.
void CheckLayoutUnchanged(const HloInstruction& inst, ErrorSink& errors);
// Layout-sensitive: value-passing ops keep the layouts of what they pass.
void CheckInferredLayout(const HloInstruction& inst, const Shape& inferred, ErrorSink& errors);
// A scheduled module's schedule: one sequence per non-fusion computation, a
// topological order of exactly its instructions (verifier_schedule.cc).
void CheckSchedule(const HloModule& module, ErrorSink& errors);
// No computation calls itself (directly or not) and no chain of calls is
// longer than kMaxCallDepth.
void CheckCallNesting(const HloModule& module, ErrorSink& errors);
// All all-reduces of the module constrain their layout, or none does.
void CheckAllReduceLayoutConstraints(const HloModule& module, ErrorSink& errors);

}  // namespace xlite::verifier

#endif  // XLITE_ANALYSIS_VERIFIER_INTERNAL_H_
