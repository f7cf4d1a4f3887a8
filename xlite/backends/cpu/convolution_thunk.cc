// The oneDNN convolution thunk. Each XLA buffer is described to oneDNN in
// the logical order oneDNN expects (N,C,spatial for input and output;
// O,I,spatial or G,O/G,I/G,spatial for the kernel) with the strides of its
// dense row-major layout, which covers every dimension labelling. The
// primitive picks its own blocked formats (format_tag::any). The kernel is
// reordered into memory the thunk owns, once; input and output are
// reordered through the shared scratch unless their buffer already holds
// the primitive's format (ChainBlockedConvolutions). Primitive, reorders and
// scratchpad are made once here, so a run only points memories at buffers.
#include "xlite/backends/cpu/convolution_thunk.h"

#include <dlfcn.h>

#include <cstring>
#include <limits>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <unordered_map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xlite/backends/cpu/conv_fusion.h"
#include "xlite/backends/cpu/conv_post_ops.h"
#include "xlite/eval/index_util.h"
#include "xlite/ir/attributes.h"
#include "xlite/ir/computation.h"

namespace xlite::cpu {
namespace {

using dnnl::memory;

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

// An array the primitive reads or writes: `stored` is how its buffer holds
// it, `wanted` how the primitive takes it; when they differ, `primitive` is
// a copy in the shared scratch and `reorder` converts (buffer -> copy for
// inputs, the reverse for the output).
struct Operand {
  int64_t index = -1;  // among the instruction's operands; -1 for the output
  BufferRef ref;
  memory::desc stored, wanted;
  memory user, primitive;
  std::optional<dnnl::reorder> reorder;
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

// The eltwise post-op of each scalar ConvPostOpKind: algorithm, alpha, beta.
struct Eltwise {
  dnnl::algorithm algorithm;
  float alpha, beta;
};
std::optional<Eltwise> EltwiseOf(const ConvPostOp& op) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const auto value = static_cast<float>(op.value);
  switch (op.kind) {
    case ConvPostOpKind::kRelu:
      return Eltwise{dnnl::algorithm::eltwise_relu, 0, 0};
    case ConvPostOpKind::kClipBelow:
      return Eltwise{dnnl::algorithm::eltwise_clip, value, kInf};
    case ConvPostOpKind::kClipAbove:
      return Eltwise{dnnl::algorithm::eltwise_clip, -kInf, value};
    case ConvPostOpKind::kScale:
      return Eltwise{dnnl::algorithm::eltwise_linear, value, 0};
    case ConvPostOpKind::kShift:
      return Eltwise{dnnl::algorithm::eltwise_linear, 1, value};
    case ConvPostOpKind::kBias:
    case ConvPostOpKind::kSum:
      return std::nullopt;
  }
  return std::nullopt;
}

// The instruction's operand number of what the body reads at `x` (a fusion
// body's parameter), or `x`'s own operand number when there is no body.
int64_t OperandIndex(const HloInstruction& inst, const HloInstruction& conv,
                     const HloInstruction& x, int64_t conv_operand) {
  if (&inst == &conv) return conv_operand;
  return x.opcode() == HloOpcode::kParameter ? x.parameter_number() : -1;
}

class ConvolutionThunk : public Thunk {
 public:
  ConvolutionThunk(const HloInstruction& inst, dnnl::engine engine,
                   const dnnl::convolution_forward::primitive_desc& pd, Operand src,
                   Operand weights, Operand dst, std::optional<Operand> bias,
                   std::optional<Operand> sum, const uint8_t* constant_weights)
      : Thunk(inst),
        engine_(std::move(engine)),
        stream_(engine_),
        conv_(pd),
        scratchpad_(pd.scratchpad_desc(), engine_, nullptr),
        src_(std::move(src)),
        weights_(std::move(weights)),
        dst_(std::move(dst)),
        bias_(std::move(bias)),
        sum_(std::move(sum)) {
    Bind(src_, true);
    Bind(dst_, false);
    weights_.user = memory(weights_.stored, engine_, nullptr);
    if (weights_.stored == weights_.wanted) {
      weights_.primitive = weights_.user;
    } else {
      weights_.primitive = memory(weights_.wanted, engine_);  // owned, kept across calls
      weights_.reorder = dnnl::reorder(weights_.user, weights_.primitive);
      if (constant_weights != nullptr) {
        ReorderWeights(constant_weights);
        weights_fixed_ = true;
      }
    }
    if (bias_) bias_->user = bias_->primitive = memory(bias_->stored, engine_, nullptr);
    if (sum_) BindSum();
    BindArgs();
  }
  std::string_view kind() const override { return "conv"; }
  int64_t scratch_bytes() const override {
    int64_t bytes = Aligned(scratchpad_.get_desc().get_size());
    for (const Operand* op : {&src_, &dst_}) {
      if (op->reorder) bytes += Aligned(op->wanted.get_size());
    }
    return bytes;
  }

  // The output in the primitive's layout is no larger than the buffer.
  bool CanStoreOutputBlocked() const {
    return dst_.stored != dst_.wanted && dst_.wanted.get_size() <= dst_.stored.get_size();
  }
  const memory::desc& output_format() const { return dst_.wanted; }
  void StoreOutputBlocked() {
    dst_.stored = dst_.wanted;
    Bind(dst_, false);
  }
  // Whether operand `index` is read as the input or the summed array.
  bool ReadsAsArray(int64_t index) const {
    return src_.index == index || (sum_ && sum_->index == index);
  }
  // Operand `index` (ReadsAsArray) is stored in `format`.
  void SetStoredFormat(int64_t index, const memory::desc& format) {
    if (src_.index == index) {
      src_.stored = format;
      Bind(src_, true);
    }
    if (sum_ && sum_->index == index) {
      sum_->stored = format;
      BindSum();
    }
  }

  absl::Status Run(ThunkContext& ctx) override {
    SetOpenMpThreads(ctx.pool->size());
    try {
      // The converted copies and oneDNN's scratchpad live in the shared
      // scratch: convolutions run one at a time.
      uint8_t* scratch = ctx.scratch;
      for (Operand* op : {&src_, &dst_}) {
        op->user.set_data_handle(Resolve(op->ref, ctx.slots));
        if (op->reorder) {
          op->primitive.set_data_handle(scratch);
          scratch += Aligned(op->wanted.get_size());
        }
      }
      scratchpad_.set_data_handle(scratch);
      if (src_.reorder) src_.reorder->execute(stream_, src_.user, src_.primitive);
      if (weights_.reorder) {
        if (!weights_fixed_) ReorderWeightsIfChanged(Resolve(weights_.ref, ctx.slots));
      } else {
        weights_.user.set_data_handle(Resolve(weights_.ref, ctx.slots));
      }
      if (bias_) bias_->user.set_data_handle(Resolve(bias_->ref, ctx.slots));
      if (sum_) {
        // The sum post-op adds what the output memory holds.
        sum_->user.set_data_handle(Resolve(sum_->ref, ctx.slots));
        sum_->reorder->execute(stream_, sum_->user, dst_.primitive);
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
  // Makes `op`'s memories and reorder for its current `stored` format.
  void Bind(Operand& op, bool input) {
    op.user = memory(op.stored, engine_, nullptr);
    op.reorder.reset();
    if (op.stored == op.wanted) {
      op.primitive = op.user;
    } else {
      op.primitive = memory(op.wanted, engine_, nullptr);
      op.reorder =
          input ? dnnl::reorder(op.user, op.primitive) : dnnl::reorder(op.primitive, op.user);
    }
    BindArgs();
  }
  void BindSum() {
    sum_->user = memory(sum_->stored, engine_, nullptr);
    sum_->reorder = dnnl::reorder(sum_->user, memory(dst_.wanted, engine_, nullptr));
  }
  void BindArgs() {
    args_ = {{DNNL_ARG_SRC, src_.primitive},
             {DNNL_ARG_WEIGHTS, weights_.primitive},
             {DNNL_ARG_DST, dst_.primitive},
             {DNNL_ARG_SCRATCHPAD, scratchpad_}};
    if (bias_) args_[DNNL_ARG_BIAS] = bias_->primitive;
  }
  void ReorderWeights(const uint8_t* data) {
    weights_.user.set_data_handle(const_cast<uint8_t*>(data));
    weights_.reorder->execute(stream_, weights_.user, weights_.primitive);
    stream_.wait();
  }
  // The reordered kernel is kept with a copy of the bytes it came from; a
  // call whose kernel differs (another array, or the same buffer rewritten)
  // reorders again.
  void ReorderWeightsIfChanged(const uint8_t* data) {
    const size_t bytes = weights_.stored.get_size();
    if (weights_seen_.size() == bytes && std::memcmp(weights_seen_.data(), data, bytes) == 0) {
      return;
    }
    weights_seen_.assign(data, data + bytes);
    ReorderWeights(data);
  }

  dnnl::engine engine_;
  dnnl::stream stream_;
  dnnl::convolution_forward conv_;
  memory scratchpad_;
  Operand src_, weights_, dst_;
  std::optional<Operand> bias_, sum_;
  bool weights_fixed_ = false;
  std::vector<uint8_t> weights_seen_;
  std::unordered_map<int, memory> args_;
};

}  // namespace

std::unique_ptr<Thunk> MaybeMakeConvolutionThunk(const HloInstruction& inst, BufferRef out,
                                                 std::vector<BufferRef> operands,
                                                 const std::vector<const uint8_t*>& constant_data,
                                                 int threads) {
  const HloInstruction* fused = FusedConvolution(inst);
  const HloInstruction& conv = fused != nullptr ? *fused : inst;
  if (!IsOneDnnConvolution(conv)) return nullptr;
  const HloInstruction& last = fused != nullptr ? *inst.to_apply()->root_instruction() : conv;
  std::optional<std::vector<ConvPostOp>> ops = ConvPostOpChain(conv, last);
  if (!ops) return nullptr;
  SetOpenMpThreads(threads);
  const auto& attrs = conv.attrs<ConvolutionAttrs>();
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
  auto operand = [&](int64_t index) {
    Operand op;
    op.index = index;
    if (index >= 0 && index < static_cast<int64_t>(operands.size())) op.ref = operands[index];
    return op;
  };
  // Every oneDNN call throws dnnl::error when it refuses its arguments.
  try {
    Operand src = operand(OperandIndex(inst, conv, *conv.operand(0), 0));
    Operand weights = operand(OperandIndex(inst, conv, *conv.operand(1), 1));
    Operand dst = operand(-1);
    dst.ref = out;
    if (src.index < 0 || weights.index < 0) return nullptr;
    src.stored = DescOf(LayoutOf(input, dn.input_batch, dn.input_feature, dn.input_spatial));
    dst.stored =
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
    weights.stored = DescOf(kernel_layout);
    // The post-ops, in order; the bias and the summed array are operands.
    std::optional<Operand> bias, sum;
    dnnl::post_ops post_ops;
    for (const ConvPostOp& op : *ops) {
      if (op.kind == ConvPostOpKind::kBias || op.kind == ConvPostOpKind::kSum) {
        Operand read = operand(OperandIndex(inst, conv, *op.operand, -1));
        if (read.index < 0) return nullptr;
        if (op.kind == ConvPostOpKind::kBias) {
          read.stored = read.wanted = memory::desc({conv.shape().dimensions(dn.output_feature)},
                                                   memory::data_type::f32, memory::format_tag::a);
          bias = std::move(read);
        } else {
          read.stored = dst.stored;
          post_ops.append_sum(1.0f);
          sum = std::move(read);
        }
      } else if (std::optional<Eltwise> e = EltwiseOf(op)) {
        post_ops.append_eltwise(1.0f, e->algorithm, e->alpha, e->beta);
      }
    }
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    auto any = [](const memory::desc& desc) {
      return memory::desc(desc.dims(), memory::data_type::f32, memory::format_tag::any);
    };
    const auto prop = dnnl::prop_kind::forward_inference;
    const auto algorithm = dnnl::algorithm::convolution_direct;
    std::optional<dnnl::convolution_forward::desc> desc;
    if (bias) {
      desc.emplace(prop, algorithm, any(src.stored), any(weights.stored), bias->stored,
                   any(dst.stored), window_strides, dilates, padding_l, padding_r);
    } else {
      desc.emplace(prop, algorithm, any(src.stored), any(weights.stored), any(dst.stored),
                   window_strides, dilates, padding_l, padding_r);
    }
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    attr.set_post_ops(post_ops);
    dnnl::convolution_forward::primitive_desc pd(*desc, attr, engine);
    src.wanted = pd.src_desc();
    weights.wanted = pd.weights_desc();
    dst.wanted = pd.dst_desc();
    const uint8_t* constant_weights = weights.index < static_cast<int64_t>(constant_data.size())
                                          ? constant_data[weights.index]
                                          : nullptr;
    return std::make_unique<ConvolutionThunk>(inst, std::move(engine), pd, std::move(src),
                                              std::move(weights), std::move(dst), std::move(bias),
                                              std::move(sum), constant_weights);
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

void ChainBlockedConvolutions(absl::Span<const std::unique_ptr<Thunk>> thunks,
                              const HloInstruction& root) {
  absl::flat_hash_map<const HloInstruction*, ConvolutionThunk*> conv_of;
  for (const std::unique_ptr<Thunk>& thunk : thunks) {
    if (thunk->kind() == "conv") {
      conv_of[&thunk->instruction()] = static_cast<ConvolutionThunk*>(thunk.get());
    }
  }
  for (const std::unique_ptr<Thunk>& thunk : thunks) {
    if (thunk->kind() != "conv") continue;
    auto* producer = static_cast<ConvolutionThunk*>(thunk.get());
    const HloInstruction& inst = producer->instruction();
    if (&inst == &root || inst.user_count() == 0 || !producer->CanStoreOutputBlocked()) continue;
    bool only_convolutions = true;
    for (const HloInstruction* user : inst.users()) {
      auto found = conv_of.find(user);
      for (int64_t i = 0; only_convolutions && i < user->operand_count(); ++i) {
        only_convolutions =
            user->operand(i) != &inst || (found != conv_of.end() && found->second->ReadsAsArray(i));
      }
    }
    if (!only_convolutions) continue;
    producer->StoreOutputBlocked();
    for (const HloInstruction* user : inst.users()) {
      for (int64_t i = 0; i < user->operand_count(); ++i) {
        if (user->operand(i) == &inst) {
          conv_of[user]->SetStoredFormat(i, producer->output_format());
        }
      }
    }
  }
}

}  // namespace xlite::cpu
