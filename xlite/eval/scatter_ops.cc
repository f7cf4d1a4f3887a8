// scatter: for each index vector, its update window is combined into the
// operand(s) at the position it points at, in row-major order of the index
// vectors (so duplicates apply in order). A window that would leave the
// operand is skipped whole, as XLA does. The update computation runs
// through EvalContext::Call, except for the common shapes — overwrite, and
// add/multiply/maximum/minimum of the two parameters — done in place.
#include <algorithm>
#include <functional>
#include <optional>
#include <type_traits>

#include "xlite/base/status.h"
#include "xlite/eval/array_copy.h"
#include "xlite/eval/data_movement_internal.h"
#include "xlite/eval/element_types.h"
#include "xlite/eval/gather_scatter_internal.h"
#include "xlite/eval/index_util.h"
#include "xlite/ir/computation.h"

namespace xlite::eval {
namespace {

// Combines one update window (box: A = operand element, B = update element)
// into the results.
using Applier = std::function<absl::Status(const StridedBox& box)>;

enum class Binary { kAdd, kMultiply, kMaximum, kMinimum };

template <Binary kOp, typename T>
T Combine(T x, T y) {
  if constexpr (kOp == Binary::kAdd || kOp == Binary::kMultiply) {
    if constexpr (std::is_integral_v<T>) {
      // Unsigned arithmetic wraps instead of overflowing (and keeps narrow
      // types from promoting to a signed int that could overflow).
      using U = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;
      U r = kOp == Binary::kAdd ? static_cast<U>(static_cast<U>(x) + static_cast<U>(y))
                                : static_cast<U>(static_cast<U>(x) * static_cast<U>(y));
      return static_cast<T>(r);
    } else {
      return kOp == Binary::kAdd ? x + y : x * y;
    }
  } else {
    if constexpr (!std::is_integral_v<T>) {
      // XLA's maximum and minimum propagate NaN.
      if (x != x) return x;
      if (y != y) return y;
    }
    // Equal values keep the first operand (std::max / std::min do).
    return kOp == Binary::kMaximum ? std::max(x, y) : std::min(x, y);
  }
}

using BinaryFn = void (*)(uint8_t* out, int64_t a, const uint8_t* update, int64_t b, int64_t n);

template <PrimitiveType PT, Binary kOp>
void ApplyBinary(uint8_t* out, int64_t a, const uint8_t* update, int64_t b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    StoreElement<PT>(out, a + i,
                     Combine<kOp>(LoadElement<PT>(out, a + i), LoadElement<PT>(update, b + i)));
  }
}

// The in-place combiner of `op` for element type `t`; nullptr where the
// computation must run instead (pred, and ordering of complex numbers).
BinaryFn SelectBinary(PrimitiveType t, Binary op) {
  absl::StatusOr<BinaryFn> fn = DispatchArrayType(t, [op](auto tag) -> absl::StatusOr<BinaryFn> {
    constexpr PrimitiveType PT = decltype(tag)::kType;
    using T = NativeT<PT>;
    if constexpr (PT == PrimitiveType::PRED) {
      return nullptr;
    } else {
      switch (op) {
        case Binary::kAdd:
          return &ApplyBinary<PT, Binary::kAdd>;
        case Binary::kMultiply:
          return &ApplyBinary<PT, Binary::kMultiply>;
        default:
          break;
      }
      if constexpr (std::is_arithmetic_v<T>) {
        if (op == Binary::kMaximum) return &ApplyBinary<PT, Binary::kMaximum>;
        return &ApplyBinary<PT, Binary::kMinimum>;
      }
      return nullptr;
    }
  });
  return fn.ok() ? *fn : nullptr;
}

bool IsParameter(const HloInstruction* inst, int64_t number) {
  return inst->opcode() == HloOpcode::kParameter && inst->parameter_number() == number;
}

// True when the computation returns its update parameters unchanged.
bool IsOverwrite(const HloComputation& comp, int64_t count) {
  const HloInstruction* root = comp.root_instruction();
  if (count == 1) return IsParameter(root, 1);
  if (root->opcode() != HloOpcode::kTuple || root->operand_count() != count) return false;
  for (int64_t k = 0; k < count; ++k) {
    if (!IsParameter(root->operand(k), count + k)) return false;
  }
  return true;
}

// The binary op a single-operand computation applies to its two parameters.
std::optional<Binary> PlainBinary(const HloComputation& comp) {
  const HloInstruction* root = comp.root_instruction();
  if (root->operand_count() != 2 || !root->shape().IsScalar()) return std::nullopt;
  bool in_order = IsParameter(root->operand(0), 0) && IsParameter(root->operand(1), 1);
  bool swapped = IsParameter(root->operand(0), 1) && IsParameter(root->operand(1), 0);
  switch (root->opcode()) {
    case HloOpcode::kAdd:
      return in_order || swapped ? std::optional(Binary::kAdd) : std::nullopt;
    case HloOpcode::kMultiply:
      return in_order || swapped ? std::optional(Binary::kMultiply) : std::nullopt;
    // Ties (+0 vs -0, two NaNs) give the first operand, so order matters.
    case HloOpcode::kMaximum:
      return in_order ? std::optional(Binary::kMaximum) : std::nullopt;
    case HloOpcode::kMinimum:
      return in_order ? std::optional(Binary::kMinimum) : std::nullopt;
    default:
      return std::nullopt;
  }
}

// Runs the update computation on one element of every operand and update.
class CallApplier {
 public:
  CallApplier(const HloComputation& comp, EvalContext& ctx, std::vector<Literal>& results,
              Operands updates)
      : comp_(comp), ctx_(ctx), results_(results), updates_(updates) {
    for (const Literal& r : results) args_.emplace_back(Shape::Scalar(r.shape().element_type()));
    for (const Literal* u : updates) args_.emplace_back(Shape::Scalar(u->shape().element_type()));
  }

  absl::Status operator()(const StridedBox& box) {
    // Taken here, not in the constructor: std::function may move this object.
    arg_pointers_.clear();
    for (const Literal& arg : args_) arg_pointers_.push_back(&arg);
    absl::Status status;
    ForEachRun(box, [&](int64_t a, int64_t b, int64_t n) {
      for (int64_t i = 0; i < n && status.ok(); ++i) status = One(a + i, b + i);
    });
    return status;
  }

 private:
  absl::Status One(int64_t a, int64_t b) {
    size_t count = results_.size();
    for (size_t k = 0; k < count; ++k) {
      CopyElementAt(args_[k], 0, results_[k], a);
      CopyElementAt(args_[count + k], 0, *updates_[k], b);
    }
    XLITE_ASSIGN_OR_RETURN(Literal value, ctx_.Call(comp_, arg_pointers_));
    bool tuple = value.shape().IsTuple();
    if (tuple ? value.tuple_elements().size() != count : count != 1) {
      return InvalidArgument("the update computation returned ", value.shape().ToString(), " for ",
                             count, " operands");
    }
    for (size_t k = 0; k < count; ++k) {
      const Literal& v = tuple ? value.tuple_elements()[k] : value;
      if (v.shape().element_type() != results_[k].shape().element_type() ||
          v.element_count() != 1) {
        return InvalidArgument("the update computation returned ", value.shape().ToString());
      }
      CopyElementAt(results_[k], a, v, 0);
    }
    return absl::OkStatus();
  }

  const HloComputation& comp_;
  EvalContext& ctx_;
  std::vector<Literal>& results_;
  Operands updates_;
  std::vector<Literal> args_;
  std::vector<const Literal*> arg_pointers_;
};

Applier MakeApplier(const HloComputation& comp, EvalContext& ctx, std::vector<Literal>& results,
                    Operands updates) {
  if (IsOverwrite(comp, static_cast<int64_t>(results.size()))) {
    return [&results, updates](const StridedBox& box) {
      for (size_t k = 0; k < results.size(); ++k) CopyBox(results[k], *updates[k], box);
      return absl::OkStatus();
    };
  }
  if (results.size() == 1) {
    std::optional<Binary> op = PlainBinary(comp);
    BinaryFn fn = op ? SelectBinary(results[0].shape().element_type(), *op) : nullptr;
    if (fn != nullptr) {
      return [&results, updates, fn](const StridedBox& box) {
        uint8_t* out = results[0].mutable_raw_data().data();
        const uint8_t* in = updates[0]->raw_data().data();
        ForEachRun(box, [&](int64_t a, int64_t b, int64_t n) { fn(out, a, in, b, n); });
        return absl::OkStatus();
      };
    }
  }
  return CallApplier(comp, ctx, results, updates);
}

absl::StatusOr<Literal> Scatter(const HloInstruction& inst, Operands ops, EvalContext& ctx) {
  if (ops.size() < 3 || ops.size() % 2 == 0 || inst.to_apply() == nullptr) {
    return InvalidArgument("scatter needs N operands, indices, N updates and to_apply");
  }
  size_t count = (ops.size() - 1) / 2;
  const ScatterDimensions& d = inst.attrs<ScatterAttrs>().dims;
  Operands updates = ops.subspan(count + 1);
  const Shape& operand_shape = ops[0]->shape();
  const Shape& update_shape = updates[0]->shape();
  int64_t rank = operand_shape.rank();
  XLITE_ASSIGN_OR_RETURN(
      IndexMapping mapping,
      IndexMapping::Make(*ops[count], d.index_vector_dim, d.scatter_dims_to_operand_dims,
                         d.input_batching_dims, d.scatter_indices_batching_dims, rank));
  // Operand dims the window spans pair, in order, with update_window_dims;
  // the other update dims are the index vectors' batch positions, in order.
  std::vector<int64_t> window_dims = DimsNotIn(rank, d.inserted_window_dims, d.input_batching_dims);
  std::vector<int64_t> scatter_dims = DimsNotIn(update_shape.rank(), d.update_window_dims);
  if (window_dims.size() != d.update_window_dims.size() ||
      scatter_dims.size() != mapping.batch_sizes().size()) {
    return InvalidArgument("scatter dimension numbers do not match the shapes");
  }
  std::vector<int64_t> operand_strides = StridesOf(operand_shape);
  std::vector<int64_t> update_strides = StridesOf(update_shape);
  std::vector<int64_t> window(rank, 1);  // the window's extent per operand dim
  std::vector<int64_t> sizes, dst, src;
  for (size_t j = 0; j < window_dims.size(); ++j) {
    int64_t u = d.update_window_dims[j];
    sizes.push_back(update_shape.dimensions(u));
    window[window_dims[j]] = sizes.back();
    dst.push_back(operand_strides[window_dims[j]]);
    src.push_back(update_strides[u]);
  }
  std::vector<Literal> results;
  for (size_t k = 0; k < count; ++k) results.push_back(*ops[k]);
  Applier apply = MakeApplier(*inst.to_apply(), ctx, results, updates);
  std::vector<int64_t> start(rank);
  absl::Status status;
  ForEachIndex(mapping.batch_sizes(), [&](absl::Span<const int64_t> batch) {
    if (!status.ok()) return;
    mapping.OperandStart(batch, absl::MakeSpan(start));
    for (int64_t k = 0; k < rank; ++k) {
      if (start[k] < 0 || start[k] > operand_shape.dimensions(k) - window[k]) return;
    }
    int64_t src_offset = 0;
    for (size_t g = 0; g < batch.size(); ++g) {
      src_offset += batch[g] * update_strides[scatter_dims[g]];
    }
    status = apply(StridedBox(sizes, LinearIndex(start, operand_strides), dst, src_offset, src));
  });
  XLITE_RETURN_IF_ERROR(status);
  if (count == 1) return std::move(results[0]);
  return Literal::Tuple(std::move(results));
}

}  // namespace

void RegisterScatterOps(OpHandlerTable& table) { table.Register(HloOpcode::kScatter, Scatter); }

}  // namespace xlite::eval
