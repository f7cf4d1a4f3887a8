#include "xlite/backends/cpu/thunks.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>

#include "absl/container/inlined_vector.h"

#include "xlite/analysis/reduction_kind.h"
#include "xlite/base/status.h"
#include "xlite/eval/combining_functors.h"
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
  KernelThunk(const HloInstruction& inst, KernelFn fn, std::vector<BufferRef> buffers)
      : Thunk(inst), fn_(fn), buffers_(std::move(buffers)) {
    const Shape& shape = inst.shape();
    rows_ = shape.rank() == 0 ? 1 : shape.dimensions(0);
    parallel_ = shape.ElementCount() >= kParallelElements && rows_ > 1;
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

// Walks the reduced elements of each output with per-dimension strides;
// the innermost reduced dimension, when it is the input's last, is read
// contiguously with eight partial results.
class ReduceThunk : public Thunk {
 public:
  ReduceThunk(const HloInstruction& inst, ReductionKind kind, BufferRef out, BufferRef input,
              BufferRef init)
      : Thunk(inst), kind_(kind), out_(out), input_(input), init_(init) {
    const Shape& shape = inst.operand(0)->shape();
    std::vector<bool> reduced(shape.rank(), false);
    for (int64_t d : inst.dimensions()) reduced[d] = true;
    int64_t stride = 1;
    std::vector<int64_t> strides(shape.rank());
    for (int64_t d = shape.rank() - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= shape.dimensions(d);
    }
    for (int64_t d = 0; d < shape.rank(); ++d) {
      (reduced[d] ? reduced_ : kept_).push_back({shape.dimensions(d), strides[d]});
    }
    outputs_ = inst.shape().ElementCount();
    if (!reduced_.empty() && reduced_.back().stride == 1) {
      inner_ = reduced_.back().size;
      reduced_.pop_back();
    }
  }
  std::string_view kind() const override { return "reduce"; }
  absl::Status Run(ThunkContext& ctx) override {
    // The three kinds MaybeMakeReduceThunk accepts, with the evaluator's own
    // kernels (NaN-propagating maximum and minimum).
    switch (kind_) {
      case ReductionKind::kMaximum: RunWith(eval::Maximum{}, ctx); break;
      case ReductionKind::kMinimum: RunWith(eval::Minimum{}, ctx); break;
      default: RunWith(eval::Add{}, ctx); break;
    }
    return absl::OkStatus();
  }

 private:
  struct Dim {
    int64_t size, stride;
  };

  template <typename Op>
  void RunWith(Op op, ThunkContext& ctx) {
    auto* out = reinterpret_cast<float*>(Resolve(out_, ctx.slots));
    const auto* input = reinterpret_cast<const float*>(Resolve(input_, ctx.slots));
    const float init = *reinterpret_cast<const float*>(Resolve(init_, ctx.slots));
    auto rows = [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) out[o] = ReduceOne(op, input, init, o);
    };
    if (outputs_ * inner_ >= kParallelElements && outputs_ > 1) {
      ctx.pool->ParallelFor(outputs_, rows);
    } else {
      rows(0, outputs_);
    }
  }

  template <typename Op>
  float ReduceOne(Op op, const float* input, float init, int64_t o) const {
    int64_t base = 0;
    for (int64_t d = static_cast<int64_t>(kept_.size()) - 1, rest = o; d >= 0; --d) {
      base += (rest % kept_[d].size) * kept_[d].stride;
      rest /= kept_[d].size;
    }
    float acc = init;
    std::vector<int64_t> pos(reduced_.size(), 0);
    while (true) {
      int64_t offset = base;
      for (size_t d = 0; d < reduced_.size(); ++d) offset += pos[d] * reduced_[d].stride;
      acc = op(acc, Inner(op, input + offset));
      size_t d = reduced_.size();
      while (d > 0 && ++pos[d - 1] == reduced_[d - 1].size) pos[--d] = 0;
      if (d == 0) return acc;
    }
  }

  // The combination of `inner_` contiguous elements (one when none).
  template <typename Op>
  float Inner(Op op, const float* x) const {
    if (inner_ < 16) {
      float acc = x[0];
      for (int64_t i = 1; i < inner_; ++i) acc = op(acc, x[i]);
      return acc;
    }
    float lanes[8];
    std::copy(x, x + 8, lanes);
    int64_t i = 8;
    for (; i + 8 <= inner_; i += 8) {
      for (int l = 0; l < 8; ++l) lanes[l] = op(lanes[l], x[i + l]);
    }
    for (; i < inner_; ++i) lanes[i % 8] = op(lanes[i % 8], x[i]);
    for (int width = 4; width >= 1; width /= 2) {
      for (int l = 0; l < width; ++l) lanes[l] = op(lanes[l], lanes[l + width]);
    }
    return lanes[0];
  }

  ReductionKind kind_;
  BufferRef out_, input_, init_;
  std::vector<Dim> kept_, reduced_;
  int64_t outputs_ = 0;
  int64_t inner_ = 1;
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
                                       std::vector<BufferRef> buffers) {
  return std::make_unique<KernelThunk>(inst, fn, std::move(buffers));
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

std::unique_ptr<Thunk> MaybeMakeReduceThunk(const HloInstruction& reduce, BufferRef out,
                                            BufferRef input, BufferRef init) {
  if (reduce.operand_count() != 2 || !reduce.shape().IsArray() ||
      reduce.shape().element_type() != PrimitiveType::F32 ||
      reduce.operand(0)->shape().element_type() != PrimitiveType::F32 ||
      !reduce.operand(0)->shape().is_static() || reduce.operand(0)->shape().ElementCount() == 0) {
    return nullptr;
  }
  std::optional<ReductionKind> kind = MatchReductionKind(*reduce.to_apply());
  if (!kind || (*kind != ReductionKind::kAdd && *kind != ReductionKind::kMaximum &&
                *kind != ReductionKind::kMinimum)) {
    return nullptr;
  }
  return std::make_unique<ReduceThunk>(reduce, *kind, out, input, init);
}

std::unique_ptr<Thunk> MakeFallbackThunk(const HloInstruction& inst,
                                         std::vector<BufferTree> operands, BufferTree result) {
  return std::make_unique<FallbackThunk>(inst, std::move(operands), std::move(result));
}

}  // namespace xlite::cpu
