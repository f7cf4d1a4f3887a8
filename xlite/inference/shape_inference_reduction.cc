// Reductions, windows, sorting and maps: reduce, reduce-window,
// select-and-scatter, sort, topk, map, scan — with the signatures of their
// called computations.
#include "absl/container/inlined_vector.h"
#include "xlite/inference/shape_inference_internal.h"

namespace xlite::inference {
namespace {

using O = HloOpcode;

using ShapeList = absl::InlinedVector<Shape, 4>;

struct VariadicInputs {
  int64_t count = 0;      // N
  ShapeList init_types;   // scalar accumulators
  ShapeList input_types;  // scalar input elements
};

// Splits `N arrays, N scalar inits` and checks the reducer
// (acc..., x...) -> acc... (inputs may differ in float precision).
absl::StatusOr<VariadicInputs> CheckReducer(const HloInstruction& inst) {
  int64_t n = inst.operand_count();
  if (n < 2 || n % 2 != 0) {
    return InvalidArgument(OpcodeName(inst.opcode()), " needs N arrays and N init values, got ", n,
                           " operands");
  }
  VariadicInputs v;
  v.count = n / 2;
  const Shape& first = OperandShape(inst, 0);
  for (int64_t k = 0; k < v.count; ++k) {
    const Shape& x = OperandShape(inst, k);
    const Shape& init = OperandShape(inst, v.count + k);
    XLITE_RETURN_IF_ERROR(ExpectArray(x, "input"));
    if (!CompatibleDimensions(x, first)) {
      return InvalidArgument("inputs must have identical dimensions, got ", Str(first), " and ",
                             Str(x));
    }
    if (!init.IsScalar()) return InvalidArgument("init value must be a scalar, got ", Str(init));
    v.init_types.push_back(Shape::Scalar(init.element_type()));
    v.input_types.push_back(Shape::Scalar(x.element_type()));
  }
  XLITE_ASSIGN_OR_RETURN(const HloComputation* comp, Called(inst, 0, "to_apply"));
  ShapeList params = v.init_types;
  params.insert(params.end(), v.input_types.begin(), v.input_types.end());
  absl::InlinedVector<int64_t, 4> fp_params;
  for (int64_t k = 0; k < v.count; ++k) fp_params.push_back(v.count + k);
  Shape result =
      v.count == 1 ? v.init_types[0] : Shape::Tuple({v.init_types.begin(), v.init_types.end()});
  XLITE_RETURN_IF_ERROR(CheckSignature(comp, "reducer", params, &result, fp_params));
  return v;
}

absl::StatusOr<Shape> InferReduce(const HloInstruction& inst) {
  XLITE_ASSIGN_OR_RETURN(VariadicInputs v, CheckReducer(inst));
  const Shape& x = OperandShape(inst, 0);
  const std::vector<int64_t>& dims = inst.dimensions();
  XLITE_RETURN_IF_ERROR(CheckDimensionList(dims, x.rank(), "reduce dimensions", false));
  DimVector kept;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (std::find(dims.begin(), dims.end(), i) == dims.end()) kept.push_back(x.dimensions(i));
  }
  std::vector<Shape> results;
  for (const Shape& t : v.init_types) results.push_back(Shape(t.element_type(), kept));
  return MaybeTuple(std::move(results));
}

absl::StatusOr<DimVector> WindowedDims(const Shape& x, const Window& window) {
  if (static_cast<int64_t>(window.size()) != x.rank()) {
    return InvalidArgument("window has ", window.size(), " dimensions, operand ", Str(x),
                           " has rank ", x.rank());
  }
  DimVector dims(window.size());
  for (size_t i = 0; i < window.size(); ++i) {
    XLITE_RETURN_IF_ERROR(CheckWindowDimension(window[i], i));
    XLITE_ASSIGN_OR_RETURN(dims[i], WindowOutputSize(x.dimensions(i), window[i], true));
  }
  return dims;
}

absl::StatusOr<Shape> InferReduceWindow(const HloInstruction& inst) {
  XLITE_ASSIGN_OR_RETURN(VariadicInputs v, CheckReducer(inst));
  XLITE_ASSIGN_OR_RETURN(DimVector dims,
                         WindowedDims(OperandShape(inst, 0), inst.attrs<WindowAttrs>().window));
  std::vector<Shape> results;
  for (const Shape& t : v.init_types) results.push_back(Shape(t.element_type(), dims));
  return MaybeTuple(std::move(results));
}

absl::StatusOr<Shape> InferSelectAndScatter(const HloInstruction& inst) {
  const Shape& x = OperandShape(inst, 0);
  const Shape& source = OperandShape(inst, 1);
  const Shape& init = OperandShape(inst, 2);
  XLITE_RETURN_IF_ERROR(ExpectArray(x, "operand"));
  XLITE_RETURN_IF_ERROR(ExpectArray(source, "source"));
  Shape scalar = Shape::Scalar(x.element_type());
  if (!Compatible(init, scalar)) {
    return InvalidArgument("init value must be ", Str(scalar), ", got ", Str(init));
  }
  XLITE_ASSIGN_OR_RETURN(DimVector dims, WindowedDims(x, inst.attrs<WindowAttrs>().window));
  Shape expected_source(source.element_type(), dims);
  if (!CompatibleDimensions(source, expected_source) || source.element_type() != x.element_type()) {
    return InvalidArgument("source must be ", Str(Shape(x.element_type(), dims)),
                           " (the windowed operand), got ", Str(source));
  }
  XLITE_ASSIGN_OR_RETURN(const HloComputation* select, Called(inst, 0, "select"));
  XLITE_ASSIGN_OR_RETURN(const HloComputation* scatter, Called(inst, 1, "scatter"));
  Shape pred = Shape::Scalar(PrimitiveType::PRED);
  XLITE_RETURN_IF_ERROR(CheckSignature(select, "select", {scalar, scalar}, &pred));
  XLITE_RETURN_IF_ERROR(CheckSignature(scatter, "scatter", {scalar, scalar}, &scalar));
  return x;
}

// N arrays of identical dimensions (element types may differ).
absl::Status CheckSameDimsOperands(const HloInstruction& inst) {
  if (inst.operand_count() < 1)
    return InvalidArgument(OpcodeName(inst.opcode()), " needs operands");
  for (int64_t k = 0; k < inst.operand_count(); ++k) {
    const Shape& s = OperandShape(inst, k);
    XLITE_RETURN_IF_ERROR(ExpectArray(s, "operand"));
    if (!CompatibleDimensions(s, OperandShape(inst, 0))) {
      return InvalidArgument("operands must have identical dimensions, got ",
                             Str(OperandShape(inst, 0)), " and ", Str(s));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferSort(const HloInstruction& inst) {
  XLITE_RETURN_IF_ERROR(CheckSameDimsOperands(inst));
  const Shape& x = OperandShape(inst, 0);
  if (inst.dimensions().size() != 1 || inst.dimensions()[0] < 0 ||
      inst.dimensions()[0] >= x.rank()) {
    return InvalidArgument("sort needs one dimension of ", Str(x), ", got {",
                           ListStr(inst.dimensions()), "}");
  }
  ShapeList params;
  std::vector<Shape> results;
  for (const HloInstruction* op : inst.operands()) {
    Shape scalar = Shape::Scalar(op->shape().element_type());
    params.push_back(scalar);
    params.push_back(scalar);
    results.push_back(op->shape());
  }
  XLITE_ASSIGN_OR_RETURN(const HloComputation* comp, Called(inst, 0, "comparator"));
  Shape pred = Shape::Scalar(PrimitiveType::PRED);
  XLITE_RETURN_IF_ERROR(CheckSignature(comp, "comparator", params, &pred));
  return MaybeTuple(std::move(results));
}

absl::StatusOr<Shape> InferTopK(const HloInstruction& inst) {
  const Shape& x = OperandShape(inst, 0);
  XLITE_RETURN_IF_ERROR(ExpectArray(x, "topk operand"));
  int64_t k = inst.attrs<IntAttrs>().value;
  if (x.rank() < 1 || k < 0 || k > x.dimensions(x.rank() - 1)) {
    return InvalidArgument("topk k=", k, " must lie within the last dimension of ", Str(x));
  }
  DimVector dims(x.dimensions().begin(), x.dimensions().end());
  dims.back() = k;
  return Shape::Tuple({Shape(x.element_type(), dims), Shape(PrimitiveType::S32, dims)});
}

absl::StatusOr<Shape> InferMap(const HloInstruction& inst) {
  XLITE_RETURN_IF_ERROR(CheckSameDimsOperands(inst));
  const Shape& x = OperandShape(inst, 0);
  if (inst.has_dimensions_attr()) {
    const std::vector<int64_t>& dims = inst.dimensions();
    bool identity = static_cast<int64_t>(dims.size()) == x.rank();
    for (size_t i = 0; identity && i < dims.size(); ++i) identity = dims[i] == int64_t(i);
    if (!identity) {
      return InvalidArgument("map dimensions {", ListStr(dims), "} must be 0..", x.rank() - 1);
    }
  }
  ShapeList params;
  for (const HloInstruction* op : inst.operands()) {
    params.push_back(Shape::Scalar(op->shape().element_type()));
  }
  XLITE_ASSIGN_OR_RETURN(const HloComputation* comp, Called(inst, 0, "to_apply"));
  XLITE_RETURN_IF_ERROR(CheckSignature(comp, "map", params, nullptr));
  XLITE_ASSIGN_OR_RETURN(Shape root, RootShape(comp));
  if (root.IsTuple() && root.tuple_size() == 1) root = Shape(root.tuple_shapes(0));
  if (!root.IsScalar()) return InvalidArgument("map computation must return a scalar");
  return Shape(root.element_type(), x.dimensions());
}

// scan (newest opcode, semantics unpublished): operands are the inputs then
// `num_carries` carries; the scanned dimension must exist in every input. The
// result is the declared one.
absl::StatusOr<Shape> InferScan(const HloInstruction& inst) {
  int64_t carries = inst.attrs<ScanAttrs>().num_carries;
  if (carries < 0 || carries > inst.operand_count()) {
    return InvalidArgument("num_carries=", carries, " exceeds the ", inst.operand_count(),
                           " operands");
  }
  if (inst.dimensions().size() != 1) return InvalidArgument("scan needs one dimension");
  int64_t d = inst.dimensions()[0];
  for (int64_t k = 0; k < inst.operand_count() - carries; ++k) {
    const Shape& s = OperandShape(inst, k);
    XLITE_RETURN_IF_ERROR(ExpectArray(s, "scan input"));
    if (d < 0 || d >= s.rank()) {
      return InvalidArgument("scan dimension ", d, " is out of range for ", Str(s));
    }
  }
  XLITE_RETURN_IF_ERROR(Called(inst, 0, "to_apply").status());
  return inst.shape();
}

}  // namespace

absl::StatusOr<Shape> InferReduction(const HloInstruction& inst) {
  switch (inst.opcode()) {
    case O::kReduce:
      return InferReduce(inst);
    case O::kReduceWindow:
      return InferReduceWindow(inst);
    case O::kSelectAndScatter:
      return InferSelectAndScatter(inst);
    case O::kSort:
      return InferSort(inst);
    case O::kTopK:
      return InferTopK(inst);
    case O::kMap:
      return InferMap(inst);
    default:
      return InferScan(inst);
  }
}

}  // namespace xlite::inference
