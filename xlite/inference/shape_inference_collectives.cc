// Collectives and their async -start/-done forms: all-reduce, all-gather,
// reduce-scatter, all-to-all, collective-permute, collective-broadcast,
// ragged-all-to-all, collective-reduce.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "xlite/inference/collective_groups.h"
#include "xlite/inference/shape_inference_internal.h"

namespace xlite::inference {
namespace {

using O = HloOpcode;

absl::StatusOr<std::vector<Shape>> ArrayOperands(const HloInstruction& inst) {
  if (inst.operand_count() < 1)
    return InvalidArgument(OpcodeName(inst.opcode()), " needs operands");
  std::vector<Shape> shapes;
  for (const HloInstruction* op : inst.operands()) {
    XLITE_RETURN_IF_ERROR(ExpectArray(op->shape(), "collective operand"));
    shapes.push_back(op->shape());
  }
  return shapes;
}

// The reducer is (T, T) -> T for the scalar type T of every operand.
absl::Status CheckCollectiveReducer(const HloInstruction& inst, absl::Span<const Shape> shapes) {
  XLITE_ASSIGN_OR_RETURN(const HloComputation* comp, Called(inst, 0, "to_apply"));
  Shape scalar = Shape::Scalar(shapes[0].element_type());
  for (const Shape& s : shapes) {
    if (s.element_type() != scalar.element_type() && comp->num_parameters() == 2) {
      return InvalidArgument("operands of one reducer must share an element type, got ",
                             Str(shapes[0]), " and ", Str(s));
    }
  }
  // XLA's verifier does not look at a collective's reducer, and XLA's own
  // tests reduce with (T[n], T[n]) -> T[n]; one array shape of T for both
  // parameters and the result is accepted like the scalar form.
  Shape want = scalar;
  const Shape* whole = WholeArrayReducerParameter(*comp);
  if (whole != nullptr && whole->element_type() == scalar.element_type()) want = *whole;
  return CheckSignature(comp, "reducer", {want, want}, &want);
}

// The first result array of the declared shape (all-gather-start holds its
// results in element 1).
const Shape* FirstDeclaredResult(const HloInstruction& inst) {
  const Shape* s = &inst.shape();
  if (inst.opcode() == O::kAllGatherStart) {
    if (!s->IsTuple() || s->tuple_size() < 2) return nullptr;
    s = &s->tuple_shapes(1);
  }
  while (s->IsTuple() && s->tuple_size() > 0) s = &s->tuple_shapes(0);
  return s->IsArray() ? s : nullptr;
}

// Scales dimensions[d] of each shape by the group size (`multiply`) or
// divides it (requiring divisibility). When the group size cannot be known
// (empty groups outside a module), the declared result supplies it.
absl::StatusOr<std::vector<Shape>> ScaleGatheredDim(const HloInstruction& inst,
                                                    std::vector<Shape> shapes, bool multiply) {
  if (inst.dimensions().size() != 1) {
    return InvalidArgument(OpcodeName(inst.opcode()), " needs exactly one dimension, got {",
                           ListStr(inst.dimensions()), "}");
  }
  int64_t d = inst.dimensions()[0];
  for (const Shape& s : shapes) {
    if (d < 0 || d >= s.rank()) {
      return InvalidArgument("dimension ", d, " is out of range for ", Str(s));
    }
  }
  std::optional<int64_t> size = GroupSizeOf(inst);
  const Shape* declared = FirstDeclaredResult(inst);
  if (!size.has_value() && declared != nullptr && declared->rank() == shapes[0].rank()) {
    int64_t n = shapes[0].dimensions(d), m = declared->dimensions(d);
    int64_t big = multiply ? m : n, small = multiply ? n : m;
    if (small > 0 && big % small == 0) size = big / small;
  }
  if (!size.has_value() || *size <= 0) {
    return InvalidArgument("cannot tell the group size of ", OpcodeName(inst.opcode()));
  }
  for (Shape& s : shapes) {
    int64_t n = s.dimensions(d);
    if (!multiply && n % *size != 0) {
      return InvalidArgument("dimension ", d, " of ", Str(s),
                             " is not divisible by the group size ", *size);
    }
    s.set_dimension(d, multiply ? n * *size : n / *size);
  }
  return shapes;
}

// Older dumps write a one-operand all-reduce-start as (operand, result).
bool IsOperandResultPairStart(const HloInstruction& inst) {
  return inst.opcode() == O::kAllReduceStart && inst.operand_count() == 1 &&
         inst.shape().IsTuple() && inst.shape().tuple_size() == 2;
}

absl::StatusOr<Shape> InferAllToAll(const HloInstruction& inst) {
  XLITE_ASSIGN_OR_RETURN(std::vector<Shape> shapes, ArrayOperands(inst));
  if (inst.dimensions().size() > 1) {
    return InvalidArgument("all-to-all takes at most one dimension, got {",
                           ListStr(inst.dimensions()), "}");
  }
  if (inst.dimensions().empty()) return Shape::Tuple(std::move(shapes));
  int64_t d = inst.dimensions()[0];
  std::optional<int64_t> size = GroupSizeOf(inst);
  for (const Shape& s : shapes) {
    if (d < 0 || d >= s.rank()) {
      return InvalidArgument("split dimension ", d, " is out of range for ", Str(s));
    }
    if (size.has_value() && (*size <= 0 || s.dimensions(d) % *size != 0)) {
      return InvalidArgument("split dimension ", d, " of ", Str(s),
                             " is not divisible by the group size ", *size);
    }
  }
  return MaybeTuple(std::move(shapes));
}

// The offsets of one in-place buffer: a tuple holding one index per buffer
// dimension (one slice), or a tuple of such tuples (several slices).
absl::Status CheckBufferOffsets(const Shape& buffer, const Shape& offsets, absl::string_view what) {
  if (!offsets.IsTuple()) {
    return InvalidArgument("in-place collective-permute ", what, " offsets must be a tuple, got ",
                           Str(offsets));
  }
  bool all_tuples = true, all_arrays = true;
  for (const Shape& element : offsets.tuple_shapes()) {
    all_tuples = all_tuples && element.IsTuple();
    all_arrays = all_arrays && element.IsArray();
  }
  if (!all_tuples && !all_arrays) {
    return InvalidArgument("in-place collective-permute ", what,
                           " offsets must be a tuple of indices or a tuple of index tuples, got ",
                           Str(offsets));
  }
  auto wrong_count = [&](const Shape& index) { return index.tuple_size() != buffer.rank(); };
  bool mismatch = all_tuples ? std::any_of(offsets.tuple_shapes().begin(),
                                           offsets.tuple_shapes().end(), wrong_count)
                             : wrong_count(offsets);
  if (mismatch) {
    return InvalidArgument("in-place collective-permute ", what, " offsets ", Str(offsets),
                           " need one index per dimension of the buffer ", Str(buffer));
  }
  return absl::OkStatus();
}

// XLA's rules for (input buffers, output buffers, input offsets, output
// offsets): both buffers arrays, or both tuples of as many arrays with one
// offsets entry each. The buffers' shapes are otherwise free (the output is
// usually larger than the slices written into it).
absl::Status CheckInPlaceBuffers(const HloInstruction& inst) {
  const Shape& input = OperandShape(inst, 0);
  const Shape& output = OperandShape(inst, 1);
  const Shape& input_offsets = OperandShape(inst, 2);
  const Shape& output_offsets = OperandShape(inst, 3);
  if (input.IsArray() && output.IsArray()) {
    XLITE_RETURN_IF_ERROR(CheckBufferOffsets(input, input_offsets, "input"));
    return CheckBufferOffsets(output, output_offsets, "output");
  }
  if (!input.IsTuple() || !output.IsTuple() || input.tuple_size() != output.tuple_size()) {
    return InvalidArgument(
        "in-place collective-permute buffers must be two arrays or two "
        "tuples of equal size, got ",
        Str(input), " and ", Str(output));
  }
  const Shape* buffers[] = {&input, &output};
  const Shape* offsets[] = {&input_offsets, &output_offsets};
  const absl::string_view names[] = {"input", "output"};
  for (int k = 0; k < 2; ++k) {
    if (!offsets[k]->IsTuple() || offsets[k]->tuple_size() != buffers[k]->tuple_size()) {
      return InvalidArgument("in-place collective-permute ", names[k], " offsets ",
                             Str(*offsets[k]), " need one entry per buffer of ", Str(*buffers[k]));
    }
    for (int64_t i = 0; i < buffers[k]->tuple_size(); ++i) {
      XLITE_RETURN_IF_ERROR(
          CheckBufferOffsets(buffers[k]->tuple_shapes(i), offsets[k]->tuple_shapes(i), names[k]));
    }
  }
  return absl::OkStatus();
}

// How often one id may appear as a source (and as a target). XLA lets the
// in-place form name a pair once per offsets entry: the input offsets' size
// for an array buffer, the size of the first buffer's offsets for tuples.
int64_t AllowedPairRepeats(const HloInstruction& inst) {
  if (!IsInPlaceCollectivePermute(inst)) return 1;
  const Shape& offsets = OperandShape(inst, 2);
  if (OperandShape(inst, 0).IsArray()) return std::max<int64_t>(offsets.tuple_size(), 1);
  if (offsets.tuple_size() == 0) return 1;
  return std::max<int64_t>(offsets.tuple_shapes(0).tuple_size(), 1);
}

absl::Status CheckPairs(const HloInstruction& inst) {
  const auto& pairs = inst.attrs<CollectiveAttrs>().source_target_pairs;
  const int64_t allowed = AllowedPairRepeats(inst);
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (pairs[i].first < 0 || pairs[i].second < 0) {
      return InvalidArgument("source_target_pairs has a negative id");
    }
    int64_t sources = 0, targets = 0;
    for (size_t j = 0; j < i; ++j) {
      sources += pairs[j].first == pairs[i].first;
      targets += pairs[j].second == pairs[i].second;
    }
    if (sources >= allowed || targets >= allowed) {
      return InvalidArgument("source_target_pairs repeats source or target {", pairs[i].first, ",",
                             pairs[i].second, "}",
                             allowed > 1 ? absl::StrCat(" more than ", allowed, " times") : "");
    }
  }
  return absl::OkStatus();
}

// The result of collective-permute: the operand (or the output buffer of the
// in-place 4-operand form, or a tuple for the combined form).
absl::StatusOr<Shape> PermuteResult(const HloInstruction& inst) {
  if (inst.operand_count() < 1) return InvalidArgument("collective-permute needs an operand");
  if (IsInPlaceCollectivePermute(inst)) {
    XLITE_RETURN_IF_ERROR(CheckInPlaceBuffers(inst));
    XLITE_RETURN_IF_ERROR(CheckPairs(inst));
    return OperandShape(inst, 1);
  }
  XLITE_RETURN_IF_ERROR(CheckPairs(inst));
  std::vector<Shape> shapes;
  for (const HloInstruction* op : inst.operands()) shapes.push_back(op->shape());
  return MaybeTuple(std::move(shapes));
}

absl::StatusOr<Shape> InferCollectivePermuteStart(const HloInstruction& inst) {
  XLITE_ASSIGN_OR_RETURN(Shape result, PermuteResult(inst));
  const Shape& out = inst.shape();
  if (out.IsArray()) return result;  // older dumps: the result alone
  if (!out.IsTuple() || out.tuple_size() < 2 || !Compatible(out.tuple_shapes(1), result)) {
    return InvalidArgument("collective-permute-start result must be (input, ", Str(result),
                           ", ...), got ", Str(out));
  }
  return out;
}

absl::StatusOr<Shape> InferRaggedAllToAll(const HloInstruction& inst) {
  const Shape& input = OperandShape(inst, 0);
  const Shape& output = OperandShape(inst, 1);
  XLITE_RETURN_IF_ERROR(ExpectArray(input, "ragged-all-to-all input"));
  XLITE_RETURN_IF_ERROR(ExpectArray(output, "ragged-all-to-all output"));
  if (input.element_type() != output.element_type()) {
    return InvalidArgument("input ", Str(input), " and output ", Str(output),
                           " must share an element type");
  }
  for (int64_t k = 2; k < 6; ++k) {
    const Shape& s = OperandShape(inst, k);
    if (!s.IsArray() || !IsInteger(s.element_type()) ||
        !CompatibleDimensions(s, OperandShape(inst, 2))) {
      return InvalidArgument("offsets and sizes must be integer arrays of one shape, got ", Str(s));
    }
  }
  return output;
}

}  // namespace

absl::StatusOr<Shape> InferCollective(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case O::kAllReduce:
    case O::kAllReduceStart:
    case O::kCollectiveReduce: {
      XLITE_ASSIGN_OR_RETURN(std::vector<Shape> shapes, ArrayOperands(inst));
      if (inst.opcode() != O::kCollectiveReduce || !inst.called_computations().empty()) {
        XLITE_RETURN_IF_ERROR(CheckCollectiveReducer(inst, shapes));
      }
      Shape result = MaybeTuple(shapes);
      if (IsOperandResultPairStart(inst)) return Shape::Tuple({result, result});
      return result;
    }
    case O::kAllReduceDone: {
      const HloInstruction& start = *inst.operand(0);
      if (start.opcode() == O::kAllReduceStart && IsOperandResultPairStart(start)) {
        return start.shape().tuple_shapes(1);
      }
      return start.shape();
    }
    case O::kReduceScatter: {
      XLITE_ASSIGN_OR_RETURN(std::vector<Shape> shapes, ArrayOperands(inst));
      XLITE_RETURN_IF_ERROR(CheckCollectiveReducer(inst, shapes));
      XLITE_ASSIGN_OR_RETURN(shapes, ScaleGatheredDim(inst, std::move(shapes), false));
      return MaybeTuple(std::move(shapes));
    }
    case O::kAllGather:
    case O::kAllGatherStart: {
      XLITE_ASSIGN_OR_RETURN(std::vector<Shape> operands, ArrayOperands(inst));
      XLITE_ASSIGN_OR_RETURN(std::vector<Shape> results, ScaleGatheredDim(inst, operands, true));
      // all-gather-start is written either as (operands, results) or, in
      // older dumps, as the results alone.
      if (inst.opcode() == O::kAllGather || !inst.shape().IsTuple()) {
        return MaybeTuple(std::move(results));
      }
      return Shape::Tuple({MaybeTuple(std::move(operands)), MaybeTuple(std::move(results))});
    }
    case O::kAllGatherDone:
    case O::kCollectivePermuteDone: {
      // A start written as its result alone (older dumps) is passed through.
      const Shape& start = OperandShape(inst, 0);
      if (start.IsArray()) return start;
      if (!start.IsTuple() || start.tuple_size() < 2) {
        return InvalidArgument(OpcodeName(inst.opcode()), " operand must be a start tuple, got ",
                               Str(start));
      }
      return start.tuple_shapes(1);
    }
    case O::kAllToAll:
      return InferAllToAll(inst);
    case O::kCollectivePermute:
      return PermuteResult(inst);
    case O::kCollectivePermuteStart:
      return InferCollectivePermuteStart(inst);
    case O::kRaggedAllToAll:
      return InferRaggedAllToAll(inst);
    default: {  // collective-broadcast
      XLITE_ASSIGN_OR_RETURN(std::vector<Shape> shapes, ArrayOperands(inst));
      return MaybeTuple(std::move(shapes));
    }
  }
}

}  // namespace xlite::inference
