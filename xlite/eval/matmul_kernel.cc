// The evaluator's one f32 matrix-multiply kernel (dot and convolution both
// reduce to it). No BLAS: the oracle must build everywhere, so this is a
// plain cache-blocked loop nest whose inner 4x8 register tile is written with
// GCC/Clang vector extensions, giving SIMD code at -O2 without -march flags.
#include <algorithm>
#include <cstring>
#include <vector>

#include "xlite/eval/linalg_internal.h"

namespace xlite::eval {
namespace {

// Four floats: one SSE/NEON register on every target we build for.
typedef float V4 __attribute__((vector_size(16)));

constexpr int64_t kMr = 4;    // rows of c per register tile
constexpr int64_t kNr = 8;    // columns of c per register tile (two V4)
constexpr int64_t kKc = 256;  // depth of one packed block of b (a panel stays in L1)
constexpr int64_t kNc = 512;  // columns of one packed block of b (the block stays in L2)
constexpr int64_t kMc = 64;   // rows of a streamed against one block of b

inline V4 LoadV4(const float* p) {
  V4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void StoreV4(float* p, V4 v) { std::memcpy(p, &v, sizeof(v)); }

// c[kRows, cols] += a[kRows, kc] * panel[kc, kNr] (panel packed row by row,
// zero-padded past `cols`).
template <int kRows>
void Tile(int64_t kc, const float* a, int64_t lda, const float* panel, float* c, int64_t ldc,
          int64_t cols) {
  V4 acc[kRows][2] = {};
  for (int64_t p = 0; p < kc; ++p) {
    V4 b0 = LoadV4(panel + p * kNr);
    V4 b1 = LoadV4(panel + p * kNr + 4);
    for (int r = 0; r < kRows; ++r) {
      float av = a[r * lda + p];
      acc[r][0] += b0 * av;
      acc[r][1] += b1 * av;
    }
  }
  for (int r = 0; r < kRows; ++r) {
    float* row = c + r * ldc;
    if (cols == kNr) {
      StoreV4(row, LoadV4(row) + acc[r][0]);
      StoreV4(row + 4, LoadV4(row + 4) + acc[r][1]);
    } else {
      float tmp[kNr];
      std::memcpy(tmp, &acc[r][0], sizeof(V4));
      std::memcpy(tmp + 4, &acc[r][1], sizeof(V4));
      for (int64_t j = 0; j < cols; ++j) row[j] += tmp[j];
    }
  }
}

using TileFn = void (*)(int64_t, const float*, int64_t, const float*, float*, int64_t, int64_t);
constexpr TileFn kTiles[kMr + 1] = {nullptr, Tile<1>, Tile<2>, Tile<3>, Tile<4>};

}  // namespace

void MatMulF32(int64_t m, int64_t k, int64_t n, const float* a, int64_t lda, const float* b,
               int64_t ldb, float* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
  Scratch packed(ScratchSlot::kPackedB,
                 std::min(kKc, k) * ((std::min(kNc, n) + kNr - 1) / kNr) * kNr);
  for (int64_t k0 = 0; k0 < k; k0 += kKc) {
    const int64_t kc = std::min(kKc, k - k0);
    for (int64_t n0 = 0; n0 < n; n0 += kNc) {
      const int64_t nc = std::min(kNc, n - n0);
      const int64_t panels = (nc + kNr - 1) / kNr;
      // Pack b[k0:k0+kc, n0:n0+nc] as panels of kNr columns, each kc rows
      // contiguous, so the inner loop reads b sequentially.
      std::fill(packed.data(), packed.data() + panels * kc * kNr, 0.0f);
      for (int64_t p = 0; p < kc; ++p) {
        const float* src = b + (k0 + p) * ldb + n0;
        for (int64_t j = 0; j < nc; ++j)
          packed.data()[((j / kNr) * kc + p) * kNr + j % kNr] = src[j];
      }
      for (int64_t i0 = 0; i0 < m; i0 += kMc) {
        const int64_t mc = std::min(kMc, m - i0);
        for (int64_t pnl = 0; pnl < panels; ++pnl) {
          const int64_t cols = std::min(kNr, nc - pnl * kNr);
          for (int64_t i = i0; i < i0 + mc; i += kMr) {
            const int64_t rows = std::min(kMr, i0 + mc - i);
            kTiles[rows](kc, a + i * lda + k0, lda, packed.data() + pnl * kc * kNr,
                         c + i * ldc + n0 + pnl * kNr, ldc, cols);
          }
        }
      }
    }
  }
}

}  // namespace xlite::eval
