// Host measurements for `xlite calibrate` (see host_calibration.h). Each
// figure is the best of a few repetitions: the machine may be shared, and the
// best run is the closest to what the hardware can do.
#include "xlite/tools/host_calibration.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace xlite::tools {
namespace {

using Clock = std::chrono::steady_clock;

// Twelve independent chains: enough to cover FMA latency x ports.
constexpr int kChains = 12;

// Each kernel returns the flops it did; `sink` keeps the result alive. One
// macro writes the four x86 variants (the intrinsics differ only in name, and
// each function needs its own target attribute).
#if defined(__x86_64__)
#define XLITE_FMA_KERNEL(name, isa, vec, scalar, lanes, set1, fmadd, add, store)           \
  __attribute__((target(isa))) double name(int64_t iters, float* sink) {                   \
    vec acc[kChains];                                                                      \
    for (int k = 0; k < kChains; ++k) acc[k] = set1(scalar(1) + scalar(k) * scalar(1e-3)); \
    const vec m = set1(scalar(0.9999999)), a = set1(scalar(1e-7));                         \
    for (int64_t i = 0; i < iters; ++i) {                                                  \
      for (int k = 0; k < kChains; ++k) acc[k] = fmadd(acc[k], m, a);                      \
    }                                                                                      \
    for (int k = 1; k < kChains; ++k) acc[0] = add(acc[0], acc[k]);                        \
    alignas(64) scalar out[lanes];                                                         \
    store(out, acc[0]);                                                                    \
    for (scalar v : out) *sink += static_cast<float>(v);                                   \
    return 2.0 * lanes * kChains * static_cast<double>(iters);                             \
  }
XLITE_FMA_KERNEL(FmaAvx512F32, "avx512f", __m512, float, 16, _mm512_set1_ps, _mm512_fmadd_ps,
                 _mm512_add_ps, _mm512_store_ps)
XLITE_FMA_KERNEL(FmaAvx512F64, "avx512f", __m512d, double, 8, _mm512_set1_pd, _mm512_fmadd_pd,
                 _mm512_add_pd, _mm512_store_pd)
XLITE_FMA_KERNEL(FmaAvx2F32, "avx2,fma", __m256, float, 8, _mm256_set1_ps, _mm256_fmadd_ps,
                 _mm256_add_ps, _mm256_store_ps)
XLITE_FMA_KERNEL(FmaAvx2F64, "avx2,fma", __m256d, double, 4, _mm256_set1_pd, _mm256_fmadd_pd,
                 _mm256_add_pd, _mm256_store_pd)
#undef XLITE_FMA_KERNEL
#endif

// Portable fallback: a multiply and an add per step (2 flops).
template <typename T>
double FmaScalar(int64_t iters, float* sink) {
  T acc[kChains];
  for (int k = 0; k < kChains; ++k) acc[k] = T(1) + T(k) * T(1e-3);
  const T m = T(0.9999999), a = T(1e-7);
  for (int64_t i = 0; i < iters; ++i) {
    for (int k = 0; k < kChains; ++k) acc[k] = acc[k] * m + a;
  }
  for (int k = 0; k < kChains; ++k) *sink += static_cast<float>(acc[k]);
  return 2.0 * kChains * static_cast<double>(iters);
}

using Kernel = double (*)(int64_t, float*);

struct Kernels {
  std::string isa;
  Kernel f32;
  Kernel f64;
};

Kernels PickKernels() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {"avx512f", FmaAvx512F32, FmaAvx512F64};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return {"avx2+fma", FmaAvx2F32, FmaAvx2F64};
  }
#endif
  return {"scalar", FmaScalar<float>, FmaScalar<double>};
}

// Runs `work(thread index)` on `threads` threads; returns the wall time.
double RunOnThreads(int threads, const std::function<void(int)>& work) {
  std::vector<std::thread> pool;
  const auto start = Clock::now();
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (std::thread& thread : pool) thread.join();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Best rate (units per second) of `reps` runs of a kernel on every thread.
double BestKernelRate(Kernel kernel, int threads, int64_t iters, int reps) {
  double best = 0;
  std::vector<float> sinks(threads * 16, 0);
  for (int r = 0; r < reps; ++r) {
    std::vector<double> done(threads, 0);
    const double seconds =
        RunOnThreads(threads, [&](int t) { done[t] = kernel(iters, &sinks[t * 16]); });
    double total = 0;
    for (double d : done) total += d;
    if (seconds > 0) best = std::max(best, total / seconds);
  }
  return best;
}

// Iterations that take about `target` seconds on one thread.
int64_t IterationsFor(Kernel kernel, double target) {
  float sink = 0;
  int64_t iters = 1 << 12;
  for (;;) {
    const auto start = Clock::now();
    kernel(iters, &sink);
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    if (s > target / 8 || iters > (int64_t{1} << 40)) {
      return std::max<int64_t>(1, static_cast<int64_t>(iters * target / std::max(s, 1e-9)));
    }
    iters *= 4;
  }
}

double ExpKernel(int64_t iters, float* sink) {
  float x[256];
  for (int i = 0; i < 256; ++i) x[i] = -4.0f + i * (8.0f / 256);
  float total = 0;
  for (int64_t i = 0; i < iters; ++i) {
    for (int j = 0; j < 256; ++j) total += std::exp(x[j]);
    x[i & 255] += 1e-7f;  // keeps the loop from being hoisted
  }
  *sink += total;
  return 256.0 * static_cast<double>(iters);
}

struct Stream {
  std::unique_ptr<double[]> a, b, c;
  int64_t n = 0;
};

// Best bytes/second of `reps` passes of `body(begin, end)` split over threads.
double BestStreamRate(Stream& s, int threads, double bytes_per_element, int reps,
                      void (*body)(Stream&, int64_t, int64_t)) {
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    const double seconds = RunOnThreads(threads, [&](int t) {
      const int64_t begin = s.n * t / threads, end = s.n * (t + 1) / threads;
      body(s, begin, end);
    });
    if (seconds > 0) best = std::max(best, bytes_per_element * static_cast<double>(s.n) / seconds);
  }
  return best;
}

double ThreadHandoffSeconds() {
  std::atomic<int> turn{0};
  constexpr int kRounds = 2000;
  std::thread other([&] {
    for (int i = 0; i < kRounds; ++i) {
      while (turn.load(std::memory_order_acquire) != 1) std::this_thread::yield();
      turn.store(0, std::memory_order_release);
    }
  });
  const auto start = Clock::now();
  for (int i = 0; i < kRounds; ++i) {
    turn.store(1, std::memory_order_release);
    while (turn.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  other.join();
  return seconds / (2.0 * kRounds);
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

}  // namespace

HostMeasurement MeasureHost(const CalibrationOptions& options) {
  HostMeasurement m;
  m.threads =
      options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const Kernels kernels = PickKernels();
  m.vector_isa = kernels.isa;
  m.f32_flops_per_second =
      BestKernelRate(kernels.f32, m.threads, IterationsFor(kernels.f32, 0.1), 3);
  m.f64_flops_per_second =
      BestKernelRate(kernels.f64, m.threads, IterationsFor(kernels.f64, 0.1), 3);
  m.exp_per_second = BestKernelRate(ExpKernel, m.threads, IterationsFor(ExpKernel, 0.1), 3);

  Stream s;
  s.n = std::max<int64_t>(1024, options.array_bytes / static_cast<int64_t>(sizeof(double)));
  s.a.reset(new double[s.n]);
  s.b.reset(new double[s.n]);
  s.c.reset(new double[s.n]);
  // First touch from the threads that will use each part (NUMA placement).
  RunOnThreads(m.threads, [&](int t) {
    for (int64_t i = s.n * t / m.threads; i < s.n * (t + 1) / m.threads; ++i) {
      s.a[i] = 1.0;
      s.b[i] = 2.0;
      s.c[i] = 0.5;
    }
  });
  // STREAM's counting: copy moves 16 bytes per element, triad 24.
  m.copy_bytes_per_second =
      BestStreamRate(s, m.threads, 16, 5, [](Stream& s, int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) s.c[i] = s.a[i];
      });
  m.triad_bytes_per_second =
      BestStreamRate(s, m.threads, 24, 5, [](Stream& s, int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) s.a[i] = s.b[i] + 3.0 * s.c[i];
      });
  m.thread_handoff_seconds = ThreadHandoffSeconds();
  m.memory_bytes =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  return m;
}

DeviceSpec HostSpecFromMeasurement(const HostMeasurement& m) {
  DeviceSpec spec;
  spec.name = "host";
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  spec.description = absl::StrFormat("%s, %d threads, measured by xlite calibrate on %s",
                                     CpuModel(), m.threads, date);
  // CPUs compute bf16/f16/f8 and integer dots through f32-wide lanes, so they
  // get the f32 peak; f64 has its own.
  spec.peak_flops_per_second = {{"f64", m.f64_flops_per_second}, {"f32", m.f32_flops_per_second}};
  spec.transcendentals_per_second = m.exp_per_second;
  spec.memory_bandwidth_bytes_per_second = m.triad_bytes_per_second;
  spec.memory_bytes = m.memory_bytes;
  spec.interconnect_bandwidth_bytes_per_second = m.copy_bytes_per_second;
  spec.interconnect_latency_seconds = m.thread_handoff_seconds;
  spec.sources = {
      {"peak_flops_per_second",
       absl::StrFormat("measured: %d independent %s multiply-add chains per thread on %d "
                       "threads, best of 3; other types fall back to f32",
                       kChains, m.vector_isa, m.threads)},
      {"transcendentals_per_second", "measured: std::exp over floats on every thread, best of 3"},
      {"memory_bandwidth_bytes_per_second",
       "measured: STREAM-like triad a = b + s*c over three arrays, 24 bytes per element, "
       "best of 5"},
      {"memory_bytes", "sysconf(_SC_PHYS_PAGES) x page size"},
      {"interconnect_bandwidth_bytes_per_second",
       "measured: STREAM-like copy (devices on one host exchange data through memory)"},
      {"interconnect_latency_seconds", "measured: one-way handoff between two threads"},
  };
  return spec;
}

}  // namespace xlite::tools
