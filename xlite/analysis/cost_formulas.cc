// The longer counting formulas of the cost analysis (see cost_formulas.h).
#include "xlite/analysis/cost_formulas.h"

#include <algorithm>
#include <vector>

#include "xlite/analysis/cost_analysis.h"
#include "xlite/ir/computation.h"

namespace xlite::cost_internal {

int64_t Elements(const Shape& shape) {
  if (!shape.IsArray()) return 0;
  return std::max<int64_t>(shape.ElementCount(), 0);
}

int64_t ElementsRecursive(const Shape& shape) {
  if (!shape.IsTuple()) return Elements(shape);
  int64_t total = 0;
  for (const Shape& element : shape.tuple_shapes()) total += ElementsRecursive(element);
  return total;
}

int64_t LeafBytes(const Shape& shape) {
  if (!shape.IsTuple()) return ShapeBytes(shape);
  int64_t total = 0;
  for (const Shape& element : shape.tuple_shapes()) total += LeafBytes(element);
  return total;
}

int64_t Log2Floor(int64_t n) {
  int64_t log = 0;
  while (n > 1) {
    n >>= 1;
    ++log;
  }
  return log;
}

int64_t Log2Ceiling(int64_t n) {
  if (n <= 1) return 0;
  return Log2Floor(n - 1) + 1;
}

namespace {

// floor(a / b) for b > 0.
int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Valid (output position, kernel tap) pairs along one spatial dimension.
int64_t ValidTaps(const WindowDimension& w, int64_t input, int64_t kernel, int64_t output) {
  const int64_t stride = std::max<int64_t>(w.stride, 1);
  const int64_t base = std::max<int64_t>(w.base_dilation, 1);
  int64_t count = 0;
  for (int64_t k = 0; k < kernel; ++k) {
    // Position in the dilated, padded input read by output 0 at tap k.
    const int64_t offset = k * w.window_dilation - w.padding_low;
    if (base == 1) {
      // 0 <= o*stride + offset <= input-1, solved for o and clipped to [0, output).
      const int64_t lo = std::max<int64_t>(0, FloorDiv(-offset + stride - 1, stride));
      const int64_t hi = std::min<int64_t>(output - 1, FloorDiv(input - 1 - offset, stride));
      count += std::max<int64_t>(0, hi - lo + 1);
      continue;
    }
    // With base dilation only every base-th position holds an input element.
    for (int64_t o = 0; o < output; ++o) {
      const int64_t position = o * stride + offset;
      if (position < 0 || position % base != 0) continue;
      if (position / base < input) ++count;
    }
  }
  return count;
}

// Major-to-minor dimension numbers (row-major when no layout is written),
// each renamed through `relabel` when given.
std::vector<int64_t> PhysicalOrder(const Shape& shape, const std::vector<int64_t>* relabel) {
  std::vector<int64_t> order;
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank()) {
    const auto& minor_to_major = shape.layout().minor_to_major;
    order.assign(minor_to_major.rbegin(), minor_to_major.rend());
  } else {
    for (int64_t d = 0; d < shape.rank(); ++d) order.push_back(d);
  }
  if (relabel != nullptr) {
    for (int64_t& d : order) d = (*relabel)[d];
  }
  return order;
}

}  // namespace

double ConvolutionFlops(const HloInstruction& conv) {
  const auto& attrs = conv.attrs<ConvolutionAttrs>();
  const ConvDimensions& dims = attrs.dims;
  const Shape& lhs = conv.operand(0)->shape();
  const Shape& rhs = conv.operand(1)->shape();
  const Shape& out = conv.shape();
  double taps = 1;
  for (size_t i = 0; i < attrs.window.size() && i < dims.input_spatial.size(); ++i) {
    taps *= static_cast<double>(ValidTaps(attrs.window[i], lhs.dimensions(dims.input_spatial[i]),
                                          rhs.dimensions(dims.kernel_spatial[i]),
                                          out.dimensions(dims.output_spatial[i])));
  }
  const int64_t feature_groups = std::max<int64_t>(attrs.feature_group_count, 1);
  const int64_t batch_groups = std::max<int64_t>(attrs.batch_group_count, 1);
  const double input_features =
      static_cast<double>(lhs.dimensions(dims.input_feature) / feature_groups);
  const double output_features = static_cast<double>(out.dimensions(dims.output_feature));
  const double batch = static_cast<double>(lhs.dimensions(dims.input_batch) / batch_groups);
  return 2 * input_features * output_features * batch * taps;
}

double ReduceWindowApplications(const HloInstruction& reduce_window) {
  const Window& window = reduce_window.attrs<WindowAttrs>().window;
  const Shape& shape = reduce_window.shape();
  const Shape& out = shape.IsTuple() ? shape.tuple_shapes(0) : shape;
  int64_t window_elements = 1;
  int64_t reduced_dims = 0, padded_dims = 0;
  for (const WindowDimension& w : window) {
    window_elements *= w.size;
    reduced_dims += w.size != 1;
    padded_dims += w.padding_low != 0 || w.padding_high != 0;
  }
  const double out_elements = static_cast<double>(Elements(out));
  if (reduced_dims == 1 && padded_dims == 1 && shape.IsArray()) {
    for (size_t d = 0; d < window.size(); ++d) {
      const WindowDimension& w = window[d];
      if (w.size == 1 || w.padding_low == 0 || w.padding_low != w.padding_high ||
          w.size != 2 * w.padding_low + 1) {
        continue;
      }
      const int64_t span = out.dimensions(static_cast<int64_t>(d));
      if (w.padding_low == span - 1 && span > 0) {
        return out_elements / static_cast<double>(span) + static_cast<double>(span - 1);
      }
      break;
    }
  }
  return static_cast<double>(window_elements - 1) * out_elements;
}

bool TransposeIsBitcast(const HloInstruction& transpose) {
  const Shape& in = transpose.operand(0)->shape();
  const Shape& out = transpose.shape();
  if (!in.IsArray() || !out.IsArray() || in.rank() != out.rank() ||
      static_cast<int64_t>(transpose.dimensions().size()) != out.rank()) {
    return false;
  }
  // As XLA's ShapeUtil::TransposeIsBitcast: every dimension, a size-1 one
  // too, must keep its place in memory.
  return PhysicalOrder(out, &transpose.dimensions()) == PhysicalOrder(in, nullptr);
}

namespace {

// Calls `leaf(index)` for every leaf of a tuple shape, depth first.
template <typename Fn>
void ForEachLeafIndex(const Shape& shape, std::vector<int64_t>& index, Fn&& leaf) {
  if (!shape.IsTuple()) {
    leaf(index);
    return;
  }
  for (int64_t i = 0; i < shape.tuple_size(); ++i) {
    index.push_back(i);
    ForEachLeafIndex(shape.tuple_shapes(i), index, leaf);
    index.pop_back();
  }
}

}  // namespace

int64_t FusionOperandReadBytes(const HloInstruction& param) {
  if (!param.shape().IsTuple()) return FusionParameterReadBytes(param);
  int64_t total = 0;
  std::vector<int64_t> index;
  ForEachLeafIndex(param.shape(), index, [&](const std::vector<int64_t>& leaf) {
    const HloInstruction* node = &param;
    // As XLA: a level without a matching get-tuple-element leaves the walk
    // where it is and the next level searches the same node's users.
    for (int64_t sub_index : leaf) {
      for (const HloInstruction* user : node->users()) {
        if (user->opcode() == HloOpcode::kGetTupleElement && user->tuple_index() == sub_index) {
          node = user;
          break;
        }
      }
    }
    total += FusionParameterReadBytes(*node);
  });
  return total;
}

int64_t FusionParameterReadBytes(const HloInstruction& param) {
  const int64_t full = ShapeBytes(param.shape());
  int64_t total = 0;
  bool shared_read = false;
  for (const HloInstruction* user : param.users()) {
    switch (user->opcode()) {
      case HloOpcode::kFusion: {
        const HloComputation* body = user->to_apply();
        for (int64_t i = 0; i < user->operand_count(); ++i) {
          if (user->operand(i) != &param) continue;
          const HloInstruction* inner = body ? body->parameter_instruction(i) : nullptr;
          total += inner ? FusionParameterReadBytes(*inner) : full;
        }
        break;
      }
      case HloOpcode::kSlice:
        total += ShapeBytes(user->shape());
        break;
      case HloOpcode::kDynamicSlice:
        // The sliced operand is read as the slice; an index shares the read.
        if (user->operand(0) == &param) {
          total += ShapeBytes(user->shape());
        } else if (!shared_read) {
          total += full;
          shared_read = true;
        }
        break;
      case HloOpcode::kDynamicUpdateSlice:
        // The updated operand aliases the output (whose bytes are the
        // update's): it is not read. The update or an index shares the read.
        if (user->operand(0) != &param && !shared_read) {
          total += full;
          shared_read = true;
        }
        break;
      case HloOpcode::kBroadcast:
      case HloOpcode::kReshape:
        total += full;
        break;
      default:
        if (!shared_read) total += full;
        shared_read = true;
        break;
    }
  }
  return total;
}

int64_t FusionOutputBytes(const HloInstruction& fusion) {
  const HloComputation* body = fusion.to_apply();
  const HloInstruction* root = body ? body->root_instruction() : nullptr;
  auto bytes_of = [](const Shape& shape, const HloInstruction* producer) {
    if (producer != nullptr && producer->opcode() == HloOpcode::kDynamicUpdateSlice) {
      return ShapeBytes(producer->operand(1)->shape());
    }
    return LeafBytes(shape);
  };
  const Shape& shape = fusion.shape();
  if (!shape.IsTuple()) return bytes_of(shape, root);
  const bool root_is_tuple = root != nullptr && root->opcode() == HloOpcode::kTuple &&
                             root->operand_count() == shape.tuple_size();
  int64_t total = 0;
  for (int64_t i = 0; i < shape.tuple_size(); ++i) {
    total += bytes_of(shape.tuple_shapes(i), root_is_tuple ? root->operand(i) : nullptr);
  }
  return total;
}

int64_t FusionConstantBytes(const HloComputation& body) {
  int64_t total = 0;
  for (const auto& inst : body.instructions()) {
    if (inst->opcode() == HloOpcode::kConstant && Elements(inst->shape()) > 1) {
      total += ShapeBytes(inst->shape());
    }
  }
  return total;
}

}  // namespace xlite::cost_internal
