#include "xlite/backends/cpu/thunks.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/container/inlined_vector.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"

namespace xlite::cpu {
namespace {

// Below this many output elements a kernel runs on the calling thread: the
// pool's wake-up costs more than the work.
constexpr int64_t kParallelElements = int64_t{1} << 15;

int64_t ArrayBytes(const Shape& shape) {
  return shape.IsArray() ? shape.ElementCount() * StorageBytes(shape.element_type()) : 0;
}

class KernelThunk : public Thunk {
 public:
  KernelThunk(const HloInstruction& inst, KernelFn fn, std::vector<BufferRef> buffers, int64_t work,
              int64_t tiles)
      : Thunk(inst), fn_(fn), buffers_(std::move(buffers)), tiles_(tiles) {
    parallel_ = work >= kParallelElements && tiles_ > 1;
  }
  std::string_view kind() const override { return "jit"; }
  absl::Status Run(ThunkContext& ctx) override {
    if (tiles_ == 0) return absl::OkStatus();
    absl::InlinedVector<void*, 8> pointers;
    for (BufferRef ref : buffers_) pointers.push_back(Resolve(ref, ctx.slots));
    if (!parallel_ || ctx.pool->size() == 1) {
      fn_(pointers.data(), 0, tiles_);
      return absl::OkStatus();
    }
    ctx.pool->ParallelFor(tiles_,
                          [&](int64_t begin, int64_t end) { fn_(pointers.data(), begin, end); });
    return absl::OkStatus();
  }

 private:
  KernelFn fn_;
  std::vector<BufferRef> buffers_;
  int64_t tiles_ = 0;
  bool parallel_ = false;
};

// Below this many multiply-adds a batched dot runs its gemms on the calling
// thread: the pool's wake-up costs more than the work.
constexpr int64_t kParallelMacs = int64_t{1} << 18;

// Whether `batch` gemms of `macs` multiply-adds in all run one single-threaded
// gemm per batch element, the batch split over the pool's `threads`, rather
// than one after another each threaded by OpenBLAS: when every thread gets a
// share and the shares are even or so many that the odd one hardly matters.
// Small gemms (attention's heads) thread poorly inside OpenBLAS, and one call
// per thread saves its per-call synchronisation.
bool SplitsBatch(int64_t batch, int64_t macs, int threads) {
  return threads > 1 && macs >= kParallelMacs && batch >= threads &&
         (batch % threads == 0 || batch >= 4 * threads);
}

// One gemm per batch element, row-major: C[M,N] = op(A) op(B), A and B at
// the batch element's offsets with leading dimensions lda and ldb; the batch
// split over the pool where SplitsBatch says so.
class DotThunk : public Thunk {
 public:
  struct Plan {
    bool f64 = false;
    bool trans_a = false, trans_b = false;
    int64_t m = 1, n = 1, k = 1, lda = 1, ldb = 1;
    std::vector<int64_t> a_offsets, b_offsets;  // in elements, per batch element
  };
  DotThunk(const HloInstruction& inst, Plan plan, BufferRef out, BufferRef lhs, BufferRef rhs)
      : Thunk(inst), plan_(std::move(plan)), out_(out), lhs_(lhs), rhs_(rhs) {}
  std::string_view kind() const override { return "dot"; }
  absl::Status Run(ThunkContext& ctx) override {
    const int64_t batch = static_cast<int64_t>(plan_.a_offsets.size());
    const bool split = SplitsBatch(batch, batch * plan_.m * plan_.n * plan_.k, ctx.pool->size());
    // OpenBLAS keeps its own threads: as many as the executable's pool, or
    // one where the pool's threads each take a share of the batch.
    const int blas_threads = split ? 1 : ctx.pool->size();
    if (openblas_get_num_threads() != blas_threads) openblas_set_num_threads(blas_threads);
    const auto run = [&](int64_t begin, int64_t end) {
      if (plan_.f64) {
        RunAs<double>(ctx, begin, end);
      } else {
        RunAs<float>(ctx, begin, end);
      }
    };
    if (split) {
      ctx.pool->ParallelFor(batch, run);
    } else {
      run(0, batch);
    }
    return absl::OkStatus();
  }

 private:
  // The gemms of batch elements [begin, end).
  template <typename T>
  void RunAs(ThunkContext& ctx, int64_t begin, int64_t end) {
    const Plan& p = plan_;
    const auto ta = p.trans_a ? CblasTrans : CblasNoTrans;
    const auto tb = p.trans_b ? CblasTrans : CblasNoTrans;
    const auto* lhs = reinterpret_cast<const T*>(Resolve(lhs_, ctx.slots));
    const auto* rhs = reinterpret_cast<const T*>(Resolve(rhs_, ctx.slots));
    auto* out = reinterpret_cast<T*>(Resolve(out_, ctx.slots));
    for (int64_t b = begin; b < end; ++b) {
      const T* a = lhs + p.a_offsets[b];
      const T* bm = rhs + p.b_offsets[b];
      T* c = out + b * p.m * p.n;
      if constexpr (std::is_same_v<T, double>) {
        cblas_dgemm(CblasRowMajor, ta, tb, p.m, p.n, p.k, 1.0, a, p.lda, bm, p.ldb, 0.0, c, p.n);
      } else {
        cblas_sgemm(CblasRowMajor, ta, tb, p.m, p.n, p.k, 1.0f, a, p.lda, bm, p.ldb, 0.0f, c, p.n);
      }
    }
  }

  Plan plan_;
  BufferRef out_, lhs_, rhs_;
};

// One dot operand as a batch of matrices: the element offset of each batch
// element (batch dimensions in the dot's order, the first slowest), its free
// dimensions merged into one (they must be adjacent) and its contracting
// dimension, each with its row-major stride.
struct MatrixView {
  std::vector<int64_t> offsets;
  int64_t free = 1, free_stride = 1;
  int64_t k = 1, k_stride = 1;
};

std::optional<MatrixView> ViewOf(const Shape& shape, const std::vector<int64_t>& batch,
                                 int64_t contracting) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> strides(rank);
  for (int64_t d = rank - 1, stride = 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape.dimensions(d);
  }
  MatrixView view;
  view.k = shape.dimensions(contracting);
  view.k_stride = strides[contracting];
  int64_t last_free = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == contracting || absl::c_linear_search(batch, d)) continue;
    if (last_free >= 0 && last_free != d - 1) return std::nullopt;
    view.free *= shape.dimensions(d);
    view.free_stride = strides[d];
    last_free = d;
  }
  view.offsets.push_back(0);
  for (int64_t d : batch) {
    std::vector<int64_t> next;
    next.reserve(view.offsets.size() * shape.dimensions(d));
    for (int64_t base : view.offsets) {
      for (int64_t i = 0; i < shape.dimensions(d); ++i) next.push_back(base + i * strides[d]);
    }
    view.offsets = std::move(next);
  }
  return view;
}

// The cblas form of a view whose matrix is [rows, cols] in the gemm's terms
// (rows_are_free: A = [M,K]; otherwise B = [K,N]): untransposed when the
// column dimension is contiguous, transposed when the row dimension is, with
// the leading dimension; nullopt when neither is.
std::optional<std::pair<bool, int64_t>> CblasForm(const MatrixView& v, bool rows_are_free) {
  const int64_t rows = rows_are_free ? v.free : v.k, cols = rows_are_free ? v.k : v.free;
  const int64_t row_stride = rows_are_free ? v.free_stride : v.k_stride;
  const int64_t col_stride = rows_are_free ? v.k_stride : v.free_stride;
  if (cols == 1 || col_stride == 1) return std::make_pair(false, rows == 1 ? cols : row_stride);
  if (rows == 1 || row_stride == 1) return std::make_pair(true, cols == 1 ? rows : col_stride);
  return std::nullopt;
}

class FallbackThunk : public Thunk {
 public:
  FallbackThunk(const HloInstruction& inst, std::vector<BufferTree> operands, BufferTree result)
      : Thunk(inst), operands_(std::move(operands)), result_(std::move(result)) {}
  std::string_view kind() const override { return "fallback"; }
  absl::Status Run(ThunkContext& ctx) override {
    std::vector<Literal> values;
    values.reserve(operands_.size());
    std::vector<const Literal*> pointers;
    for (const BufferTree& tree : operands_) values.push_back(ReadLiteral(tree, ctx.slots));
    for (const Literal& value : values) pointers.push_back(&value);
    if (ctx.evaluator == nullptr) ctx.evaluator = std::make_unique<Evaluator>(ctx.eval_options);
    XLITE_ASSIGN_OR_RETURN(Literal result,
                           ctx.evaluator->EvaluateInstruction(instruction(), pointers));
    WriteLiteral(result, result_, ctx.slots);
    return absl::OkStatus();
  }

 private:
  std::vector<BufferTree> operands_;
  BufferTree result_;
};

}  // namespace

void FillLiteral(const BufferTree& tree, Literal& literal, uint8_t* const* slots) {
  if (tree.shape.IsTuple()) {
    for (size_t i = 0; i < tree.elements.size(); ++i) {
      FillLiteral(tree.elements[i], literal.mutable_tuple_elements()[i], slots);
    }
    return;
  }
  const int64_t bytes = ArrayBytes(tree.shape);
  const uint8_t* from = Resolve(RefOf(tree), slots);
  uint8_t* to = literal.mutable_raw_data().data();
  if (bytes > 0 && from != to) std::memcpy(to, from, bytes);
}

Literal ReadLiteral(const BufferTree& tree, uint8_t* const* slots) {
  Literal literal(tree.shape);
  FillLiteral(tree, literal, slots);
  return literal;
}

void WriteLiteral(const Literal& literal, const BufferTree& tree, uint8_t* const* slots) {
  if (tree.shape.IsTuple()) {
    for (size_t i = 0; i < tree.elements.size(); ++i) {
      WriteLiteral(literal.tuple_elements()[i], tree.elements[i], slots);
    }
    return;
  }
  const int64_t bytes = ArrayBytes(tree.shape);
  if (bytes > 0) std::memcpy(Resolve(RefOf(tree), slots), literal.raw_data().data(), bytes);
}

std::unique_ptr<Thunk> MakeKernelThunk(const HloInstruction& inst, KernelFn fn,
                                       std::vector<BufferRef> buffers, int64_t work,
                                       int64_t tiles) {
  return std::make_unique<KernelThunk>(inst, fn, std::move(buffers), work, tiles);
}

std::unique_ptr<Thunk> MaybeMakeDotThunk(const HloInstruction& dot, BufferRef out, BufferRef lhs,
                                         BufferRef rhs) {
  const auto& attrs = dot.attrs<DotAttrs>();
  const DotDimensions& dims = attrs.dims;
  const Shape& a = dot.operand(0)->shape();
  const Shape& b = dot.operand(1)->shape();
  const PrimitiveType t = dot.shape().element_type();
  if (dot.operand_count() != 2 || !attrs.sparsity.empty() ||
      (t != PrimitiveType::F32 && t != PrimitiveType::F64) || a.element_type() != t ||
      b.element_type() != t || !a.is_static() || !b.is_static() ||
      dims.lhs_contracting.size() != 1 || dims.rhs_contracting.size() != 1 ||
      a.ElementCount() == 0 || b.ElementCount() == 0) {
    return nullptr;
  }
  std::optional<MatrixView> va = ViewOf(a, dims.lhs_batch, dims.lhs_contracting[0]);
  std::optional<MatrixView> vb = ViewOf(b, dims.rhs_batch, dims.rhs_contracting[0]);
  if (!va || !vb) return nullptr;
  auto form_a = CblasForm(*va, /*rows_are_free=*/true);
  auto form_b = CblasForm(*vb, /*rows_are_free=*/false);
  if (!form_a || !form_b) return nullptr;
  DotThunk::Plan plan;
  plan.f64 = t == PrimitiveType::F64;
  plan.m = va->free;
  plan.n = vb->free;
  plan.k = va->k;
  std::tie(plan.trans_a, plan.lda) = *form_a;
  std::tie(plan.trans_b, plan.ldb) = *form_b;
  plan.a_offsets = std::move(va->offsets);
  plan.b_offsets = std::move(vb->offsets);
  return std::make_unique<DotThunk>(dot, std::move(plan), out, lhs, rhs);
}

std::unique_ptr<Thunk> MakeFallbackThunk(const HloInstruction& inst,
                                         std::vector<BufferTree> operands, BufferTree result) {
  return std::make_unique<FallbackThunk>(inst, std::move(operands), std::move(result));
}

}  // namespace xlite::cpu
