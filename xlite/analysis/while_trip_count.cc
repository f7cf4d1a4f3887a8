// Trip counts of while loops: the known_trip_count XLA writes in the backend
// config, or the canonical counted loop recognised from its computations.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "xlite/analysis/cost_analysis.h"
#include "xlite/ir/computation.h"

namespace xlite {
namespace {

std::optional<int64_t> TripCountFromBackendConfig(const HloInstruction& while_op) {
  const std::string& config = while_op.backend_config();
  if (config.find("known_trip_count") == std::string::npos) return std::nullopt;
  nlohmann::json json = nlohmann::json::parse(config, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::nullopt;
  auto known = json.find("known_trip_count");
  if (known == json.end() || !known->is_object()) return std::nullopt;
  auto n = known->find("n");
  if (n == known->end()) return std::nullopt;
  // XLA writes int64 proto fields as JSON strings; accept plain numbers too.
  if (n->is_number_integer()) return n->get<int64_t>();
  if (!n->is_string()) return std::nullopt;
  const std::string& text = n->get_ref<const std::string&>();
  if (text.empty()) return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || value > (INT64_MAX - 9) / 10) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// The value of a scalar integer constant.
std::optional<int64_t> ScalarIntConstant(const HloInstruction* hlo) {
  if (hlo == nullptr || hlo->opcode() != HloOpcode::kConstant) return std::nullopt;
  const Shape& shape = hlo->shape();
  if (!shape.IsScalar() || !IsInteger(shape.element_type())) return std::nullopt;
  if (hlo->attrs<ConstantAttrs>().elided) return std::nullopt;
  return hlo->literal().GetInt64(0);
}

// The value `hlo` forwards through get-tuple-elements of tuples (the SPMD
// partitioner rebuilds a loop's result tuple from one it resharded).
const HloInstruction* ThroughTupleElements(const HloInstruction* hlo) {
  while (hlo->opcode() == HloOpcode::kGetTupleElement &&
         hlo->operand(0)->opcode() == HloOpcode::kTuple) {
    hlo = hlo->operand(0)->operand(hlo->tuple_index());
  }
  return hlo;
}

// True when `hlo` is get-tuple-element(parameter 0, index).
bool IsLoopStateElement(const HloInstruction* hlo, int64_t index) {
  return hlo->opcode() == HloOpcode::kGetTupleElement && hlo->tuple_index() == index &&
         hlo->operand(0)->opcode() == HloOpcode::kParameter;
}

// The compare direction with the induction variable on the left.
std::optional<ComparisonDirection> DirectionWithVariableOnLeft(ComparisonDirection d,
                                                               bool variable_on_left) {
  if (variable_on_left) return d;
  switch (d) {
    case ComparisonDirection::kLt:
      return ComparisonDirection::kGt;
    case ComparisonDirection::kLe:
      return ComparisonDirection::kGe;
    case ComparisonDirection::kGt:
      return ComparisonDirection::kLt;
    case ComparisonDirection::kGe:
      return ComparisonDirection::kLe;
    default:
      return d;
  }
}

// Iterations of `for (i = init; i <direction> limit; i += step)`. 128-bit
// arithmetic: the constants come from user input and may be extreme.
std::optional<int64_t> CountIterations(__int128 init, __int128 limit, __int128 step,
                                       ComparisonDirection direction) {
  // Work in the increasing direction: `i > limit` with step < 0 mirrors `i < limit`.
  if (direction == ComparisonDirection::kGt || direction == ComparisonDirection::kGe) {
    init = -init;
    limit = -limit;
    step = -step;
    direction =
        direction == ComparisonDirection::kGt ? ComparisonDirection::kLt : ComparisonDirection::kLe;
  }
  __int128 trips = 0;
  if (direction == ComparisonDirection::kNe) {
    if (step == 0 || (limit - init) % step != 0 || (limit - init) / step < 0) return std::nullopt;
    trips = (limit - init) / step;
  } else {
    if (direction == ComparisonDirection::kLe) {
      limit += 1;
    } else if (direction != ComparisonDirection::kLt) {
      return std::nullopt;
    }
    if (init >= limit) return 0;
    if (step <= 0) return std::nullopt;  // never ends
    trips = (limit - init + step - 1) / step;
  }
  if (trips > INT64_MAX) return std::nullopt;
  return static_cast<int64_t>(trips);
}

std::optional<int64_t> TripCountFromPattern(const HloInstruction& while_op) {
  const auto& called = while_op.called_computations();
  if (called.size() != 2 || while_op.operand_count() != 1) return std::nullopt;
  const HloComputation* condition = called[0];
  const HloComputation* body = called[1];
  const HloInstruction* compare = condition->root_instruction();
  if (compare == nullptr || compare->opcode() != HloOpcode::kCompare) return std::nullopt;
  // The induction variable: a loop-state element on one side, a constant limit
  // on the other.
  for (int side = 0; side < 2; ++side) {
    const HloInstruction* variable = compare->operand(side);
    std::optional<int64_t> limit = ScalarIntConstant(compare->operand(1 - side));
    if (!limit || variable->opcode() != HloOpcode::kGetTupleElement ||
        !IsLoopStateElement(variable, variable->tuple_index())) {
      continue;
    }
    const int64_t index = variable->tuple_index();
    // Its initial value.
    const HloInstruction* init_tuple = while_op.operand(0);
    if (init_tuple->opcode() != HloOpcode::kTuple || index >= init_tuple->operand_count()) {
      return std::nullopt;
    }
    std::optional<int64_t> init =
        ScalarIntConstant(ThroughTupleElements(init_tuple->operand(index)));
    // Its step: body root element `index` = add(element index, constant).
    const HloInstruction* root = body->root_instruction();
    if (!init || root == nullptr || root->opcode() != HloOpcode::kTuple ||
        index >= root->operand_count()) {
      return std::nullopt;
    }
    const HloInstruction* update = ThroughTupleElements(root->operand(index));
    if (update->opcode() != HloOpcode::kAdd) return std::nullopt;
    std::optional<int64_t> step;
    for (int k = 0; k < 2 && !step; ++k) {
      if (IsLoopStateElement(update->operand(k), index)) {
        step = ScalarIntConstant(update->operand(1 - k));
      }
    }
    if (!step) return std::nullopt;
    std::optional<ComparisonDirection> direction =
        DirectionWithVariableOnLeft(compare->attrs<CompareAttrs>().direction, side == 0);
    return CountIterations(*init, *limit, *step, *direction);
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> WhileTripCount(const HloInstruction& while_op) {
  if (while_op.opcode() != HloOpcode::kWhile) return std::nullopt;
  if (std::optional<int64_t> n = TripCountFromBackendConfig(while_op)) return n;
  return TripCountFromPattern(while_op);
}

}  // namespace xlite
