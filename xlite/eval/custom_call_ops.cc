// The custom-call opcode: dispatch by target name through the registry of
// EvalOptions, and the built-in targets (sharding annotations, SPMD
// full<->shard conversions on one device, host-offload markers, TopK).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/base/stable_sort.h"
#include "xlite/base/status.h"
#include "xlite/eval/custom_call_registry.h"
#include "xlite/eval/index_util.h"
#include "xlite/eval/op_handlers.h"

namespace xlite::eval {
namespace {

using Operands = absl::Span<const Literal* const>;

absl::Status ExpectOperands(Operands operands, size_t n) {
  if (operands.size() != n) {
    return InvalidArgument("expects ", n, " operand", n == 1 ? "" : "s", ", got ", operands.size());
  }
  return absl::OkStatus();
}

// Sharding, annotate_device_placement, MoveToHost/Device, Pin/Unpin...: the
// operand as it is (a marker for the compiler, no effect on values).
absl::StatusOr<Literal> Identity(const HloInstruction& inst, Operands operands, EvalContext&) {
  XLITE_RETURN_IF_ERROR(ExpectOperands(operands, 1));
  if (!operands[0]->shape().Compatible(inst.shape())) {
    return InvalidArgument("result shape ", inst.shape().ToString(), " differs from the operand's ",
                           operands[0]->shape().ToString());
  }
  return *operands[0];
}

// AllocateBuffer: an uninitialized buffer; zeros keep runs deterministic.
absl::StatusOr<Literal> AllocateBuffer(const HloInstruction& inst, Operands operands,
                                       EvalContext&) {
  XLITE_RETURN_IF_ERROR(ExpectOperands(operands, 0));
  return Literal(inst.shape());
}

// Copies the box of size `extent` starting at `src_start` in `src` to
// `dst_start` in `dst` (same element type, same rank).
void CopyBox(const Literal& src, absl::Span<const int64_t> src_start, Literal& dst,
             absl::Span<const int64_t> dst_start, absl::Span<const int64_t> extent) {
  size_t bytes = StorageBytes(src.shape().element_type());
  std::vector<int64_t> src_strides = RowMajorStrides(src.shape().dimensions());
  std::vector<int64_t> dst_strides = RowMajorStrides(dst.shape().dimensions());
  const uint8_t* in = src.raw_data().data();
  uint8_t* out = dst.mutable_raw_data().data();
  std::vector<int64_t> s(extent.size()), d(extent.size());
  ForEachIndex(extent, [&](absl::Span<const int64_t> index) {
    for (size_t i = 0; i < index.size(); ++i) {
      s[i] = src_start[i] + index[i];
      d[i] = dst_start[i] + index[i];
    }
    std::memcpy(out + LinearIndex(d, dst_strides) * bytes, in + LinearIndex(s, src_strides) * bytes,
                bytes);
  });
}

absl::Status CheckSameArrayKind(const Literal& operand, const Shape& result) {
  if (!operand.shape().IsArray() || !result.IsArray() ||
      operand.shape().element_type() != result.element_type() ||
      operand.shape().rank() != result.rank()) {
    return InvalidArgument("operand ", operand.shape().ToString(), " and result ",
                           result.ToString(), " must be arrays of one element type and rank");
  }
  return absl::OkStatus();
}

// The tiled sharding that describes the full array, if any: the full side's
// own sharding, else the other side's.
const HloSharding* TiledSharding(const HloInstruction* first, const HloInstruction* second) {
  for (const HloInstruction* inst : {first, second}) {
    if (inst->has_sharding() && inst->sharding().IsTiled()) return &inst->sharding();
  }
  return nullptr;
}

// The start of this device's tile of `full` (zeros when there is no tiling).
absl::StatusOr<std::vector<int64_t>> TileStart(const HloSharding* sharding, const Shape& full,
                                               const EvalContext& ctx) {
  std::vector<int64_t> start(full.rank(), 0);
  if (sharding == nullptr) return start;
  XLITE_ASSIGN_OR_RETURN(auto bounds, sharding->TileBounds(full, ctx.options().partition_id));
  for (size_t i = 0; i < start.size(); ++i) start[i] = bounds[i].first;
  return start;
}

std::vector<int64_t> BoxExtent(const Shape& a, const Shape& b, absl::Span<const int64_t> a_start) {
  std::vector<int64_t> extent(a.rank());
  for (int64_t i = 0; i < a.rank(); ++i) {
    extent[i] = std::max<int64_t>(0, std::min(a.dimensions(i) - a_start[i], b.dimensions(i)));
  }
  return extent;
}

// The SPMD conversions between a full array and this device's shard of it.
// SPMDFullToShardShape (to_shard) takes this device's tile of the full
// operand, the tiling from the operand's sharding annotation (where XLA puts
// it); an uneven last tile is zero-padded to the declared shard shape.
// SPMDShardToFullShape: on one device only this device's shard is known; it
// is placed at its tile of the full shape (the instruction's sharding), the
// rest zeros. Equal shapes pass through, as in an unpartitioned module.
absl::StatusOr<Literal> ConvertShard(const HloInstruction& inst, Operands operands,
                                     EvalContext& ctx, bool to_shard) {
  XLITE_RETURN_IF_ERROR(ExpectOperands(operands, 1));
  const Literal& in = *operands[0];
  if (in.shape().Compatible(inst.shape())) return in;
  XLITE_RETURN_IF_ERROR(CheckSameArrayKind(in, inst.shape()));
  Literal out(Shape(inst.shape().element_type(), inst.shape().dimensions()));
  const Shape& full = to_shard ? in.shape() : out.shape();
  const HloSharding* sharding =
      to_shard ? TiledSharding(inst.operand(0), &inst) : TiledSharding(&inst, inst.operand(0));
  XLITE_ASSIGN_OR_RETURN(std::vector<int64_t> start, TileStart(sharding, full, ctx));
  std::vector<int64_t> zero(start.size(), 0);
  std::vector<int64_t> extent = BoxExtent(full, to_shard ? out.shape() : in.shape(), start);
  CopyBox(in, to_shard ? start : zero, out, to_shard ? zero : start, extent);
  return out;
}

absl::StatusOr<Literal> FullToShard(const HloInstruction& inst, Operands operands,
                                    EvalContext& ctx) {
  return ConvertShard(inst, operands, ctx, /*to_shard=*/true);
}

absl::StatusOr<Literal> ShardToFull(const HloInstruction& inst, Operands operands,
                                    EvalContext& ctx) {
  return ConvertShard(inst, operands, ctx, /*to_shard=*/false);
}

// "a before b" in TopK's order: larger first, with XLA's total order for
// floats (NaN above +inf, +0 above -0); ties keep the lower index (stable).
bool Greater(const Literal& values, PrimitiveType type, int64_t a, int64_t b) {
  if (IsUnsignedInt(type)) {
    return static_cast<uint64_t>(values.GetInt64(a)) > static_cast<uint64_t>(values.GetInt64(b));
  }
  if (IsInteger(type) || IsPred(type)) return values.GetInt64(a) > values.GetInt64(b);
  double x = values.GetDouble(a), y = values.GetDouble(b);
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && !std::isnan(y);
  if (x != y) return x > y;
  return !std::signbit(x) && std::signbit(y);
}

// TopK: (values, s32 indices) of the k largest along the last dimension,
// largest first; k is the result's last dimension.
absl::StatusOr<Literal> TopK(const HloInstruction& inst, Operands operands, EvalContext&) {
  XLITE_RETURN_IF_ERROR(ExpectOperands(operands, 1));
  const Literal& input = *operands[0];
  const Shape& shape = inst.shape();
  PrimitiveType type = input.shape().element_type();
  if (!input.shape().IsArray() || input.shape().rank() < 1 || IsComplex(type)) {
    return InvalidArgument("TopK takes a real array of rank >= 1, got ", input.shape().ToString());
  }
  if (!shape.IsTuple() || shape.tuple_size() != 2 || shape.tuple_shapes(0).element_type() != type ||
      shape.tuple_shapes(1).element_type() != PrimitiveType::S32 ||
      shape.tuple_shapes(0).dimensions() != shape.tuple_shapes(1).dimensions() ||
      shape.tuple_shapes(0).rank() != input.shape().rank()) {
    return InvalidArgument(
        "TopK's result must be (values, s32 indices) of the operand's "
        "rank and type, got ",
        shape.ToString());
  }
  int64_t rank = input.shape().rank();
  int64_t n = input.shape().dimensions(rank - 1);
  int64_t k = shape.tuple_shapes(0).dimensions(rank - 1);
  if (k > n) return InvalidArgument("TopK asks for k=", k, " of ", n, " elements");
  int64_t rows = n == 0 ? 0 : input.element_count() / n;
  Literal values(Shape(type, shape.tuple_shapes(0).dimensions()));
  Literal indices(Shape(PrimitiveType::S32, shape.tuple_shapes(1).dimensions()));
  size_t bytes = StorageBytes(type);
  std::vector<int64_t> order(n);
  for (int64_t row = 0; row < rows; ++row) {
    std::iota(order.begin(), order.end(), row * n);
    StableSort(order, [&](int64_t a, int64_t b) { return Greater(input, type, a, b); });
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(values.mutable_raw_data().data() + (row * k + j) * bytes,
                  input.raw_data().data() + order[j] * bytes, bytes);
      indices.Set<int32_t>(row * k + j, static_cast<int32_t>(order[j] - row * n));
    }
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(values));
  elements.push_back(std::move(indices));
  return Literal::Tuple(std::move(elements));
}

absl::StatusOr<Literal> CustomCall(const HloInstruction& inst, Operands operands,
                                   EvalContext& ctx) {
  const CustomCallRegistry* registry = ctx.options().custom_calls;
  if (registry == nullptr) registry = &CustomCallRegistry::BuiltIn();
  const std::string& target = inst.attrs<CustomCallAttrs>().target;
  const CustomCallHandler* handler = registry->Find(target);
  if (handler == nullptr) {
    return Unimplemented("custom-call target \"", target,
                         "\" (the evaluator knows: ", absl::StrJoin(registry->Targets(), ", "),
                         ")");
  }
  return (*handler)(inst, operands, ctx);
}

}  // namespace

void RegisterBuiltInCustomCalls(CustomCallRegistry& registry) {
  for (const char* marker : {"Sharding", "MoveToHost", "MoveToDevice", "annotate_device_placement",
                             "xla.sdy.FuncResultSharding", "Pin", "Unpin"}) {
    registry.Register(marker, Identity);
  }
  registry.Register("AllocateBuffer", AllocateBuffer);
  registry.Register("SPMDFullToShardShape", FullToShard);
  registry.Register("SPMDShardToFullShape", ShardToFull);
  registry.Register("TopK", TopK);
  RegisterLapackCustomCalls(registry);
}

void RegisterCustomCallOps(OpHandlerTable& table) {
  table.Register(HloOpcode::kCustomCall, CustomCall);
}

}  // namespace xlite::eval
