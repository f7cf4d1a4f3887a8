// HloModule: owns its computations (callees before callers), the entry, its
// ModuleConfig (layouts, aliasing, replica/partition counts, SPMD flags,
// frontend attributes), the stack-frame index and, once scheduled, a Schedule.
#ifndef XLITE_IR_MODULE_H_
#define XLITE_IR_MODULE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "xlite/ir/computation.h"
#include "xlite/ir/schedule.h"

namespace xlite {

// input_output_alias entry: output {index} aliases (parameter, {index}).
struct InputOutputAlias {
  ShapeIndex output_index;
  int64_t parameter = 0;
  ShapeIndex parameter_index;
  bool must_alias = false;
  bool operator==(const InputOutputAlias&) const = default;
};

// buffer_donor entry: (parameter, {index}).
struct BufferDonor {
  int64_t parameter = 0;
  ShapeIndex parameter_index;
  bool operator==(const BufferDonor&) const = default;
};

struct ModuleConfig {
  // `entry_computation_layout={(params...)->result}`; absent when not written
  // (then derived from the entry on demand: EntryComputationLayout()).
  std::optional<std::vector<Shape>> entry_parameter_layouts;
  std::optional<Shape> entry_result_layout;
  std::vector<InputOutputAlias> input_output_alias;
  std::vector<BufferDonor> buffer_donors;
  bool alias_passthrough_params = false;
  int64_t replica_count = 1;
  int64_t num_partitions = 1;
  // replica_count × num_partitions, the devices a run needs; INT64_MAX when
  // the product overflows (the verifier refuses such a config).
  int64_t DeviceCount() const {
    int64_t devices = 0;
    return __builtin_mul_overflow(replica_count, num_partitions, &devices) ? INT64_MAX : devices;
  }
  // allow_spmd_sharding_propagation_to_{parameters,output}; default {false}.
  std::vector<bool> allow_spmd_sharding_propagation_to_parameters = {false};
  std::vector<bool> allow_spmd_sharding_propagation_to_output = {false};
  FrontendAttributes frontend_attributes;
  std::string origin_recovery_table;  // kept verbatim
};

// The stack-frame index block (FileNames / FunctionNames / FileLocations /
// StackFrames), ids 1-based as in the text.
struct StackFrameIndex {
  struct FileLocation {
    int64_t file_name_id = 0, function_name_id = 0, line = 0, end_line = 0, column = 0,
            end_column = 0;
    bool operator==(const FileLocation&) const = default;
  };
  struct Frame {
    int64_t file_location_id = 0, parent_frame_id = 0;
    bool operator==(const Frame&) const = default;
  };
  std::vector<std::string> file_names, function_names;
  std::vector<FileLocation> file_locations;
  std::vector<Frame> frames;
  bool empty() const {
    return file_names.empty() && function_names.empty() && file_locations.empty() && frames.empty();
  }
  bool operator==(const StackFrameIndex&) const = default;
};

class HloModule {
 public:
  explicit HloModule(std::string name);
  HloModule(const HloModule&) = delete;
  HloModule& operator=(const HloModule&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  HloComputation* AddComputation(std::unique_ptr<HloComputation> c, bool is_entry);
  // Adds a (non-entry) computation just before `user`, keeping callees
  // before their callers as the text format needs.
  HloComputation* AddComputationBefore(std::unique_ptr<HloComputation> c,
                                       const HloComputation* user);
  // Callees before callers, as in the text.
  const std::vector<std::unique_ptr<HloComputation>>& computations() const { return computations_; }
  // Puts the computations in `order`, a permutation of computations() (one
  // step where many AddComputationBefore calls would each shift the list).
  void ReorderComputations(absl::Span<HloComputation* const> order);
  HloComputation* entry_computation() const { return entry_; }
  void set_entry_computation(HloComputation* c) { entry_ = c; }
  HloComputation* GetComputation(std::string_view name) const;
  // Removes the computations `is_dead` selects (never the entry); nothing
  // may still call them. Returns how many were removed.
  int64_t RemoveComputationsIf(const std::function<bool(const HloComputation*)>& is_dead);

  ModuleConfig& config() { return config_; }
  const ModuleConfig& config() const { return config_; }
  StackFrameIndex& stack_frames() { return stack_frames_; }
  const StackFrameIndex& stack_frames() const { return stack_frames_; }

  // Scheduled modules (is_scheduled=true in the text) carry an HloSchedule:
  // a sequence per non-fusion computation, kept by passes (the pipeline
  // calls UpdateSchedule after each) and checked by the verifier.
  bool is_scheduled() const { return schedule_.has_value(); }
  const HloSchedule& schedule() const;
  HloSchedule& mutable_schedule();
  void set_schedule(HloSchedule schedule) { schedule_ = std::move(schedule); }
  void clear_schedule() { schedule_.reset(); }
  // HloSchedule::Update when scheduled; nothing otherwise.
  void UpdateSchedule();

  // Parameter shapes (with layouts) and result shape of the entry: the
  // written entry_computation_layout, else the entry's own shapes.
  std::vector<Shape> EntryParameterShapes() const;
  Shape EntryResultShape() const;

  // A deep copy: the same text, names, unique ids, config and schedule,
  // sharing nothing with this module.
  std::unique_ptr<HloModule> Clone() const;

  // Next unique id for a new instruction.
  int64_t NextUniqueId() { return next_id_++; }

 private:
  std::string name_;
  std::vector<std::unique_ptr<HloComputation>> computations_;
  HloComputation* entry_ = nullptr;
  ModuleConfig config_;
  StackFrameIndex stack_frames_;
  std::optional<HloSchedule> schedule_;
  int64_t next_id_ = 0;
};

}  // namespace xlite

#endif  // XLITE_IR_MODULE_H_
