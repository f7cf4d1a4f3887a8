// oneDNN's f32 convolution on the conv block's shape (../shared/bench/conv_block.hlo: x[8,64,56,56]
// NCHW, 3x3 OIHW [64,64,3,3] weights, pad 1) with the block's fused post-ops: bias + relu (conv1)
// and bias + residual sum + relu (conv2). Three layouts: NCHW in and out (weights in oneDNN's
// own layout, reordered once), oneDNN's blocked layouts throughout (the floor), and blocked
// with the NCHW reorders in and out on every call (what a library call on NCHW buffers pays).
#include <benchmark/benchmark.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using dnnl::memory;

constexpr int64_t kN = 8, kC = 64, kH = 56, kW = 56, kO = 64, kK = 3, kPad = 1;

enum class Layout { kNchw, kBlocked, kBlockedWithReorders };

std::vector<float> Random(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> out(count);
  for (float& x : out) x = value(rng);
  return out;
}

void Convolution(benchmark::State& state, Layout layout, bool residual) {
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const memory::dims src_dims = {kN, kC, kH, kW}, weights_dims = {kO, kC, kK, kK},
                     dst_dims = {kN, kO, kH, kW}, bias_dims = {kO};
  std::vector<float> src = Random(kN * kC * kH * kW, 0), weights = Random(kO * kC * kK * kK, 1),
                     bias = Random(kO, 2), dst = Random(kN * kO * kH * kW, 3);
  const memory::desc user_src(src_dims, memory::data_type::f32, memory::format_tag::nchw);
  const memory::desc user_weights(weights_dims, memory::data_type::f32, memory::format_tag::oihw);
  const memory::desc user_dst(dst_dims, memory::data_type::f32, memory::format_tag::nchw);
  const memory::desc bias_desc(bias_dims, memory::data_type::f32, memory::format_tag::a);
  auto any = [](const memory::dims& dims) {
    return memory::desc(dims, memory::data_type::f32, memory::format_tag::any);
  };
  const bool plain = layout == Layout::kNchw;
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      plain ? user_src : any(src_dims), any(weights_dims), bias_desc,
      plain ? user_dst : any(dst_dims), {1, 1}, {kPad, kPad}, {kPad, kPad});
  dnnl::post_ops post_ops;
  if (residual) post_ops.append_sum(1.0f);
  post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(post_ops);
  dnnl::convolution_forward::primitive_desc pd(desc, attr, engine);

  memory user_src_mem(user_src, engine, src.data()), user_dst_mem(user_dst, engine, dst.data());
  memory user_weights_mem(user_weights, engine, weights.data());
  memory weights_mem(pd.weights_desc(), engine), src_mem(pd.src_desc(), engine);
  memory dst_mem(pd.dst_desc(), engine);
  dnnl::reorder(user_weights_mem, weights_mem).execute(stream, user_weights_mem, weights_mem);
  dnnl::reorder(user_src_mem, src_mem).execute(stream, user_src_mem, src_mem);
  dnnl::reorder(user_dst_mem, dst_mem).execute(stream, user_dst_mem, dst_mem);
  dnnl::reorder src_in(user_src_mem, src_mem), dst_in(user_dst_mem, dst_mem),
      dst_out(dst_mem, user_dst_mem);
  dnnl::convolution_forward conv(pd);
  const std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, src_mem},
      {DNNL_ARG_WEIGHTS, weights_mem},
      {DNNL_ARG_BIAS, memory(bias_desc, engine, bias.data())},
      {DNNL_ARG_DST, dst_mem}};
  // Untimed calls first, so that a benchmark timing few iterations does not time the first.
  for (int i = 0; i < 2; ++i) conv.execute(stream, args);
  stream.wait();
  for (auto _ : state) {
    if (layout == Layout::kBlockedWithReorders) {
      src_in.execute(stream, user_src_mem, src_mem);
      // The residual lives in the NCHW output buffer: it enters the blocked one first.
      if (residual) dst_in.execute(stream, user_dst_mem, dst_mem);
    }
    conv.execute(stream, args);
    if (layout == Layout::kBlockedWithReorders) dst_out.execute(stream, dst_mem, user_dst_mem);
    stream.wait();
  }
  const double flops = 2.0 * kN * kO * kH * kW * kC * kK * kK;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(pd.impl_info_str());
}

}  // namespace

int main(int argc, char** argv) {
#ifdef _OPENMP
  omp_set_num_threads(2);
#endif
  const std::pair<const char*, Layout> layouts[] = {
      {"nchw", Layout::kNchw},
      {"blocked", Layout::kBlocked},
      {"blocked_reorders", Layout::kBlockedWithReorders}};
  for (const auto& [layout_name, layout] : layouts) {
    for (const bool residual : {false, true}) {
      const std::string name = std::string("onednn/conv_block.") +
                               (residual ? "conv2_bias_sum_relu" : "conv1_bias_relu") + "/" +
                               layout_name + "/8x64x56x56_k3x3_o64_pad1";
      benchmark::RegisterBenchmark(
          name.c_str(),
          [layout, residual](benchmark::State& state) { Convolution(state, layout, residual); })
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::AddCustomContext("threads", "2 (OpenMP)");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
