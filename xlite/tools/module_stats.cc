#include "xlite/tools/module_stats.h"

#include <algorithm>
#include <array>

#include "xlite/ir/computation.h"
#include "xlite/ir/opcode.h"
#include "xlite/text/printer.h"

namespace xlite::tools {
namespace {

ShapeBytes DescribeShape(const Shape& shape) {
  ShapeBytes described;
  described.shape = shape.ToString();
  described.bytes = shape.ByteSizeOf();
  return described;
}

// The sharding of output `i` of `outputs` (the root's tuple elements, or the
// root), "" where there is none or nested tuples make the leaves differ.
std::string OutputSharding(const HloInstruction& root, size_t i, size_t outputs) {
  if (!root.has_sharding()) return "";
  const HloSharding& sharding = root.sharding();
  if (!sharding.IsTuple()) return PrintSharding(sharding);
  const std::vector<HloSharding>& leaves = sharding.tuple_elements();
  return leaves.size() == outputs ? PrintSharding(leaves[i]) : "";
}

int64_t SumBytes(const std::vector<ShapeBytes>& shapes) {
  int64_t total = 0;
  for (const ShapeBytes& s : shapes) total += s.bytes;
  return total;
}

}  // namespace

ModuleStats ComputeModuleStats(const HloModule& module) {
  ModuleStats stats;
  stats.name = module.name();
  std::array<int64_t, kNumOpcodes> counts{};
  for (const auto& computation : module.computations()) {
    ++stats.computations;
    for (const auto& instruction : computation->instructions()) {
      ++stats.instructions;
      ++counts[static_cast<int>(instruction->opcode())];
      if (instruction->opcode() == HloOpcode::kConstant) {
        ++stats.constants;
        stats.constant_bytes += instruction->shape().ByteSizeOf();
      }
    }
  }
  for (int i = 0; i < kNumOpcodes; ++i) {
    if (counts[i] == 0) continue;
    const auto opcode = static_cast<HloOpcode>(i);
    stats.opcodes.emplace_back(OpcodeName(opcode), counts[i]);
    if (IsCollectiveOpcode(opcode)) {
      stats.collectives.emplace_back(OpcodeName(opcode), counts[i]);
    }
  }
  std::sort(stats.opcodes.begin(), stats.opcodes.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first < b.first;
  });
  std::sort(stats.collectives.begin(), stats.collectives.end());

  if (const HloComputation* entry = module.entry_computation(); entry != nullptr) {
    const std::vector<Shape> shapes = module.EntryParameterShapes();
    for (size_t i = 0; i < shapes.size(); ++i) {
      ShapeBytes parameter = DescribeShape(shapes[i]);
      if (i < entry->parameter_instructions().size()) {
        const HloInstruction& instruction = *entry->parameter_instructions()[i];
        parameter.name = instruction.name();
        if (instruction.has_sharding()) parameter.sharding = PrintSharding(instruction.sharding());
      }
      stats.parameters.push_back(std::move(parameter));
    }
    const Shape result = module.EntryResultShape();
    if (result.IsTuple()) {
      for (const Shape& element : result.tuple_shapes()) {
        stats.outputs.push_back(DescribeShape(element));
      }
    } else {
      stats.outputs.push_back(DescribeShape(result));
    }
    if (const HloInstruction* root = entry->root_instruction(); root != nullptr) {
      for (size_t i = 0; i < stats.outputs.size(); ++i) {
        stats.outputs[i].sharding = OutputSharding(*root, i, stats.outputs.size());
      }
    }
  }
  const ModuleConfig& config = module.config();
  stats.replica_count = config.replica_count;
  stats.num_partitions = config.num_partitions;
  for (const InputOutputAlias& alias : config.input_output_alias) {
    stats.aliases.push_back({PrintShapeIndex(alias.output_index), alias.parameter,
                             PrintShapeIndex(alias.parameter_index), alias.must_alias});
  }
  for (const BufferDonor& donor : config.buffer_donors) {
    stats.buffer_donors.push_back(
        {"", donor.parameter, PrintShapeIndex(donor.parameter_index), false});
  }
  stats.parameter_bytes = SumBytes(stats.parameters);
  stats.output_bytes = SumBytes(stats.outputs);
  return stats;
}

}  // namespace xlite::tools
