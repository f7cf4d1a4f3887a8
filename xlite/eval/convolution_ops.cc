// convolution: any dimension labelling, strides, padding (negative too), lhs
// (base) and rhs (window) dilation, window reversal, feature groups and batch
// groups, every element type. Operands are converted to the result type and
// accumulate as dot does (see dot_ops.cc); the precision config is ignored.
// Float results take im2col plus the blocked matmul kernel shared with dot;
// other types a direct loop per output element.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/eval/index_util.h"
#include "xlite/eval/linalg_internal.h"

namespace xlite::eval {
namespace {

using Operands = absl::Span<const Literal* const>;

// A validated convolution in offsets. Output features are split into
// `groups` consecutive groups of cout_g (groups = feature_group_count or
// batch_group_count; at most one of them exceeds 1). Output feature o of
// group g = o / cout_g reads cin_g input features starting at g * cin_g for
// feature groups, or all of them from lhs batch b + g * n_out for batch
// groups (the layout XLA's shape inference and evaluator use).
struct ConvPlan {
  int64_t n_out = 0, cout = 0, groups = 1, cin_g = 0, cout_g = 0;
  bool batch_groups = false;
  int64_t lhs_b_stride = 0, lhs_f_stride = 0, rhs_i_stride = 0, rhs_o_stride = 0;
  int64_t out_b_stride = 0, out_f_stride = 0;
  std::vector<int64_t> out_size, win_size, out_sp_stride;
  int64_t out_positions = 1, window_positions = 1;
  // Per spatial dim d: input index read by output index s through window
  // index w at taps[d][s * win_size[d] + w], already times the lhs stride;
  // -1 in padding or a base-dilation hole.
  std::vector<std::vector<int64_t>> taps;
  // rhs offset of window position w (row-major over the window), reversal
  // applied.
  std::vector<int64_t> kernel_offsets;

  int64_t LhsBase(int64_t b, int64_t g) const {
    return batch_groups ? (b + g * n_out) * lhs_b_stride
                        : b * lhs_b_stride + g * cin_g * lhs_f_stride;
  }
  // lhs spatial offsets of every window position for output position `pos`
  // (linear, row-major over out_size); -1 where the tap reads padding.
  void WindowOffsets(int64_t pos, std::vector<int64_t>& s, std::vector<int64_t>& offsets) const {
    const int64_t rank = static_cast<int64_t>(out_size.size());
    for (int64_t d = rank - 1; d >= 0; --d) {
      s[d] = pos % out_size[d];
      pos /= out_size[d];
    }
    offsets.assign(window_positions, 0);
    if (window_positions == 0) return;
    int64_t span = window_positions;
    for (int64_t d = 0; d < rank; ++d) {
      span /= win_size[d];
      const int64_t* row = taps[d].data() + s[d] * win_size[d];
      for (int64_t w = 0; w < window_positions; ++w) {
        int64_t tap = row[(w / span) % win_size[d]];
        if (tap < 0 || offsets[w] < 0) {
          offsets[w] = -1;
        } else {
          offsets[w] += tap;
        }
      }
    }
  }
};

absl::Status CheckLabels(const char* what, int64_t rank, int64_t a, int64_t b,
                         absl::Span<const int64_t> spatial) {
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> all = {a, b};
  all.insert(all.end(), spatial.begin(), spatial.end());
  if (static_cast<int64_t>(all.size()) != rank) {
    return InvalidArgument("convolution: ", what, " has rank ", rank, " but ", all.size(),
                           " labelled dimensions");
  }
  for (int64_t d : all) {
    if (d < 0 || d >= rank || seen[d]) {
      return InvalidArgument("convolution: ", what, " dimension labels {", absl::StrJoin(all, ","),
                             "} are out of range or repeated");
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<ConvPlan> PlanConvolution(const Shape& lhs, const Shape& rhs,
                                         const ConvolutionAttrs& attrs, const Shape& result) {
  if (!lhs.IsArray() || !rhs.IsArray() || !result.IsArray()) {
    return InvalidArgument("convolution: operands and result must be arrays");
  }
  const ConvDimensions& dn = attrs.dims;
  const int64_t spatial = static_cast<int64_t>(dn.input_spatial.size());
  if (static_cast<int64_t>(dn.kernel_spatial.size()) != spatial ||
      static_cast<int64_t>(dn.output_spatial.size()) != spatial ||
      static_cast<int64_t>(attrs.window.size()) != spatial) {
    return InvalidArgument("convolution: input, kernel, output and window need ", spatial,
                           " spatial dimensions each");
  }
  XLITE_RETURN_IF_ERROR(
      CheckLabels("lhs", lhs.rank(), dn.input_batch, dn.input_feature, dn.input_spatial));
  XLITE_RETURN_IF_ERROR(CheckLabels("rhs", rhs.rank(), dn.kernel_input_feature,
                                    dn.kernel_output_feature, dn.kernel_spatial));
  XLITE_RETURN_IF_ERROR(
      CheckLabels("result", result.rank(), dn.output_batch, dn.output_feature, dn.output_spatial));
  const int64_t fgc = attrs.feature_group_count, bgc = attrs.batch_group_count;
  const int64_t n_in = lhs.dimensions(dn.input_batch), cin = lhs.dimensions(dn.input_feature);
  ConvPlan p;
  p.cout = rhs.dimensions(dn.kernel_output_feature);
  p.cin_g = rhs.dimensions(dn.kernel_input_feature);
  if (fgc < 1 || bgc < 1 || (fgc > 1 && bgc > 1)) {
    return InvalidArgument("convolution: feature_group_count=", fgc, " and batch_group_count=", bgc,
                           " must be positive and not both above 1");
  }
  if (cin % fgc != 0 || p.cin_g * fgc != cin || p.cout % fgc != 0 || p.cout % bgc != 0 ||
      n_in % bgc != 0) {
    return InvalidArgument("convolution: ", lhs.ToString(), " and kernel ", rhs.ToString(),
                           " do not divide into feature_group_count=", fgc,
                           " / batch_group_count=", bgc);
  }
  p.groups = fgc * bgc;
  p.batch_groups = bgc > 1;
  p.n_out = n_in / bgc;
  p.cout_g = p.cout / p.groups;
  std::vector<int64_t> ls = RowMajorStrides(lhs.dimensions());
  std::vector<int64_t> rs = RowMajorStrides(rhs.dimensions());
  std::vector<int64_t> os = RowMajorStrides(result.dimensions());
  p.lhs_b_stride = ls[dn.input_batch];
  p.lhs_f_stride = ls[dn.input_feature];
  p.rhs_i_stride = rs[dn.kernel_input_feature];
  p.rhs_o_stride = rs[dn.kernel_output_feature];
  p.out_b_stride = os[dn.output_batch];
  p.out_f_stride = os[dn.output_feature];
  std::vector<int64_t> expected(result.rank(), 0);
  expected[dn.output_batch] = p.n_out;
  expected[dn.output_feature] = p.cout;
  std::vector<int64_t> win_strides;
  for (int64_t d = 0; d < spatial; ++d) {
    const WindowDimension& w = attrs.window[d];
    const int64_t in = lhs.dimensions(dn.input_spatial[d]);
    if (w.size != rhs.dimensions(dn.kernel_spatial[d]) || w.stride < 1 || w.base_dilation < 1 ||
        w.window_dilation < 1) {
      return InvalidArgument("convolution: window dimension ", d, " (size ", w.size, ", stride ",
                             w.stride, ", dilations ", w.base_dilation, "/", w.window_dilation,
                             ") does not fit kernel ", rhs.ToString());
    }
    const int64_t dilated_in = in == 0 ? 0 : (in - 1) * w.base_dilation + 1;
    const int64_t padded = dilated_in + w.padding_low + w.padding_high;
    const int64_t dilated_win = w.size == 0 ? 0 : (w.size - 1) * w.window_dilation + 1;
    const int64_t out = padded < dilated_win ? 0 : (padded - dilated_win) / w.stride + 1;
    expected[dn.output_spatial[d]] = out;
    p.out_size.push_back(out);
    p.win_size.push_back(w.size);
    p.out_sp_stride.push_back(os[dn.output_spatial[d]]);
    win_strides.push_back(rs[dn.kernel_spatial[d]]);
    p.out_positions *= out;
    p.window_positions *= w.size;
    std::vector<int64_t> taps(out * w.size, -1);
    for (int64_t s = 0; s < out; ++s) {
      for (int64_t k = 0; k < w.size; ++k) {
        const int64_t dilated = s * w.stride - w.padding_low + k * w.window_dilation;
        if (dilated >= 0 && dilated < dilated_in && dilated % w.base_dilation == 0) {
          taps[s * w.size + k] = dilated / w.base_dilation * ls[dn.input_spatial[d]];
        }
      }
    }
    p.taps.push_back(std::move(taps));
  }
  if (!std::equal(expected.begin(), expected.end(), result.dimensions().begin(),
                  result.dimensions().end())) {
    return InvalidArgument("convolution: result shape ", result.ToString(),
                           " should have dimensions [", absl::StrJoin(expected, ","), "]");
  }
  ForEachIndex(p.win_size, [&](absl::Span<const int64_t> w) {
    int64_t off = 0;
    for (int64_t d = 0; d < spatial; ++d) {
      off += (attrs.window[d].window_reversal ? p.win_size[d] - 1 - w[d] : w[d]) * win_strides[d];
    }
    p.kernel_offsets.push_back(off);
  });
  return p;
}

// Result offset of output spatial index `s` (batch and feature zero).
int64_t OutputSpatialOffset(const ConvPlan& p, const std::vector<int64_t>& s) {
  return LinearIndex(s, p.out_sp_stride);
}

// One accumulation per output element, in the result's compute type.
template <PrimitiveType PT>
void GenericConvolution(const ConvPlan& p, const std::vector<NativeT<PT>>& a,
                        const std::vector<NativeT<PT>>& k, Literal& out) {
  using T = NativeT<PT>;
  uint8_t* data = out.mutable_raw_data().data();
  std::vector<int64_t> s(p.out_size.size()), offsets;
  for (int64_t pos = 0; pos < p.out_positions; ++pos) {
    p.WindowOffsets(pos, s, offsets);
    const int64_t out_sp = OutputSpatialOffset(p, s);
    for (int64_t b = 0; b < p.n_out; ++b) {
      for (int64_t o = 0; o < p.cout; ++o) {
        const int64_t base = p.LhsBase(b, o / p.cout_g);
        T acc{};
        for (int64_t w = 0; w < p.window_positions; ++w) {
          if (offsets[w] < 0) continue;
          const int64_t lhs_at = base + offsets[w];
          const int64_t rhs_at = p.kernel_offsets[w] + o * p.rhs_o_stride;
          for (int64_t iz = 0; iz < p.cin_g; ++iz) {
            acc = MulAdd<T>(acc, a[lhs_at + iz * p.lhs_f_stride], k[rhs_at + iz * p.rhs_i_stride]);
          }
        }
        StoreElement<PT>(data, b * p.out_b_stride + o * p.out_f_stride + out_sp, acc);
      }
    }
  }
}

// im2col: rows are (output batch, output position), columns (window
// position, input feature of the group); multiplied by the group's kernel
// matrix [window positions * cin_g, cout_g] with the blocked kernel, a chunk
// of rows at a time to bound the buffer; writes every result element to `out`.
void FastConvolution(const ConvPlan& p, const Literal& lhs, const Literal& rhs, float* out) {
  const uint8_t* a = lhs.raw_data().data();
  const uint8_t* k = rhs.raw_data().data();
  const int64_t depth = p.window_positions * p.cin_g;
  const int64_t rows = p.n_out * p.out_positions;
  const int64_t chunk = std::max<int64_t>(
      1, std::min<int64_t>(rows, (int64_t{1} << 21) / std::max<int64_t>(depth, 1)));
  Scratch weights_scratch(ScratchSlot::kLhs, depth * p.cout_g);
  Scratch patches_scratch(ScratchSlot::kRhs, chunk * depth);
  Scratch products_scratch(ScratchSlot::kProducts, chunk * p.cout_g);
  float* weights = weights_scratch.data();
  float* patches = patches_scratch.data();
  float* products = products_scratch.data();
  std::vector<int64_t> s(p.out_size.size()), offsets, row_out(chunk);
  for (int64_t g = 0; g < p.groups; ++g) {
    for (int64_t w = 0; w < p.window_positions; ++w) {
      for (int64_t iz = 0; iz < p.cin_g; ++iz) {
        for (int64_t ol = 0; ol < p.cout_g; ++ol) {
          weights[(w * p.cin_g + iz) * p.cout_g + ol] = F32At(
              k, p.kernel_offsets[w] + iz * p.rhs_i_stride + (g * p.cout_g + ol) * p.rhs_o_stride);
        }
      }
    }
    for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
      const int64_t n = std::min(chunk, rows - r0);
      for (int64_t r = 0; r < n; ++r) {
        const int64_t b = (r0 + r) / p.out_positions, pos = (r0 + r) % p.out_positions;
        p.WindowOffsets(pos, s, offsets);
        row_out[r] = b * p.out_b_stride + OutputSpatialOffset(p, s);
        const int64_t base = p.LhsBase(b, g);
        float* dst = patches + r * depth;
        for (int64_t w = 0; w < p.window_positions; ++w, dst += p.cin_g) {
          if (offsets[w] < 0) {
            std::fill(dst, dst + p.cin_g, 0.0f);
            continue;
          }
          const int64_t src = base + offsets[w];
          for (int64_t iz = 0; iz < p.cin_g; ++iz) dst[iz] = F32At(a, src + iz * p.lhs_f_stride);
        }
      }
      MatMulF32(n, depth, p.cout_g, patches, depth, weights, p.cout_g, products, p.cout_g);
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t ol = 0; ol < p.cout_g; ++ol) {
          out[row_out[r] + (g * p.cout_g + ol) * p.out_f_stride] = products[r * p.cout_g + ol];
        }
      }
    }
  }
}

absl::StatusOr<Literal> Convolution(const HloInstruction& inst, Operands operands, EvalContext&) {
  return EvaluateConvolution(*operands[0], *operands[1], inst.attrs<ConvolutionAttrs>(),
                             inst.shape());
}

}  // namespace

absl::StatusOr<Literal> EvaluateConvolution(const Literal& lhs, const Literal& rhs,
                                            const ConvolutionAttrs& attrs,
                                            const Shape& result_shape, bool allow_fast) {
  XLITE_ASSIGN_OR_RETURN(ConvPlan p,
                         PlanConvolution(lhs.shape(), rhs.shape(), attrs, result_shape));
  const PrimitiveType type = result_shape.element_type();
  if (allow_fast && ComputesInFloat(type)) {
    XLITE_ASSIGN_OR_RETURN(ConvertedOperand l, ConvertedOperand::MakeF32(lhs, type));
    XLITE_ASSIGN_OR_RETURN(ConvertedOperand r, ConvertedOperand::MakeF32(rhs, type));
    return FloatResult(result_shape,
                       [&](float* out) { FastConvolution(p, l.get(), r.get(), out); });
  }
  XLITE_ASSIGN_OR_RETURN(ConvertedOperand l, ConvertedOperand::Make(lhs, type));
  XLITE_ASSIGN_OR_RETURN(ConvertedOperand r, ConvertedOperand::Make(rhs, type));
  return DispatchArrayType(type, [&](auto tag) -> absl::StatusOr<Literal> {
    constexpr PrimitiveType PT = decltype(tag)::kType;
    Literal out(result_shape);
    GenericConvolution<PT>(p, LoadAll<PT>(l.get()), LoadAll<PT>(r.get()), out);
    return out;
  });
}

void RegisterConvolutionOps(OpHandlerTable& table) {
  table.Register(HloOpcode::kConvolution, Convolution);
}

}  // namespace xlite::eval
