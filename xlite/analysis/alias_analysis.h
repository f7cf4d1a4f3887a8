// Alias analysis: the buffers that hold the dataflow's values. Values that
// meet at one position (while state, conditional results) share a buffer, as
// do in-place outputs with their operand (dynamic-update-slice, scatter,
// output_to_operand_aliasing) and entry outputs with the parameters
// input_output_alias names.
#ifndef XLITE_ANALYSIS_ALIAS_ANALYSIS_H_
#define XLITE_ANALYSIS_ALIAS_ANALYSIS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/analysis/dataflow.h"

namespace xlite {

// Where a buffer comes from, for memory reports (temporaries are what XLA's
// temp_size_in_bytes counts).
enum class BufferKind : uint8_t { kTemporary, kEntryParameter, kConstant, kOutput };
std::string_view BufferKindName(BufferKind kind);

struct HloBuffer {
  int32_t id = 0;
  std::vector<int32_t> values;  // sorted value ids
  int64_t bytes = 0;            // the largest value (ShapeBytes)
  BufferKind kind = BufferKind::kTemporary;
  // An entry parameter buffer that is donated (buffer_donor) or aliased to
  // an output: its memory may be reused once its last reader ran.
  bool donated = false;
};

// One output/operand pair an instruction writes in place: output `index`
// reuses the buffer of operand `operand` at `operand_index`.
struct InPlacePair {
  ShapeIndex output_index;
  int64_t operand = 0;
  ShapeIndex operand_index;
};
// The in-place pairs of an opcode (dynamic-update-slice, scatter, and the
// output_to_operand_aliasing of fusion, custom-call and async-start).
std::vector<InPlacePair> InPlacePairsOf(const HloInstruction& inst);

class AliasAnalysis {
 public:
  static absl::StatusOr<std::unique_ptr<AliasAnalysis>> Run(const HloModule& module);

  const DataflowAnalysis& dataflow() const { return *dataflow_; }
  const std::vector<HloBuffer>& buffers() const { return buffers_; }
  const HloBuffer& buffer(int32_t id) const { return buffers_[id]; }
  int32_t BufferOfValue(int32_t value_id) const { return buffer_of_value_[value_id]; }
  // The buffers `inst` may use anywhere in its shape (sorted, unique).
  std::vector<int32_t> BuffersAt(const HloInstruction& inst) const;
  // The value that names the buffer in reports: the entry parameter it
  // holds, else its first value of the largest size.
  const HloValue& RepresentativeValue(int32_t buffer_id) const;

 private:
  explicit AliasAnalysis(std::unique_ptr<DataflowAnalysis> dataflow)
      : dataflow_(std::move(dataflow)) {}
  void Build();

  std::unique_ptr<DataflowAnalysis> dataflow_;
  std::vector<HloBuffer> buffers_;
  std::vector<int32_t> buffer_of_value_;
};

}  // namespace xlite

#endif  // XLITE_ANALYSIS_ALIAS_ANALYSIS_H_
