#include <algorithm>

#include "absl/strings/str_join.h"
#include "xlite/inference/shape_inference_internal.h"

namespace xlite::inference {

bool Compatible(const Shape& a, const Shape& b, bool ignore_fp_precision) {
  if (a.element_type() != b.element_type()) {
    if (!ignore_fp_precision || !IsFloat(a.element_type()) || !IsFloat(b.element_type())) {
      return false;
    }
  }
  if (a.IsTuple()) {
    if (a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!Compatible(a.tuple_shapes(i), b.tuple_shapes(i), ignore_fp_precision)) return false;
    }
    return true;
  }
  return CompatibleDimensions(a, b);
}

bool CompatibleDimensions(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int64_t i = 0; i < a.rank(); ++i) {
    int64_t x = a.dimensions(i), y = b.dimensions(i);
    if (x != y && x != Shape::kUnboundedSize && y != Shape::kUnboundedSize) return false;
  }
  return true;
}

absl::Status ExpectArray(const Shape& s, absl::string_view what) {
  if (s.IsArray()) return absl::OkStatus();
  return InvalidArgument(what, " must be an array, got ", Str(s));
}

absl::Status CheckDimensionList(absl::Span<const int64_t> dims, int64_t bound,
                                absl::string_view what, bool sorted) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= bound) {
      return InvalidArgument(what, " {", ListStr(dims), "} has dimension ", dims[i],
                             " out of range [0, ", bound, ")");
    }
    for (size_t j = 0; j < i; ++j) {
      if (dims[j] == dims[i]) {
        return InvalidArgument(what, " {", ListStr(dims), "} repeats dimension ", dims[i]);
      }
    }
    if (sorted && i > 0 && dims[i - 1] > dims[i]) {
      return InvalidArgument(what, " {", ListStr(dims), "} must be sorted");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> RootShape(const HloComputation* comp) {
  if (comp->root_instruction() == nullptr) {
    return InvalidArgument("computation %", comp->name(), " has no root");
  }
  return comp->root_instruction()->shape();
}

absl::Status CheckSignature(const HloComputation* comp, absl::string_view role,
                            absl::Span<const Shape> params, const Shape* result,
                            absl::Span<const int64_t> fp_params, bool fp_result) {
  if (comp->num_parameters() != static_cast<int64_t>(params.size())) {
    return InvalidArgument(role, " computation %", comp->name(), " must take ", params.size(),
                           " parameters, takes ", comp->num_parameters());
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const HloInstruction* p = comp->parameter_instruction(static_cast<int64_t>(i));
    if (p == nullptr) {
      return InvalidArgument(role, " computation %", comp->name(), " lacks parameter ", i);
    }
    bool fp =
        std::find(fp_params.begin(), fp_params.end(), static_cast<int64_t>(i)) != fp_params.end();
    if (!Compatible(p->shape(), params[i], fp)) {
      return InvalidArgument(role, " computation %", comp->name(), " parameter ", i, " must be ",
                             Str(params[i]), ", got ", Str(p->shape()));
    }
  }
  if (result != nullptr) {
    XLITE_ASSIGN_OR_RETURN(Shape root, RootShape(comp));
    // XLA's reducer check flattens the accumulator, so a computation may
    // return its single value wrapped in a 1-tuple (real dumps do).
    if (!result->IsTuple() && root.IsTuple() && root.tuple_size() == 1) {
      root = Shape(root.tuple_shapes(0));
    }
    if (!Compatible(root, *result, fp_result)) {
      return InvalidArgument(role, " computation %", comp->name(), " must return ", Str(*result),
                             ", returns ", Str(root));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckTakesOperands(const HloComputation* comp, absl::string_view role,
                                const HloInstruction& inst) {
  if (comp->num_parameters() != inst.operand_count()) {
    return InvalidArgument(role, " computation %", comp->name(), " must take ",
                           inst.operand_count(), " parameters, takes ", comp->num_parameters());
  }
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const HloInstruction* p = comp->parameter_instruction(i);
    const Shape& want = inst.operand(i)->shape();
    if (p == nullptr) {
      return InvalidArgument(role, " computation %", comp->name(), " lacks parameter ", i);
    }
    if (!Compatible(p->shape(), want)) {
      return InvalidArgument(role, " computation %", comp->name(), " parameter ", i, " must be ",
                             Str(want), ", got ", Str(p->shape()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<const HloComputation*> Called(const HloInstruction& inst, size_t i,
                                             absl::string_view role) {
  if (inst.called_computations().size() <= i || inst.called_computations()[i] == nullptr) {
    return InvalidArgument("missing ", role, " computation");
  }
  return inst.called_computations()[i];
}

Shape MaybeTuple(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return std::move(shapes[0]);
  return Shape::Tuple(std::move(shapes));
}

std::string ListStr(absl::Span<const int64_t> values) { return absl::StrJoin(values, ","); }

absl::Status CheckWindowDimension(const WindowDimension& w, int64_t index) {
  if (w.size <= 0) return InvalidArgument("window dimension ", index, " has size ", w.size);
  if (w.stride <= 0) return InvalidArgument("window dimension ", index, " has stride ", w.stride);
  if (w.base_dilation <= 0 || w.window_dilation <= 0) {
    return InvalidArgument("window dimension ", index, " has non-positive dilation");
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> WindowOutputSize(int64_t size, const WindowDimension& w,
                                         bool allow_negative_padding) {
  if (!allow_negative_padding && (w.padding_low < 0 || w.padding_high < 0)) {
    return InvalidArgument("window padding must not be negative, got ", w.padding_low, "_",
                           w.padding_high);
  }
  int64_t dilated = size == 0 ? 0 : (size - 1) * w.base_dilation + 1;
  int64_t padded = dilated + w.padding_low + w.padding_high;
  int64_t window = (w.size - 1) * w.window_dilation + 1;
  if (padded < window) return 0;
  return (padded - window) / w.stride + 1;
}

}  // namespace xlite::inference
