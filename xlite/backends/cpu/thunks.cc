#include "xlite/backends/cpu/thunks.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>

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
  KernelThunk(const HloInstruction& inst, KernelFn fn, std::vector<BufferRef> buffers,
              int64_t work)
      : Thunk(inst), fn_(fn), buffers_(std::move(buffers)) {
    const Shape& shape = inst.shape();
    rows_ = shape.rank() == 0 ? 1 : shape.dimensions(0);
    parallel_ = work >= kParallelElements && rows_ > 1;
  }
  std::string_view kind() const override { return "jit"; }
  absl::Status Run(ThunkContext& ctx) override {
    if (rows_ == 0) return absl::OkStatus();
    absl::InlinedVector<void*, 8> pointers;
    for (BufferRef ref : buffers_) pointers.push_back(Resolve(ref, ctx.slots));
    if (!parallel_ || ctx.pool->size() == 1) {
      fn_(pointers.data(), 0, rows_);
      return absl::OkStatus();
    }
    ctx.pool->ParallelFor(rows_, [&](int64_t begin, int64_t end) {
      fn_(pointers.data(), begin, end);
    });
    return absl::OkStatus();
  }

 private:
  KernelFn fn_;
  std::vector<BufferRef> buffers_;
  int64_t rows_ = 0;
  bool parallel_ = false;
};

// One gemm per batch element, row-major: C[M,N] = op(A) op(B).
class DotThunk : public Thunk {
 public:
  struct Plan {
    bool f64 = false;
    bool trans_a = false, trans_b = false;
    int64_t batch = 1, m = 1, n = 1, k = 1;
  };
  DotThunk(const HloInstruction& inst, Plan plan, BufferRef out, BufferRef lhs, BufferRef rhs)
      : Thunk(inst), plan_(plan), out_(out), lhs_(lhs), rhs_(rhs) {}
  std::string_view kind() const override { return "dot"; }
  absl::Status Run(ThunkContext& ctx) override {
    const Plan& p = plan_;
    const uint8_t* lhs = Resolve(lhs_, ctx.slots);
    const uint8_t* rhs = Resolve(rhs_, ctx.slots);
    uint8_t* out = Resolve(out_, ctx.slots);
    const auto ta = p.trans_a ? CblasTrans : CblasNoTrans;
    const auto tb = p.trans_b ? CblasTrans : CblasNoTrans;
    const int64_t lda = p.trans_a ? p.m : p.k, ldb = p.trans_b ? p.k : p.n;
    for (int64_t b = 0; b < p.batch; ++b) {
      if (p.f64) {
        const auto* a = reinterpret_cast<const double*>(lhs) + b * p.m * p.k;
        const auto* bm = reinterpret_cast<const double*>(rhs) + b * p.k * p.n;
        auto* c = reinterpret_cast<double*>(out) + b * p.m * p.n;
        cblas_dgemm(CblasRowMajor, ta, tb, p.m, p.n, p.k, 1.0, a, lda, bm, ldb, 0.0, c, p.n);
      } else {
        const auto* a = reinterpret_cast<const float*>(lhs) + b * p.m * p.k;
        const auto* bm = reinterpret_cast<const float*>(rhs) + b * p.k * p.n;
        auto* c = reinterpret_cast<float*>(out) + b * p.m * p.n;
        cblas_sgemm(CblasRowMajor, ta, tb, p.m, p.n, p.k, 1.0f, a, lda, bm, ldb, 0.0f, c, p.n);
      }
    }
    return absl::OkStatus();
  }

 private:
  Plan plan_;
  BufferRef out_, lhs_, rhs_;
};

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
                                       std::vector<BufferRef> buffers, int64_t work) {
  return std::make_unique<KernelThunk>(inst, fn, std::move(buffers), work);
}

std::unique_ptr<Thunk> MaybeMakeDotThunk(const HloInstruction& dot, BufferRef out,
                                         BufferRef lhs, BufferRef rhs) {
  const auto& attrs = dot.attrs<DotAttrs>();
  const DotDimensions& dims = attrs.dims;
  const Shape& a = dot.operand(0)->shape();
  const Shape& b = dot.operand(1)->shape();
  const PrimitiveType t = dot.shape().element_type();
  if (dot.operand_count() != 2 || !attrs.sparsity.empty() ||
      (t != PrimitiveType::F32 && t != PrimitiveType::F64) || a.element_type() != t ||
      b.element_type() != t || !a.is_static() || !b.is_static() ||
      dims.lhs_contracting.size() != 1 || dims.rhs_contracting.size() != 1) {
    return nullptr;
  }
  const int64_t nb = static_cast<int64_t>(dims.lhs_batch.size());
  for (int64_t i = 0; i < nb; ++i) {
    if (dims.lhs_batch[i] != i || dims.rhs_batch[i] != i) return nullptr;
  }
  const int64_t cl = dims.lhs_contracting[0], cr = dims.rhs_contracting[0];
  if ((cl != nb && cl != a.rank() - 1) || (cr != nb && cr != b.rank() - 1)) return nullptr;
  DotThunk::Plan plan;
  plan.f64 = t == PrimitiveType::F64;
  for (int64_t i = 0; i < nb; ++i) plan.batch *= a.dimensions(i);
  plan.k = a.dimensions(cl);
  plan.m = a.ElementCount() / std::max<int64_t>(1, plan.batch * plan.k);
  plan.n = b.ElementCount() / std::max<int64_t>(1, plan.batch * plan.k);
  // A lone free dimension may sit on either side of K; with none, M is 1.
  plan.trans_a = cl == nb && a.rank() > nb + 1;
  plan.trans_b = cr == b.rank() - 1 && b.rank() > nb + 1;
  if (plan.batch == 0 || plan.k == 0 || plan.m == 0 || plan.n == 0) return nullptr;
  return std::make_unique<DotThunk>(dot, plan, out, lhs, rhs);
}

std::unique_ptr<Thunk> MakeFallbackThunk(const HloInstruction& inst,
                                         std::vector<BufferTree> operands, BufferTree result) {
  return std::make_unique<FallbackThunk>(inst, std::move(operands), std::move(result));
}

}  // namespace xlite::cpu
