#include "xlite/ir/opcode.h"

#include "xlite/base/name_hash.h"

namespace xlite {
namespace {

using namespace op_property;  // NOLINT: the table below names the properties.

struct OpcodeInfo {
  std::string_view name;
  int arity;
  uint32_t properties;
};

constexpr OpcodeInfo kOpcodeInfo[] = {
#define XLITE_OPCODE(e, name, arity, props) {name, arity, props},
#include "xlite/ir/opcodes.def"
#undef XLITE_OPCODE
};

}  // namespace

std::string_view OpcodeName(HloOpcode opcode) { return kOpcodeInfo[static_cast<int>(opcode)].name; }

std::optional<HloOpcode> OpcodeFromName(std::string_view name) {
  static const auto* by_name = [] {
    auto* m = new NameMap<HloOpcode>();
    for (int i = 0; i < kNumOpcodes; ++i) {
      (*m)[kOpcodeInfo[i].name] = static_cast<HloOpcode>(i);
    }
    return m;
  }();
  auto it = by_name->find(name);
  if (it == by_name->end()) return std::nullopt;
  return it->second;
}

int OpcodeArity(HloOpcode opcode) { return kOpcodeInfo[static_cast<int>(opcode)].arity; }

uint32_t OpcodeProperties(HloOpcode opcode) {
  return kOpcodeInfo[static_cast<int>(opcode)].properties;
}

bool CanOmitResultShape(HloOpcode opcode) {
  using O = HloOpcode;
  switch (opcode) {
    // Elementwise, but the result type is not the operands'.
    case O::kConvert:
    case O::kStochasticConvert:
    case O::kReducePrecision:
    case O::kRng:
      return false;
    case O::kAddDependency:
    case O::kAfterAll:
    case O::kBatchNormGrad:
    case O::kBatchNormInference:
    case O::kBatchNormTraining:
    case O::kBroadcast:
    case O::kCall:
    case O::kCholesky:
    case O::kConcatenate:
    case O::kConditional:
    case O::kConvolution:
    case O::kDomain:
    case O::kDot:
    case O::kFft:
    case O::kGather:
    case O::kGetDimensionSize:
    case O::kGetTupleElement:
    case O::kMap:
    case O::kOptimizationBarrier:
    case O::kPad:
    case O::kPartitionId:
    case O::kRaggedDot:
    case O::kReduce:
    case O::kReduceWindow:
    case O::kReplicaId:
    case O::kReverse:
    case O::kScaledDot:
    case O::kScan:
    case O::kScatter:
    case O::kSelectAndScatter:
    case O::kSetDimensionSize:
    case O::kSort:
    case O::kTopK:
    case O::kTranspose:
    case O::kTriangularSolve:
    case O::kTuple:
    case O::kWhile:
      return true;
    default:
      return IsElementwiseOpcode(opcode);
  }
}

}  // namespace xlite
