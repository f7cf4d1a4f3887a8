// Rules of XLA's HloVerifier that are not shape rules: comparison types per
// element type, composite call attributes, execution threads of called
// computations, one consumer per asynchronous start, tuple all-to-all
// operand counts, positive all-reduce channel ids, one sharding across a loop's or conditional's
// parameters and roots, and (module-wide) no mix of layout-constrained and unconstrained
// all-reduces. With layouts checked: position-wise ops that would change a
// layout, dynamic slices moving data the wrong way between host and device
// memory, and value-passing ops (tuple, get-tuple-element, copy-done, ...)
// whose layout differs from what they pass along.
#include <algorithm>
#include <cctype>

#include "xlite/analysis/verifier_internal.h"
#include "xlite/inference/shape_inference.h"
#include "xlite/inference/shape_inference_internal.h"
#include "xlite/ir/attribute_names.h"

namespace xlite::verifier {
namespace {

using O = HloOpcode;

// An explicit `type=` must suit the operands: floats compare as FLOAT or
// TOTALORDER, everything else only as its default type.
void CheckComparisonType(const HloInstruction& inst, ErrorSink& errors) {
  const std::optional<ComparisonType>& type = inst.attrs<CompareAttrs>().type;
  if (!type.has_value() || inst.operand_count() < 1 || !inst.operand(0)->shape().IsArray()) {
    return;
  }
  PrimitiveType element = inst.operand(0)->shape().element_type();
  if (IsFloat(element)) {
    if (*type != ComparisonType::kFloat && *type != ComparisonType::kTotalOrder) {
      errors.Add(inst, Cat("comparison type ", EnumName(*type), " does not suit ",
                           inst.operand(0)->shape().ToString(false),
                           " operands; expected FLOAT or TOTALORDER"));
    }
    return;
  }
  ComparisonType expected = DefaultComparisonType(element);
  if (*type != expected) {
    errors.Add(inst, Cat("comparison type ", EnumName(*type), " does not suit ",
                         inst.operand(0)->shape().ToString(false), " operands; expected ",
                         EnumName(expected)));
  }
}

// A composite call names its composite (composite.name) and, if it gives a
// composite.version, that version is a non-negative integer.
void CheckCompositeCall(const HloInstruction& inst, ErrorSink& errors) {
  if (!inst.has_attrs() || !inst.attrs<IntAttrs>().flag) return;
  const FrontendAttributes& attrs = inst.frontend_attributes();
  const FrontendAttribute* name = FindFrontendAttribute(attrs, "composite.name");
  if (name == nullptr || name->value.empty()) {
    errors.Add(inst,
               "a composite call (is_composite=true) needs a non-empty frontend attribute "
               "composite.name");
  }
  const FrontendAttribute* version = FindFrontendAttribute(attrs, "composite.version");
  if (version != nullptr && (version->value.empty() ||
                             !std::all_of(version->value.begin(), version->value.end(), [](char c) {
                               return std::isdigit(static_cast<unsigned char>(c));
                             }))) {
    errors.Add(inst, Cat("composite.version must be a non-negative integer, got \"", version->value,
                         "\""));
  }
}

// Called computations run on the caller's thread; only the async ops hand
// their wrapped computation to another one. Custom-calls are left out: XLA
// checks them only under an option, and backends may run them elsewhere.
void CheckCalledThreads(const HloInstruction& inst, ErrorSink& errors) {
  if (IsAsyncOpcode(inst.opcode()) || inst.opcode() == O::kCustomCall || inst.parent() == nullptr) {
    return;
  }
  const std::string& mine = inst.parent()->execution_thread();
  for (const HloComputation* callee : inst.called_computations()) {
    if (callee != nullptr && callee->execution_thread() != mine) {
      errors.Add(inst, Cat("calls computation %", callee->name(), " on execution thread \"",
                           callee->execution_thread(), "\" from thread \"", mine,
                           "\"; called computations must run on the caller's thread"));
    }
  }
}

// The -done/-update opcodes a start may feed; empty when `op` is no start
// that XLA pairs one to one.
std::vector<HloOpcode> ConsumersOfStart(HloOpcode op) {
  switch (op) {
    case O::kAsyncStart:
    case O::kAsyncUpdate:
      return {O::kAsyncUpdate, O::kAsyncDone};
    case O::kAllReduceStart:
      return {O::kAllReduceDone};
    case O::kCopyStart:
      return {O::kCopyDone};
    case O::kCollectivePermuteStart:
      return {O::kCollectivePermuteDone};
    default:
      return {};
  }
}

void CheckSingleConsumer(const HloInstruction& inst, ErrorSink& errors) {
  std::vector<HloOpcode> allowed = ConsumersOfStart(inst.opcode());
  if (allowed.empty()) return;
  std::string names;
  for (HloOpcode op : allowed) {
    Append(&names, names.empty() ? "" : " or ", OpcodeName(op));
  }
  if (inst.user_count() != 1) {
    errors.Add(inst, Cat(OpcodeName(inst.opcode()), " must have exactly one user (", names,
                         "), found ", inst.user_count()));
    return;
  }
  const HloInstruction& user = *inst.users()[0];
  if (std::find(allowed.begin(), allowed.end(), user.opcode()) == allowed.end()) {
    errors.Add(inst, Cat("the user of ", OpcodeName(inst.opcode()), " must be ", names, ", found %",
                         user.name(), " (", OpcodeName(user.opcode()), ")"));
  }
}

// A tuple all-to-all sends operand i to the i-th member of each group; its
// operands share one shape.
void CheckAllToAllSplitCount(const HloInstruction& inst, ErrorSink& errors) {
  if (inst.operand_count() <= 1 || !inst.has_attrs()) return;
  // Layouts are left out: XLA compares them too, but unverified import tests
  // in the corpus give the operands different ones.
  const Shape& first = inst.operand(0)->shape();
  for (const HloInstruction* other : inst.operands()) {
    if (!ShapesCompatible(other->shape(), first)) {
      errors.Add(inst, Cat("tuple all-to-all operands must have one shape, but %", other->name(),
                           " is ", other->shape().ToString(false), " and %",
                           inst.operand(0)->name(), " is ", first.ToString(false)));
      return;
    }
  }
  const ReplicaGroups& groups = inst.attrs<CollectiveAttrs>().replica_groups;
  if (groups.is_iota || groups.is_mesh() || groups.groups.empty()) return;
  int64_t split = static_cast<int64_t>(groups.groups[0].size());
  if (inst.operand_count() != split) {
    errors.Add(inst, Cat("a tuple all-to-all takes one operand per group member: ", split,
                         " expected, got ", inst.operand_count()));
  }
}

// The loop or conditional and the instructions its value passes through
// (parameters and roots of the called computations) carry one sharding
// wherever they carry any.
void CheckConsistentSharding(const HloInstruction& inst, ErrorSink& errors) {
  std::vector<const HloInstruction*> related = {&inst};
  const std::vector<HloComputation*>& called = inst.called_computations();
  for (size_t i = 0; i < called.size(); ++i) {
    if (called[i] == nullptr) return;
    bool is_while_body = inst.opcode() == O::kWhile && i == 1;
    if (is_while_body || inst.opcode() == O::kConditional) {
      related.push_back(called[i]->root_instruction());
    }
    if (inst.opcode() == O::kWhile && called[i]->num_parameters() > 0) {
      related.push_back(called[i]->parameter_instruction(0));
    }
  }
  const HloInstruction* first = nullptr;
  for (const HloInstruction* other : related) {
    if (other == nullptr || !other->has_sharding()) continue;
    if (first == nullptr) {
      first = other;
    } else if (!(other->sharding() == first->sharding())) {
      errors.Add(
          inst, Cat("sharding of %", other->name(), " differs from that of %", first->name(),
                    "; a ", OpcodeName(inst.opcode()), " and its parameters and roots must agree"));
      return;
    }
  }
}

}  // namespace

void CheckXlaInstructionRules(const HloInstruction& inst, ErrorSink& errors) {
  switch (inst.opcode()) {
    case O::kCompare:
      if (inst.has_attrs()) CheckComparisonType(inst, errors);
      break;
    case O::kCall:
      CheckCompositeCall(inst, errors);
      break;
    case O::kAllReduce:
      if (inst.has_attrs() && inst.attrs<CollectiveAttrs>().channel_id.value_or(1) <= 0) {
        errors.Add(inst, Cat("all-reduce channel_id must be positive, got ",
                             *inst.attrs<CollectiveAttrs>().channel_id));
      }
      break;
    case O::kAllToAll:
      CheckAllToAllSplitCount(inst, errors);
      break;
    case O::kWhile:
    case O::kConditional:
      CheckConsistentSharding(inst, errors);
      break;
    default:
      break;
  }
  if (!inst.called_computations().empty()) CheckCalledThreads(inst, errors);
  CheckSingleConsumer(inst, errors);
}

// Memory spaces XLA gives a meaning to: 1 is the generic fast memory, 5 the
// host.
constexpr int64_t kFastMemorySpace = 1;
constexpr int64_t kHostMemorySpace = 5;

// A dynamic slice may read a host buffer into device memory, and a dynamic
// update slice may write device data into a host buffer, but not the
// reverse; neither moves data in or out of the fast memory.
void CheckMemorySpaceMove(const HloInstruction& inst, int64_t from, int64_t to, ErrorSink& errors) {
  bool bad = (from == kFastMemorySpace) != (to == kFastMemorySpace);
  if (inst.opcode() == O::kDynamicSlice) {
    bad = bad || (from == 0 && to == kHostMemorySpace);
  } else {
    bad = bad || (from == kHostMemorySpace && to == 0);
  }
  if (bad) {
    errors.Add(
        inst, Cat(OpcodeName(inst.opcode()), " must not move its buffer from memory space S(", from,
                  ") to S(", to, ")"));
  }
}

// Under layout-sensitive checking, ops that map elements position by
// position keep the layout (its dimension order; tiles and memory space may
// differ) of every operand of the result's rank.
void CheckLayoutUnchanged(const HloInstruction& inst, ErrorSink& errors) {
  const HloOpcode op = inst.opcode();
  bool keeps_layout = (IsElementwiseOpcode(op) && op != O::kCopy && op != O::kRng) ||
                      op == O::kConcatenate || op == O::kDynamicSlice ||
                      op == O::kDynamicUpdateSlice;
  const Shape& out = inst.shape();
  if (!keeps_layout || !out.IsArray() || !out.has_layout()) return;
  for (const HloInstruction* operand : inst.operands()) {
    const Shape& in = operand->shape();
    if ((op == O::kDynamicSlice || op == O::kDynamicUpdateSlice) && operand == inst.operand(0) &&
        in.IsArray() && in.has_layout()) {
      CheckMemorySpaceMove(inst, in.layout().extras().memory_space,
                           out.layout().extras().memory_space, errors);
    }
    if (in.IsArray() && in.has_layout() && in.rank() == out.rank() &&
        !(in.layout().minor_to_major == out.layout().minor_to_major)) {
      errors.Add(
          inst, Cat(OpcodeName(op),
                    " must not change the layout, but "
                    "operand %",
                    operand->name(), " is ", in.ToString(), " and the result is ", out.ToString()));
      return;
    }
  }
}

namespace {

// Dimension orders agree wherever both shapes carry a layout.
bool MinorToMajorAgree(const Shape& a, const Shape& b) {
  if (a.IsTuple() && b.IsTuple()) {
    for (int64_t i = 0; i < a.tuple_size() && i < b.tuple_size(); ++i) {
      if (!MinorToMajorAgree(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  return !a.IsArray() || !b.IsArray() || !a.has_layout() || !b.has_layout() ||
         a.layout().minor_to_major == b.layout().minor_to_major;
}

// Ops that only pass values along (XLA's layout-sensitive shape check holds
// them to the layouts they receive).
bool PassesValuesAlong(HloOpcode op) {
  switch (op) {
    case O::kCall:
    case O::kConditional:
    case O::kCopyDone:
    case O::kCopyStart:
    case O::kGetTupleElement:
    case O::kTuple:
    case O::kWhile:
    case O::kAsyncStart:
    case O::kAsyncUpdate:
    case O::kAsyncDone:
    case O::kRecvDone:
    case O::kSendDone:
      return true;
    default:
      return false;
  }
}

}  // namespace

void CheckInferredLayout(const HloInstruction& inst, const Shape& inferred, ErrorSink& errors) {
  if (PassesValuesAlong(inst.opcode()) && !MinorToMajorAgree(inferred, inst.shape())) {
    errors.Add(inst, Cat(OpcodeName(inst.opcode()), " is written as ", inst.shape().ToString(),
                         " but passes along ", inferred.ToString(), " (the layouts differ)"));
  }
}

void CheckAllReduceLayoutConstraints(const HloModule& module, ErrorSink& errors) {
  const HloInstruction* first = nullptr;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      if ((inst->opcode() != O::kAllReduce && inst->opcode() != O::kAllReduceStart) ||
          !inst->has_attrs()) {
        continue;
      }
      if (first == nullptr) {
        first = inst.get();
      } else if (first->attrs<CollectiveAttrs>().constrain_layout !=
                 inst->attrs<CollectiveAttrs>().constrain_layout) {
        errors.Add(*inst, Cat("all-reduces must all be layout constrained or all not: "
                              "constrain_layout differs from %",
                              first->name()));
        return;
      }
    }
  }
}

}  // namespace xlite::verifier
