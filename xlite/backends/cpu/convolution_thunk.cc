// The oneDNN convolution thunk. Each XLA buffer is described to oneDNN in
// the logical order oneDNN expects (N,C,spatial for input and output;
// O,I,spatial or G,O/G,I/G,spatial for the kernel) with the strides of its
// dense row-major layout, which covers every dimension labelling. The
// primitive picks its own blocked formats (format_tag::any); reorders
// to and from them, their intermediate buffers and the scratchpad are made
// once here, so a run only points the user memories at this call's buffers.
#include "xlite/backends/cpu/convolution_thunk.h"

#include <dlfcn.h>

#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xlite/eval/index_util.h"
#include "xlite/ir/attributes.h"

namespace xlite::cpu {
namespace {

using dnnl::memory;

// One operand or the result: the memory over the XLA buffer and, when the
// primitive wants another format, a buffer in that format (in the shared
// scratch, ThunkContext::scratch) and the reorder between the two (user ->
// primitive for inputs, the reverse for the output).
struct Operand {
  BufferRef ref;
  memory user;
  memory primitive;  // `user` itself when the formats agree
  std::optional<dnnl::reorder> reorder;
};

Operand MakeOperand(BufferRef ref, const memory::desc& user_desc,
                    const memory::desc& primitive_desc, const dnnl::engine& engine, bool input) {
  Operand op{ref, memory(user_desc, engine, nullptr), {}, std::nullopt};
  if (primitive_desc == user_desc) {
    op.primitive = op.user;
  } else {
    op.primitive = memory(primitive_desc, engine, nullptr);
    op.reorder =
        input ? dnnl::reorder(op.user, op.primitive) : dnnl::reorder(op.primitive, op.user);
  }
  return op;
}

int64_t Aligned(int64_t bytes) { return (bytes + 63) / 64 * 64; }

// oneDNN (Debian's build) parallelises with OpenMP: as many threads as the
// executable's pool. libgomp comes with libdnnl, so its omp_set_num_threads
// is looked up rather than linked (xlite itself is not built with OpenMP).
void SetOpenMpThreads(int threads) {
  using SetThreads = void (*)(int);
  static const auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  static thread_local int current = 0;
  if (set != nullptr && current != threads) {
    set(threads);
    current = threads;
  }
}

class ConvolutionThunk : public Thunk {
 public:
  ConvolutionThunk(const HloInstruction& inst, dnnl::engine engine,
                   const dnnl::convolution_forward::primitive_desc& pd, Operand src,
                   Operand weights, Operand dst)
      : Thunk(inst),
        engine_(std::move(engine)),
        stream_(engine_),
        conv_(pd),
        scratchpad_(pd.scratchpad_desc(), engine_, nullptr),
        src_(std::move(src)),
        weights_(std::move(weights)),
        dst_(std::move(dst)) {
    args_ = {{DNNL_ARG_SRC, src_.primitive},
             {DNNL_ARG_WEIGHTS, weights_.primitive},
             {DNNL_ARG_DST, dst_.primitive},
             {DNNL_ARG_SCRATCHPAD, scratchpad_}};
    for (Operand* op : {&src_, &weights_, &dst_}) {
      if (op->reorder) scratch_bytes_ += Aligned(op->primitive.get_desc().get_size());
    }
    scratch_bytes_ += Aligned(pd.scratchpad_desc().get_size());
  }
  std::string_view kind() const override { return "conv"; }
  int64_t scratch_bytes() const override { return scratch_bytes_; }
  absl::Status Run(ThunkContext& ctx) override {
    SetOpenMpThreads(ctx.pool->size());
    try {
      // The reordered copies and oneDNN's scratchpad live in the shared
      // scratch: convolutions run one at a time.
      uint8_t* scratch = ctx.scratch;
      for (Operand* op : {&src_, &weights_, &dst_}) {
        op->user.set_data_handle(Resolve(op->ref, ctx.slots));
        if (op->reorder) {
          op->primitive.set_data_handle(scratch);
          scratch += Aligned(op->primitive.get_desc().get_size());
        }
      }
      scratchpad_.set_data_handle(scratch);
      for (Operand* op : {&src_, &weights_}) {
        if (op->reorder) op->reorder->execute(stream_, op->user, op->primitive);
      }
      conv_.execute(stream_, args_);
      if (dst_.reorder) dst_.reorder->execute(stream_, dst_.primitive, dst_.user);
      stream_.wait();
    } catch (const dnnl::error& e) {
      return absl::InternalError(
          absl::StrCat("oneDNN convolution ", instruction().name(), ": ", e.what()));
    }
    return absl::OkStatus();
  }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::convolution_forward conv_;
  memory scratchpad_;
  Operand src_, weights_, dst_;
  std::unordered_map<int, memory> args_;
  int64_t scratch_bytes_ = 0;
};

// Sizes and strides of an array in oneDNN's logical dimension order.
struct Layout {
  memory::dims dims, strides;
};

// The row-major array `shape` seen with its dimensions in the order
// [a, b, spatial...].
Layout LayoutOf(const Shape& shape, int64_t a, int64_t b, const std::vector<int64_t>& spatial) {
  const std::vector<int64_t> strides = eval::RowMajorStrides(shape.dimensions());
  Layout layout{{shape.dimensions(a), shape.dimensions(b)}, {strides[a], strides[b]}};
  for (int64_t s : spatial) {
    layout.dims.push_back(shape.dimensions(s));
    layout.strides.push_back(strides[s]);
  }
  return layout;
}

memory::desc DescOf(const Layout& layout) {
  return memory::desc(layout.dims, memory::data_type::f32, layout.strides);
}

bool Supported(const HloInstruction& conv, const ConvolutionAttrs& attrs) {
  if (conv.operand_count() != 2) return false;
  for (const Shape* shape : {&conv.shape(), &conv.operand(0)->shape(), &conv.operand(1)->shape()}) {
    if (!shape->IsArray() || shape->element_type() != PrimitiveType::F32 || !shape->is_static() ||
        shape->ElementCount() == 0) {
      return false;
    }
  }
  const size_t spatial = attrs.dims.input_spatial.size();
  if (spatial < 1 || spatial > 3 || attrs.window.size() != spatial ||
      attrs.batch_group_count != 1) {
    return false;
  }
  // Feature groups as the verifier checks them, so that the grouped kernel
  // description below is exact.
  const int64_t groups = attrs.feature_group_count;
  const Shape& input = conv.operand(0)->shape();
  const Shape& kernel = conv.operand(1)->shape();
  if (groups < 1 || kernel.dimensions(attrs.dims.kernel_output_feature) % groups != 0 ||
      kernel.dimensions(attrs.dims.kernel_input_feature) * groups !=
          input.dimensions(attrs.dims.input_feature)) {
    return false;
  }
  for (const WindowDimension& w : attrs.window) {
    if (w.base_dilation != 1 || w.window_reversal || w.padding_low < 0 || w.padding_high < 0 ||
        w.stride < 1 || w.window_dilation < 1) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::unique_ptr<Thunk> MaybeMakeConvolutionThunk(const HloInstruction& conv, BufferRef out,
                                                 BufferRef lhs, BufferRef rhs, int threads) {
  const auto& attrs = conv.attrs<ConvolutionAttrs>();
  if (!Supported(conv, attrs)) return nullptr;
  SetOpenMpThreads(threads);
  const ConvDimensions& dn = attrs.dims;
  const Shape& input = conv.operand(0)->shape();
  const Shape& kernel = conv.operand(1)->shape();
  memory::dims window_strides, dilates, padding_l, padding_r;
  for (const WindowDimension& w : attrs.window) {
    window_strides.push_back(w.stride);
    dilates.push_back(w.window_dilation - 1);  // oneDNN counts the holes
    padding_l.push_back(w.padding_low);
    padding_r.push_back(w.padding_high);
  }
  // Every oneDNN call throws dnnl::error when it refuses its arguments.
  try {
    const memory::desc src =
        DescOf(LayoutOf(input, dn.input_batch, dn.input_feature, dn.input_spatial));
    const memory::desc dst =
        DescOf(LayoutOf(conv.shape(), dn.output_batch, dn.output_feature, dn.output_spatial));
    Layout kernel_layout =
        LayoutOf(kernel, dn.kernel_output_feature, dn.kernel_input_feature, dn.kernel_spatial);
    if (const int64_t groups = attrs.feature_group_count; groups > 1) {
      // Group g owns output features [g * O/G, (g + 1) * O/G) and the kernel's
      // input-feature dimension already has C/G entries: a leading group
      // dimension that steps over O/G output features.
      const int64_t per_group = kernel_layout.dims[0] / groups;
      kernel_layout.dims[0] = per_group;
      kernel_layout.dims.insert(kernel_layout.dims.begin(), groups);
      kernel_layout.strides.insert(kernel_layout.strides.begin(),
                                   kernel_layout.strides[0] * per_group);
    }
    const memory::desc weights = DescOf(kernel_layout);
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    auto any = [](const memory::desc& desc) {
      return memory::desc(desc.dims(), memory::data_type::f32, memory::format_tag::any);
    };
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, any(src),
        any(weights), any(dst), window_strides, dilates, padding_l, padding_r);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::convolution_forward::primitive_desc pd(desc, attr, engine);
    Operand src_op = MakeOperand(lhs, src, pd.src_desc(), engine, true);
    Operand weights_op = MakeOperand(rhs, weights, pd.weights_desc(), engine, true);
    Operand dst_op = MakeOperand(out, dst, pd.dst_desc(), engine, false);
    return std::make_unique<ConvolutionThunk>(conv, std::move(engine), pd, std::move(src_op),
                                              std::move(weights_op), std::move(dst_op));
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

}  // namespace xlite::cpu
