#include "xlite/tools/module_stats.h"

#include <algorithm>
#include <array>

#include "xlite/ir/opcode.h"

namespace xlite::tools {
namespace {

ShapeBytes DescribeShape(const Shape& shape) { return {shape.ToString(), shape.ByteSizeOf()}; }

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

  if (module.entry_computation() != nullptr) {
    for (const Shape& shape : module.EntryParameterShapes()) {
      stats.parameters.push_back(DescribeShape(shape));
    }
    const Shape result = module.EntryResultShape();
    if (result.IsTuple()) {
      for (const Shape& element : result.tuple_shapes()) {
        stats.outputs.push_back(DescribeShape(element));
      }
    } else {
      stats.outputs.push_back(DescribeShape(result));
    }
  }
  stats.parameter_bytes = SumBytes(stats.parameters);
  stats.output_bytes = SumBytes(stats.outputs);
  return stats;
}

}  // namespace xlite::tools
