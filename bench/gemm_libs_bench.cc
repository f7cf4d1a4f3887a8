// f32 GEMM throughput of every GEMM library found on the host, on the dot shapes of the
// shared workloads (../shared/bench/mlp.hlo, transformer_block.hlo) and the 4096^3 dot, 2
// threads each. CBLAS libraries (OpenBLAS, BLIS) are opened at run time with dlopen, each in
// its own symbol scope, since both export cblas_sgemm; oneDNN and libxsmm are linked when
// CMake found them. A library that is missing is named on stderr and in the context block.
#include <benchmark/benchmark.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#ifdef XLITE_HAVE_DNNL
#include <oneapi/dnnl/dnnl.hpp>
#endif
#ifdef XLITE_HAVE_XSMM
#include <libxsmm.h>
#endif

namespace {

constexpr int kThreads = 2;

// One dot: row-major C[batch][m][n] = A[batch][m][k] * B, B stored [batch][k][n], or
// [batch][n][k] and used transposed when transpose_b (an F.linear weight, q*k^T).
struct GemmShape {
  const char* workload;
  const char* name;
  const char* shape_class;
  int batch, m, n, k;
  bool transpose_b;
};

constexpr GemmShape kShapes[] = {
    {"mlp", "fc1", "mlp", 1, 256, 4096, 1024, true},
    {"mlp", "fc2", "mlp", 1, 256, 1024, 4096, true},
    {"transformer_block", "qkv", "projection", 1, 512, 2304, 768, true},
    {"transformer_block", "attn_out", "projection", 1, 512, 768, 768, true},
    {"transformer_block", "fc1", "projection", 1, 512, 3072, 768, true},
    {"transformer_block", "fc2", "projection", 1, 512, 768, 3072, true},
    {"transformer_block", "scores", "attention", 12, 512, 512, 64, true},
    {"transformer_block", "context", "attention", 12, 512, 64, 512, false},
    {"square", "4096", "square", 1, 4096, 4096, 4096, false},
};

struct Operands {
  std::vector<float> a, b, c;
  explicit Operands(const GemmShape& s)
      : a(size_t(s.batch) * s.m * s.k),
        b(size_t(s.batch) * s.k * s.n),
        c(size_t(s.batch) * s.m * s.n) {
    std::mt19937 rng(0);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (float& x : a) x = value(rng);
    for (float& x : b) x = value(rng);
  }
};

// Runs `call` (C = A*B once) as one benchmark and reports GFLOP/s. Two untimed calls first:
// libxsmm generates its kernels and BLIS fills its packing-buffer pool on the first call, and a
// 4096^3 benchmark may time a single iteration.
void RunGemm(benchmark::State& state, const GemmShape& s, const std::function<void()>& call) {
  call();
  call();
  for (auto _ : state) call();
  const double flops = 2.0 * s.batch * s.m * s.n * s.k;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void Register(const std::string& library, const GemmShape& s,
              std::function<std::function<void()>(Operands&)> make) {
  const std::string name = library + "/" + s.workload + "." + s.name + "/" + s.shape_class + "/" +
                           std::to_string(s.batch) + "x" + std::to_string(s.m) + "x" +
                           std::to_string(s.n) + "x" + std::to_string(s.k) +
                           (s.transpose_b ? "/nt" : "/nn");
  benchmark::RegisterBenchmark(name.c_str(),
                               [s, make](benchmark::State& state) {
                                 Operands operands(s);
                                 RunGemm(state, s, make(operands));
                               })
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

// cblas_sgemm with 32-bit integers (CblasRowMajor = 101, CblasNoTrans = 111, CblasTrans = 112).
using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                            int, float, float*, int);

// Registers cblas_sgemm of the shared library `soname`, or says why it cannot.
void RegisterCblas(const std::string& library, const char* soname, const char* set_threads,
                   const char* int_size, std::vector<std::string>& missing) {
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  auto sgemm = handle ? reinterpret_cast<CblasSgemm>(dlsym(handle, "cblas_sgemm")) : nullptr;
  if (sgemm == nullptr) {
    missing.push_back(library + " (" + soname + ": " + (handle ? "no cblas_sgemm" : dlerror()) +
                      ")");
    return;
  }
  if (int_size != nullptr) {
    auto size = reinterpret_cast<int64_t (*)()>(dlsym(handle, int_size));
    if (size == nullptr || size() != 32) {
      missing.push_back(library + " (its BLAS integers are not 32-bit)");
      return;
    }
  }
  if (auto threads = reinterpret_cast<void (*)(int)>(dlsym(handle, set_threads))) {
    threads(kThreads);
  }
  for (const GemmShape& s : kShapes) {
    Register(library, s, [s, sgemm](Operands& o) -> std::function<void()> {
      return [s, sgemm, &o] {
        const int ldb = s.transpose_b ? s.k : s.n;
        for (int i = 0; i < s.batch; ++i) {
          sgemm(101, 111, s.transpose_b ? 112 : 111, s.m, s.n, s.k, 1.0f,
                o.a.data() + size_t(i) * s.m * s.k, s.k, o.b.data() + size_t(i) * s.k * s.n, ldb,
                0.0f, o.c.data() + size_t(i) * s.m * s.n, s.n);
        }
      };
    });
  }
}

#ifdef XLITE_HAVE_DNNL
// oneDNN matmul: one primitive per shape (batched dots are one call), B's transpose given as
// strides so that no operand is copied.
void RegisterOneDnn() {
  using dnnl::memory;
  for (const GemmShape& s : kShapes) {
    Register("onednn", s, [s](Operands& o) -> std::function<void()> {
      static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
      static dnnl::stream stream(engine);
      const memory::dims a_dims = {s.batch, s.m, s.k}, b_dims = {s.batch, s.k, s.n},
                         c_dims = {s.batch, s.m, s.n};
      const memory::dims b_strides = s.transpose_b ? memory::dims{int64_t(s.k) * s.n, 1, s.k}
                                                   : memory::dims{int64_t(s.k) * s.n, s.n, 1};
      memory::desc a_desc(a_dims, memory::data_type::f32, memory::format_tag::abc);
      memory::desc b_desc(b_dims, memory::data_type::f32, b_strides);
      memory::desc c_desc(c_dims, memory::data_type::f32, memory::format_tag::abc);
      auto primitive = std::make_shared<dnnl::matmul>(
          dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_desc, b_desc, c_desc), engine));
      auto args = std::make_shared<std::unordered_map<int, memory>>(
          std::unordered_map<int, memory>{{DNNL_ARG_SRC, memory(a_desc, engine, o.a.data())},
                                          {DNNL_ARG_WEIGHTS, memory(b_desc, engine, o.b.data())},
                                          {DNNL_ARG_DST, memory(c_desc, engine, o.c.data())}});
      return [primitive, args] {
        primitive->execute(stream, *args);
        stream.wait();
      };
    });
  }
}
#endif

#ifdef XLITE_HAVE_XSMM
// libxsmm's OpenMP GEMM (libxsmmext, tiles of its JIT kernels), column-major: row-major
// C = A*B is column-major C^T = B^T*A^T, so B is passed first.
void RegisterXsmm() {
  libxsmm_init();
  for (const GemmShape& s : kShapes) {
    Register("libxsmm", s, [s](Operands& o) -> std::function<void()> {
      return [s, &o] {
        const char transa = s.transpose_b ? 'T' : 'N', transb = 'N';
        const libxsmm_blasint m = s.n, n = s.m, k = s.k, lda = s.transpose_b ? s.k : s.n, ldb = s.k,
                              ldc = s.n;
        const float alpha = 1.0f, beta = 0.0f;
        for (int i = 0; i < s.batch; ++i) {
          libxsmm_sgemm_omp(&transa, &transb, &m, &n, &k, &alpha,
                            o.b.data() + size_t(i) * s.k * s.n, &lda,
                            o.a.data() + size_t(i) * s.m * s.k, &ldb, &beta,
                            o.c.data() + size_t(i) * s.m * s.n, &ldc);
        }
      };
    });
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
#ifdef _OPENMP
  omp_set_num_threads(kThreads);
#endif
  std::vector<std::string> missing;
  RegisterCblas("openblas", "libopenblas.so.0", "openblas_set_num_threads", nullptr, missing);
  RegisterCblas("blis", "libblis.so.4", "bli_thread_set_num_threads",
                "bli_info_get_blas_int_type_size", missing);
#ifdef XLITE_HAVE_DNNL
  RegisterOneDnn();
#else
  missing.push_back("onednn (not found at build time: libdnnl-dev)");
#endif
#ifdef XLITE_HAVE_XSMM
  RegisterXsmm();
#else
  missing.push_back("libxsmm (not found at build time: libxsmm-dev)");
#endif
  std::string missing_text;
  for (const std::string& m : missing) {
    std::fprintf(stderr, "gemm_libs_bench: missing %s\n", m.c_str());
    missing_text += (missing_text.empty() ? "" : "; ") + m;
  }
  benchmark::AddCustomContext("threads per library", std::to_string(kThreads));
  if (!missing_text.empty()) benchmark::AddCustomContext("missing", missing_text);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
