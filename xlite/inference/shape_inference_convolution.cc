// convolution: dimension labels, feature and batch group counts, window
// (dilations, negative padding) and the output shape.
#include "xlite/inference/shape_inference_internal.h"

namespace xlite::inference {
namespace {

// The role dimensions of one operand: batch/feature then spatial, which must
// be distinct and in range of `rank` (= 2 + spatial count).
absl::Status CheckLabels(int64_t a, int64_t b, const std::vector<int64_t>& spatial, int64_t rank,
                         absl::string_view what) {
  std::vector<int64_t> all = {a, b};
  all.insert(all.end(), spatial.begin(), spatial.end());
  if (static_cast<int64_t>(all.size()) != rank) {
    return InvalidArgument(what, " has rank ", rank, " but the dim_labels name ", all.size(),
                           " dimensions");
  }
  return CheckDimensionList(all, rank, what, false);
}

}  // namespace

absl::StatusOr<Shape> InferConvolution(const HloInstruction& inst) {
  const Shape& lhs = OperandShape(inst, 0);
  const Shape& rhs = OperandShape(inst, 1);
  const auto& a = inst.attrs<ConvolutionAttrs>();
  const ConvDimensions& d = a.dims;
  XLITE_RETURN_IF_ERROR(ExpectArray(lhs, "convolution input"));
  XLITE_RETURN_IF_ERROR(ExpectArray(rhs, "convolution kernel"));
  size_t spatial = d.input_spatial.size();
  if (d.kernel_spatial.size() != spatial || d.output_spatial.size() != spatial) {
    return InvalidArgument(
        "dim_labels must name as many spatial dimensions for input, kernel "
        "and output");
  }
  if (a.window.size() != spatial) {
    return InvalidArgument("window has ", a.window.size(), " dimensions, the convolution has ",
                           spatial, " spatial dimensions");
  }
  XLITE_RETURN_IF_ERROR(
      CheckLabels(d.input_batch, d.input_feature, d.input_spatial, lhs.rank(), "input"));
  XLITE_RETURN_IF_ERROR(CheckLabels(d.kernel_input_feature, d.kernel_output_feature,
                                    d.kernel_spatial, rhs.rank(), "kernel"));
  int64_t fgc = a.feature_group_count, bgc = a.batch_group_count;
  if (fgc < 1 || bgc < 1 || (fgc > 1 && bgc > 1)) {
    return InvalidArgument("feature_group_count=", fgc, " and batch_group_count=", bgc,
                           " must be positive and not both above 1");
  }
  int64_t in_batch = lhs.dimensions(d.input_batch);
  int64_t in_feature = lhs.dimensions(d.input_feature);
  int64_t k_in = rhs.dimensions(d.kernel_input_feature);
  int64_t k_out = rhs.dimensions(d.kernel_output_feature);
  if (in_feature % fgc != 0 || k_in * fgc != in_feature) {
    return InvalidArgument("input feature size ", in_feature,
                           " must equal kernel input "
                           "feature size ",
                           k_in, " times feature_group_count ", fgc);
  }
  if (k_out % fgc != 0) {
    return InvalidArgument("kernel output feature size ", k_out,
                           " must be divisible by feature_group_count ", fgc);
  }
  if (in_batch % bgc != 0 || k_out % bgc != 0) {
    return InvalidArgument("input batch ", in_batch, " and kernel output features ", k_out,
                           " must be divisible by batch_group_count ", bgc);
  }
  int64_t out_rank = 2 + static_cast<int64_t>(spatial);
  XLITE_RETURN_IF_ERROR(
      CheckLabels(d.output_batch, d.output_feature, d.output_spatial, out_rank, "output"));
  DimVector dims(out_rank);
  dims[d.output_batch] = in_batch / bgc;
  dims[d.output_feature] = k_out;
  for (size_t i = 0; i < spatial; ++i) {
    const WindowDimension& w = a.window[i];
    XLITE_RETURN_IF_ERROR(CheckWindowDimension(w, i));
    if (w.size != rhs.dimensions(d.kernel_spatial[i])) {
      return InvalidArgument("window size ", w.size, " of spatial dimension ", i,
                             " must equal the kernel's ", rhs.dimensions(d.kernel_spatial[i]));
    }
    XLITE_ASSIGN_OR_RETURN(dims[d.output_spatial[i]],
                           WindowOutputSize(lhs.dimensions(d.input_spatial[i]), w, true));
  }
  PrimitiveType t = inst.shape().IsArray() ? inst.shape().element_type() : lhs.element_type();
  return Shape(t, dims);
}

}  // namespace xlite::inference
