// iota (index along iota_dimension, converted to the element type) and map
// (the to_apply computation called once per element on scalars).
#include <cstring>
#include <vector>

#include "xlite/eval/elementwise_internal.h"
#include "xlite/eval/index_util.h"
#include "xlite/ir/computation.h"

namespace xlite::eval {
namespace {

using O = HloOpcode;

absl::StatusOr<Literal> IotaHandler(const HloInstruction& inst, Operands, EvalContext&) {
  const Shape& shape = inst.shape();
  const int64_t dim = inst.attrs<IntAttrs>().value;
  if (!shape.IsArray() || dim < 0 || dim >= shape.rank()) {
    return InvalidArgument("iota_dimension ", dim, " is out of range for ", shape.ToString());
  }
  const PrimitiveType declared = shape.element_type();
  Literal out(WithElementType(shape, ComputeType(declared)));
  // Element i's index along `dim` is (i / stride) % size in row-major order.
  const int64_t stride = RowMajorStrides(shape.dimensions())[dim];
  const int64_t size = shape.dimensions(dim);
  absl::Status status = DispatchCompute(out.shape().element_type(), [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return UnsupportedType(inst, declared);
    } else {
      int64_t i = 0;
      MapInto<T>(out, [&] { return static_cast<T>((i++ / stride) % size); });
      return absl::OkStatus();
    }
  });
  XLITE_RETURN_IF_ERROR(status);
  return Narrow(std::move(out), declared);
}

// Element `i` of `from` as a scalar literal.
Literal ScalarAt(const Literal& from, int64_t i) {
  PrimitiveType t = from.shape().element_type();
  Literal scalar(Shape::Scalar(t));
  const int bytes = StorageBytes(t);
  std::memcpy(scalar.mutable_raw_data().data(), from.raw_data().data() + i * bytes, bytes);
  return scalar;
}

absl::StatusOr<Literal> MapHandler(const HloInstruction& inst, Operands ops, EvalContext& ctx) {
  const Shape& shape = inst.shape();
  if (inst.has_dimensions_attr()) {
    const std::vector<int64_t>& dims = inst.dimensions();
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] != static_cast<int64_t>(i) || dims.size() != static_cast<size_t>(shape.rank())) {
        return Unimplemented("map over a subset or permutation of dimensions");
      }
    }
  }
  const HloComputation& fn = *inst.to_apply();
  Literal out(WithElementType(shape, shape.element_type()));
  const int bytes = StorageBytes(shape.element_type());
  std::vector<Literal> args(ops.size());
  std::vector<const Literal*> arg_ptrs(ops.size());
  for (int64_t i = 0; i < out.element_count(); ++i) {
    for (size_t k = 0; k < ops.size(); ++k) {
      args[k] = ScalarAt(*ops[k], i);
      arg_ptrs[k] = &args[k];
    }
    XLITE_ASSIGN_OR_RETURN(Literal value, ctx.Call(fn, arg_ptrs));
    if (!value.shape().IsScalar() || value.shape().element_type() != shape.element_type()) {
      return InvalidArgument("map's computation returned ", value.shape().ToString(),
                             ", expected a ", AsAbsl(PrimitiveTypeName(shape.element_type())),
                             " scalar");
    }
    std::memcpy(out.mutable_raw_data().data() + i * bytes, value.raw_data().data(), bytes);
  }
  return out;
}

}  // namespace

void RegisterMapIotaOps(OpHandlerTable& table) {
  table.Register(O::kIota, IotaHandler);
  table.Register(O::kMap, MapHandler);
}

}  // namespace xlite::eval
