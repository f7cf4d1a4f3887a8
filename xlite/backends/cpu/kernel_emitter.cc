#include "xlite/backends/cpu/kernel_emitter.h"

#include <bit>
#include <map>
#include <optional>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "xlite/analysis/reduction_kind.h"
#include "xlite/backends/cpu/elemental_support.h"
#include "xlite/backends/cpu/fast_math.h"
#include "xlite/backends/cpu/jit.h"
#include "xlite/ir/computation.h"

namespace xlite::cpu {
namespace {

using O = HloOpcode;
using P = PrimitiveType;
using Index = std::vector<llvm::Value*>;

class Emitter {
 public:
  Emitter(llvm::LLVMContext& ctx, llvm::Module& module) : ctx_(ctx), module_(module), b_(ctx) {}

  // Defines `name(ptr buffers, i64 begin, i64 end)` for `spec`.
  void EmitKernel(const KernelSpec& spec, const std::string& name) {
    spec_ = &spec;
    memo_.clear();
    auto* i64 = b_.getInt64Ty();
    auto* fty = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy(), i64, i64}, false);
    llvm::Function* fn =
        llvm::Function::Create(fty, llvm::Function::ExternalLinkage, name, module_);
    fn_ = fn;
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));
    llvm::Value* buffers = fn->getArg(0);
    buffer_ptrs_.clear();
    for (size_t i = 0; i < spec.inputs.size() + spec.outputs(); ++i) {
      buffer_ptrs_.push_back(
          b_.CreateLoad(b_.getPtrTy(), b_.CreateConstInBoundsGEP1_64(b_.getPtrTy(), buffers, i)));
    }
    for (int64_t input : spec.in_place_inputs) {
      buffer_ptrs_[spec.outputs() + input] = buffer_ptrs_[0];
    }
    const Shape& shape = spec.root->shape();
    Index index(shape.rank());
    if (shape.rank() == 0) {
      EmitElement(shape, index);
    } else {
      EmitTiles(shape, fn->getArg(1), fn->getArg(2), index);
    }
    b_.CreateRetVoid();
  }

 private:
  // for t in [begin, end): the row and chunk of tile t (TilingOf), the row's
  // index of every dimension but the last, then the chunk's elements.
  void EmitTiles(const Shape& shape, llvm::Value* begin, llvm::Value* end, Index& index) {
    const KernelTiling tiling = TilingOf(*spec_);
    const int64_t rank = shape.rank();
    EmitLoop(begin, end, nullptr, [&](llvm::Value* t, llvm::Value*) {
      llvm::Value* row = b_.CreateUDiv(t, b_.getInt64(tiling.chunks));
      llvm::Value* first =
          b_.CreateNUWMul(b_.CreateURem(t, b_.getInt64(tiling.chunks)), b_.getInt64(tiling.chunk));
      for (int64_t d = rank - 2; d >= 0; --d) {
        llvm::Value* size = b_.getInt64(shape.dimensions(d));
        index[d] = d == 0 ? row : b_.CreateURem(row, size);
        if (d > 0) row = b_.CreateUDiv(row, size);
      }
      llvm::Value* last = b_.CreateNUWAdd(first, b_.getInt64(tiling.chunk));
      if (tiling.chunks * tiling.chunk != tiling.last) {
        last = b_.CreateSelect(b_.CreateICmpULT(last, b_.getInt64(tiling.last)), last,
                               b_.getInt64(tiling.last));
      }
      EmitLoop(first, last, nullptr, [&](llvm::Value* j, llvm::Value*) {
        index[rank - 1] = j;
        EmitElement(shape, index);
        return nullptr;
      });
      return nullptr;
    });
  }

  // The output element at `index`.
  void EmitElement(const Shape& shape, const Index& index) {
    memo_.clear();  // values belong to one index
    llvm::Value* v = Emit(*spec_->root, index);
    Store(v, shape, buffer_ptrs_[0], index);
  }

  // for (iv = lo; iv < hi; ++iv) carried = body(iv, carried); returns the
  // carried value after the loop (a reduction's accumulator), or nullptr
  // when `init` is nullptr and nothing is carried.
  template <typename Body>
  llvm::Value* EmitLoop(llvm::Value* lo, llvm::Value* hi, llvm::Value* init, Body body) {
    auto* i64 = b_.getInt64Ty();
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* head = llvm::BasicBlock::Create(ctx_, "loop", fn_);
    llvm::BasicBlock* loop_body = llvm::BasicBlock::Create(ctx_, "body", fn_);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "exit", fn_);
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::PHINode* iv = b_.CreatePHI(i64, 2);
    iv->addIncoming(lo, pre);
    llvm::PHINode* carried = init != nullptr ? b_.CreatePHI(init->getType(), 2) : nullptr;
    if (carried != nullptr) carried->addIncoming(init, pre);
    b_.CreateCondBr(b_.CreateICmpSLT(iv, hi), loop_body, exit);
    b_.SetInsertPoint(loop_body);
    llvm::Value* next = body(iv, carried);
    if (carried != nullptr) carried->addIncoming(next, b_.GetInsertBlock());
    iv->addIncoming(b_.CreateNUWAdd(iv, llvm::ConstantInt::get(i64, 1)), b_.GetInsertBlock());
    b_.CreateBr(head);
    b_.SetInsertPoint(exit);
    return carried;
  }

  llvm::Type* StorageType(P t) {
    switch (t) {
      case P::F32:
        return b_.getFloatTy();
      case P::F64:
        return b_.getDoubleTy();
      default:
        return b_.getIntNTy(StorageBytes(t) * 8);
    }
  }
  // bf16 is stored as its 16 bits and computed as f32, rounded to bf16 after
  // every arithmetic instruction as the evaluator does.
  llvm::Type* ValueType(P t) {
    if (t == P::BF16) return b_.getFloatTy();
    return t == P::PRED ? b_.getInt1Ty() : StorageType(t);
  }
  static P ComputeType(P t) { return t == P::BF16 ? P::F32 : t; }

  // An f32 rounded to the nearest bf16 (ties to even; NaN becomes the
  // quiet NaN of its sign, as the evaluator encodes it), still as f32.
  llvm::Value* RoundToBf16(llvm::Value* x) {
    llvm::Type* i32 = b_.getInt32Ty();
    if (auto* v = llvm::dyn_cast<llvm::VectorType>(x->getType())) {
      i32 = llvm::VectorType::get(i32, v->getElementCount());
    }
    auto c = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
    llvm::Value* bits = b_.CreateBitCast(x, i32);
    llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, c(16)), c(1));
    llvm::Value* rounded =
        b_.CreateAnd(b_.CreateAdd(b_.CreateAdd(bits, c(0x7fff)), lsb), c(0xffff0000u));
    llvm::Value* nan = b_.CreateOr(b_.CreateAnd(bits, c(0x80000000u)), c(0x7fc00000u));
    return b_.CreateBitCast(b_.CreateSelect(b_.CreateFCmpUNO(x, x), nan, rounded), x->getType());
  }
  llvm::Value* RoundIfBf16(const Shape& shape, llvm::Value* x) {
    return shape.element_type() == P::BF16 ? RoundToBf16(x) : x;
  }

  llvm::Value* Linear(const Shape& shape, const Index& index) {
    llvm::Value* linear = b_.getInt64(0);
    for (int64_t d = 0; d < shape.rank(); ++d) {
      linear = b_.CreateNSWAdd(b_.CreateNSWMul(linear, b_.getInt64(shape.dimensions(d))), index[d]);
    }
    return linear;
  }

  llvm::Value* Load(const Shape& shape, llvm::Value* base, const Index& index) {
    llvm::Type* ty = StorageType(shape.element_type());
    llvm::Value* v = b_.CreateLoad(ty, b_.CreateInBoundsGEP(ty, base, Linear(shape, index)));
    if (shape.element_type() == P::BF16) {
      return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16), b_.getFloatTy());
    }
    return shape.element_type() == P::PRED ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;
  }

  // A bf16 value is exact (rounded where it was computed), so storing it
  // keeps its top 16 bits (a NaN read from an input keeps its payload).
  void Store(llvm::Value* v, const Shape& shape, llvm::Value* base, const Index& index) {
    llvm::Type* ty = StorageType(shape.element_type());
    if (shape.element_type() == P::PRED) v = b_.CreateZExt(v, ty);
    if (shape.element_type() == P::BF16) {
      v = b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(v, b_.getInt32Ty()), 16), ty);
    }
    b_.CreateStore(v, b_.CreateInBoundsGEP(ty, base, Linear(shape, index)));
  }

  llvm::Value* Constant(const Literal& literal, int64_t i) {
    const P t = literal.shape().element_type();
    if (t == P::F32) return llvm::ConstantFP::get(b_.getFloatTy(), literal.Get<float>(i));
    if (t == P::F64) return llvm::ConstantFP::get(b_.getDoubleTy(), literal.Get<double>(i));
    if (t == P::BF16) {
      const uint32_t bits = static_cast<uint32_t>(literal.GetBits(i)) << 16;
      return llvm::ConstantFP::get(b_.getFloatTy(), std::bit_cast<float>(bits));
    }
    return llvm::ConstantInt::get(ValueType(t), literal.GetBits(i));
  }

  llvm::Value* Emit(const HloInstruction& inst, const Index& index) {
    auto key = std::make_pair(&inst, index);
    auto found = memo_.find(key);
    if (found != memo_.end()) return found->second;
    llvm::Value* v = EmitUncached(inst, index);
    memo_.emplace(std::move(key), v);
    return v;
  }

  llvm::Value* EmitUncached(const HloInstruction& inst, const Index& index) {
    for (size_t i = 0; i < spec_->inputs.size(); ++i) {
      if (spec_->inputs[i] == &inst) {
        return Load(inst.shape(), buffer_ptrs_[i + spec_->outputs()], index);
      }
    }
    const Shape& shape = inst.shape();
    auto operand = [&](int64_t i) { return Emit(*inst.operand(i), index); };
    switch (inst.opcode()) {
      case O::kConstant:
        return EmitConstant(inst, index);
      case O::kReduce:
        return EmitReduce(inst, index);
      case O::kIota: {
        llvm::Value* i = index[inst.attrs<IntAttrs>().value];
        if (IsFloat(shape.element_type()))
          return b_.CreateSIToFP(i, ValueType(shape.element_type()));
        return b_.CreateTrunc(i, ValueType(shape.element_type()));
      }
      case O::kBroadcast: {
        Index in;
        for (int64_t d : inst.dimensions()) in.push_back(index[d]);
        return Emit(*inst.operand(0), in);
      }
      case O::kTranspose: {
        Index in(shape.rank());
        for (int64_t i = 0; i < shape.rank(); ++i) in[inst.dimensions()[i]] = index[i];
        return Emit(*inst.operand(0), in);
      }
      case O::kReverse: {
        Index in = index;
        for (int64_t d : inst.dimensions()) {
          in[d] = b_.CreateSub(b_.getInt64(shape.dimensions(d) - 1), index[d]);
        }
        return Emit(*inst.operand(0), in);
      }
      case O::kSlice: {
        const auto& slice = inst.attrs<SliceAttrs>();
        Index in(shape.rank());
        for (int64_t d = 0; d < shape.rank(); ++d) {
          in[d] = b_.CreateNSWAdd(b_.getInt64(slice.starts[d]),
                                  b_.CreateNSWMul(index[d], b_.getInt64(slice.strides[d])));
        }
        return Emit(*inst.operand(0), in);
      }
      case O::kReshape: {
        const Shape& from = inst.operand(0)->shape();
        llvm::Value* linear = Linear(shape, index);
        Index in(from.rank());
        for (int64_t d = from.rank() - 1; d >= 0; --d) {
          llvm::Value* size = b_.getInt64(from.dimensions(d));
          in[d] = d == 0 ? linear : b_.CreateURem(linear, size);
          if (d > 0) linear = b_.CreateUDiv(linear, size);
        }
        return Emit(*inst.operand(0), in);
      }
      case O::kPad:
        return EmitPad(inst, index);
      case O::kConcatenate:
        return EmitConcatenate(inst, index);
      case O::kDynamicSlice:
        return EmitDynamicSlice(inst, index);
      case O::kConvert:
        return RoundIfBf16(shape,
                           Convert(operand(0), ComputeType(inst.operand(0)->shape().element_type()),
                                   ComputeType(shape.element_type())));
      case O::kBitcastConvert:
        return b_.CreateBitCast(operand(0), ValueType(shape.element_type()));
      case O::kCompare:
        return Compare(inst, operand(0), operand(1));
      case O::kSelect:
        return b_.CreateSelect(operand(0), operand(1), operand(2));
      case O::kCopy:
        return operand(0);
      case O::kClamp: {
        const P t = shape.element_type();
        return Extremum(false, t, operand(2), Extremum(true, t, operand(0), operand(1)));
      }
      default:
        break;
    }
    const P t = ComputeType(inst.operand(0)->shape().element_type());
    if (inst.operand_count() == 1) return RoundIfBf16(shape, Unary(inst.opcode(), t, operand(0)));
    return RoundIfBf16(shape, Binary(inst.opcode(), t, operand(0), operand(1)));
  }

  // min(max(v, lo), hi) on i64 indices.
  llvm::Value* ClampIndex(llvm::Value* v, int64_t lo, int64_t hi) {
    v = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, v, b_.getInt64(lo));
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, v, b_.getInt64(hi));
  }

  // The operators below read an operand only at indices clamped into it and
  // select the element they need, so no load leaves its buffer.

  // Operand element i of a dimension lands at low + i * (interior + 1);
  // every other output element is the padding value.
  llvm::Value* EmitPad(const HloInstruction& inst, const Index& index) {
    const HloInstruction& operand = *inst.operand(0);
    llvm::Value* padding_value = Emit(*inst.operand(1), {});
    if (operand.shape().ElementCount() == 0) return padding_value;
    const PaddingConfig& padding = inst.attrs<PadAttrs>().padding;
    Index in(operand.shape().rank());
    llvm::Value* inside = b_.getTrue();
    for (int64_t d = 0; d < operand.shape().rank(); ++d) {
      const PaddingDimension& p = padding[d];
      const int64_t size = operand.shape().dimensions(d);
      llvm::Value* shifted = b_.CreateSub(index[d], b_.getInt64(p.low));
      llvm::Value* at = shifted;
      llvm::Value* ok = b_.CreateICmpSGE(shifted, b_.getInt64(0));
      if (p.interior > 0) {
        llvm::Value* step = b_.getInt64(p.interior + 1);
        at = b_.CreateSDiv(shifted, step);
        ok = b_.CreateAnd(ok, b_.CreateICmpEQ(b_.CreateSRem(shifted, step), b_.getInt64(0)));
      }
      inside = b_.CreateAnd(inside, b_.CreateAnd(ok, b_.CreateICmpSLT(at, b_.getInt64(size))));
      in[d] = ClampIndex(at, 0, size - 1);
    }
    return b_.CreateSelect(inside, Emit(operand, in), padding_value);
  }

  // The operand whose range along the dimension holds the index.
  llvm::Value* EmitConcatenate(const HloInstruction& inst, const Index& index) {
    const int64_t dim = inst.dimensions()[0];
    llvm::Value* result = nullptr;
    int64_t offset = 0;
    for (const HloInstruction* operand : inst.operands()) {
      const int64_t size = operand->shape().dimensions(dim);
      if (size > 0) {
        Index in = index;
        in[dim] = ClampIndex(b_.CreateSub(index[dim], b_.getInt64(offset)), 0, size - 1);
        llvm::Value* v = Emit(*operand, in);
        result =
            result == nullptr
                ? v
                : b_.CreateSelect(b_.CreateICmpSGE(index[dim], b_.getInt64(offset)), v, result);
      }
      offset += size;
    }
    return result;
  }

  // Starts clamped to [0, dim - size] (signed or unsigned, as XLA clamps).
  llvm::Value* EmitDynamicSlice(const HloInstruction& inst, const Index& index) {
    const HloInstruction& operand = *inst.operand(0);
    const std::vector<int64_t>& sizes = inst.attrs<DynamicSliceAttrs>().sizes;
    Index in(operand.shape().rank());
    for (int64_t d = 0; d < operand.shape().rank(); ++d) {
      const HloInstruction& start = *inst.operand(1 + d);
      const P t = start.shape().element_type();
      const int64_t hi = operand.shape().dimensions(d) - sizes[d];
      llvm::Value* v = Emit(start, {});
      llvm::Value* clamped;
      if (IsUnsignedInt(t)) {
        clamped = b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b_.CreateZExt(v, b_.getInt64Ty()),
                                           b_.getInt64(hi));
      } else {
        clamped = ClampIndex(b_.CreateSExt(v, b_.getInt64Ty()), 0, hi);
      }
      in[d] = b_.CreateNSWAdd(clamped, index[d]);
    }
    return Emit(operand, in);
  }

  // One output element of a single-operand reduce: init, then every
  // reduced element of the operand in row-major order (the last reduced
  // dimension innermost) combined with the reducer's op. A float add may be
  // reassociated, so the innermost loop vectorises with partial sums (the
  // result may differ from the evaluator's sequential sum by rounding).
  llvm::Value* EmitReduce(const HloInstruction& inst, const Index& out_index) {
    const HloInstruction& operand = *inst.operand(0);
    const O op = ReductionOpcode(*MatchReductionKind(*inst.to_apply()));
    const P t = inst.shape().element_type();
    llvm::Value* acc = Emit(*inst.operand(1), {});
    Index in(operand.shape().rank());
    std::vector<int64_t> reduced;
    for (int64_t d = 0, k = 0; d < operand.shape().rank(); ++d) {
      if (absl::c_linear_search(inst.dimensions(), d)) {
        reduced.push_back(d);
      } else {
        in[d] = out_index[k++];
      }
    }
    // Values made inside the loops do not dominate what follows them.
    auto saved = memo_;
    acc = ReduceLoops(operand, reduced, 0, in, acc, [&](llvm::Value* a, llvm::Value* v) {
      // Float maximum / minimum as llvm.maximum / minimum, which vectorise:
      // NaN propagates as the evaluator's rule does (which NaN, and the sign
      // of an equal zero, are not promised).
      if (IsFloat(t) && (op == O::kMaximum || op == O::kMinimum)) {
        return b_.CreateBinaryIntrinsic(
            op == O::kMaximum ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, a, v);
      }
      llvm::Value* combined = Binary(op, t, a, v);
      if (auto* add = llvm::dyn_cast<llvm::Instruction>(combined);
          add != nullptr && op == O::kAdd && IsFloat(t)) {
        add->setHasAllowReassoc(true);
      }
      return combined;
    });
    memo_ = std::move(saved);
    return acc;
  }

  template <typename Combine>
  llvm::Value* ReduceLoops(const HloInstruction& operand, const std::vector<int64_t>& reduced,
                           size_t level, Index& in, llvm::Value* acc, Combine combine) {
    if (level == reduced.size()) {
      // Each operand element is read exactly once over all output elements.
      llvm::Value* v = Emit(operand, in);
      if (spec_->side == &operand) Store(v, operand.shape(), buffer_ptrs_[1], in);
      return combine(acc, v);
    }
    const int64_t d = reduced[level];
    return EmitLoop(b_.getInt64(0), b_.getInt64(operand.shape().dimensions(d)), acc,
                    [&](llvm::Value* iv, llvm::Value* sum) {
                      in[d] = iv;
                      return ReduceLoops(operand, reduced, level + 1, in, sum, combine);
                    });
  }

  llvm::Value* EmitConstant(const HloInstruction& inst, const Index& index) {
    const Literal& literal = inst.literal();
    if (inst.shape().rank() == 0) return Constant(literal, 0);
    llvm::Type* ty = StorageType(inst.shape().element_type());
    auto raw = literal.raw_data();
    llvm::Constant* data = llvm::ConstantDataArray::getRaw(
        llvm::StringRef(reinterpret_cast<const char*>(raw.data()), raw.size()),
        literal.element_count(), ty);
    auto* global = new llvm::GlobalVariable(module_, data->getType(), /*isConstant=*/true,
                                            llvm::GlobalValue::PrivateLinkage, data);
    return Load(inst.shape(), global, index);
  }

  llvm::Value* CallLibm(O op, P t, std::vector<llvm::Value*> args) {
    const LibmNames& names = LibmCalls().at(op);
    llvm::Type* ty = ValueType(t);
    std::vector<llvm::Type*> params(args.size(), ty);
    llvm::FunctionCallee callee = module_.getOrInsertFunction(
        t == P::F32 ? names.f32 : names.f64, llvm::FunctionType::get(ty, params, false));
    return b_.CreateCall(callee, args);
  }

  // maximum / minimum with the evaluator's rules: NaN wins (the first
  // operand's when both are), equal values give the first operand.
  llvm::Value* Extremum(bool max, P t, llvm::Value* a, llvm::Value* b) {
    if (IsFloat(t)) {
      llvm::Value* pick_b = max ? b_.CreateFCmpOLT(a, b) : b_.CreateFCmpOLT(b, a);
      llvm::Value* r = b_.CreateSelect(pick_b, b, a);
      r = b_.CreateSelect(b_.CreateFCmpUNO(b, b), b, r);
      return b_.CreateSelect(b_.CreateFCmpUNO(a, a), a, r);
    }
    const bool s = IsSignedInt(t);
    llvm::Value* pick_b = max ? (s ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b))
                              : (s ? b_.CreateICmpSLT(b, a) : b_.CreateICmpULT(b, a));
    return b_.CreateSelect(pick_b, b, a);
  }

  llvm::Value* Unary(O op, P t, llvm::Value* x) {
    llvm::Type* ty = ValueType(t);
    if (t == P::F32 && HasFastF32(op)) return EmitFastF32(b_, op, x);
    if (LibmCalls().contains(op)) return CallLibm(op, t, {x});
    const bool is_float = IsFloat(t);
    switch (op) {
      case O::kNegate:
        return is_float ? b_.CreateFNeg(x) : b_.CreateNeg(x);
      case O::kAbs:
        if (is_float) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
        if (IsUnsignedInt(t)) return x;
        return b_.CreateSelect(b_.CreateICmpSLT(x, llvm::ConstantInt::get(ty, 0)), b_.CreateNeg(x),
                               x);
      case O::kSign: {
        if (is_float) {
          // NaN and zeros stay; everything else is copysign(1, x).
          llvm::Value* one = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign,
                                                      llvm::ConstantFP::get(ty, 1.0), x);
          llvm::Value* keep = b_.CreateFCmpUEQ(x, llvm::ConstantFP::get(ty, 0.0));
          return b_.CreateSelect(keep, x, one);
        }
        llvm::Value* zero = llvm::ConstantInt::get(ty, 0);
        if (IsUnsignedInt(t)) return b_.CreateZExt(b_.CreateICmpNE(x, zero), ty);
        return b_.CreateSub(b_.CreateZExt(b_.CreateICmpSGT(x, zero), ty),
                            b_.CreateZExt(b_.CreateICmpSLT(x, zero), ty));
      }
      case O::kSqrt:
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
      case O::kRsqrt:
        return b_.CreateFDiv(llvm::ConstantFP::get(ty, 1.0),
                             b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x));
      case O::kLogistic: {
        llvm::Value* one = llvm::ConstantFP::get(ty, 1.0);
        return b_.CreateFDiv(one, b_.CreateFAdd(one, CallLibm(O::kExp, t, {b_.CreateFNeg(x)})));
      }
      case O::kFloor:
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x);
      case O::kCeil:
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x);
      case O::kRoundNearestEven:
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x);
      case O::kRoundNearestAfz:
        return b_.CreateUnaryIntrinsic(llvm::Intrinsic::round, x);
      case O::kIsFinite:
        return b_.CreateFCmpONE(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                                llvm::ConstantFP::getInfinity(ty));
      case O::kNot:
        return b_.CreateNot(x);
      default:
        break;
    }
    XLITE_CHECK(false && "unary opcode outside the emitter's table");
    return nullptr;
  }

  llvm::Value* Binary(O op, P t, llvm::Value* a, llvm::Value* b) {
    if (LibmCalls().contains(op)) return CallLibm(op, t, {a, b});
    llvm::Type* ty = ValueType(t);
    const bool is_float = IsFloat(t), is_signed = IsSignedInt(t);
    switch (op) {
      case O::kAdd:
        return is_float ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b);
      case O::kSubtract:
        return is_float ? b_.CreateFSub(a, b) : b_.CreateSub(a, b);
      case O::kMultiply:
        return is_float ? b_.CreateFMul(a, b) : b_.CreateMul(a, b);
      case O::kMaximum:
        return Extremum(true, t, a, b);
      case O::kMinimum:
        return Extremum(false, t, a, b);
      case O::kAnd:
        return b_.CreateAnd(a, b);
      case O::kOr:
        return b_.CreateOr(a, b);
      case O::kXor:
        return b_.CreateXor(a, b);
      case O::kShiftLeft:
      case O::kShiftRightLogical:
      case O::kShiftRightArithmetic: {
        // XLA: a count of the bit width or more (as unsigned) shifts every
        // bit out: 0, or the sign fill for the arithmetic shift.
        const unsigned width = ty->getIntegerBitWidth();
        llvm::Value* out = b_.CreateICmpUGE(b, llvm::ConstantInt::get(ty, width));
        llvm::Value* count = b_.CreateSelect(out, llvm::ConstantInt::get(ty, 0), b);
        if (op == O::kShiftRightArithmetic) {
          return b_.CreateAShr(a,
                               b_.CreateSelect(out, llvm::ConstantInt::get(ty, width - 1), count));
        }
        llvm::Value* shifted =
            op == O::kShiftLeft ? b_.CreateShl(a, count) : b_.CreateLShr(a, count);
        return b_.CreateSelect(out, llvm::ConstantInt::get(ty, 0), shifted);
      }
      case O::kDivide:
      case O::kRemainder: {
        const bool div = op == O::kDivide;
        if (is_float) return div ? b_.CreateFDiv(a, b) : b_.CreateFRem(a, b);
        // XLA: x/0 = -1 (unsigned: all ones), x%0 = x, MIN/-1 = MIN, MIN%-1 = 0.
        llvm::Value* zero = llvm::ConstantInt::get(ty, 0);
        llvm::Value* one = llvm::ConstantInt::get(ty, 1);
        llvm::Value* by_zero = b_.CreateICmpEQ(b, zero);
        llvm::Value* by_minus_one =
            is_signed ? b_.CreateICmpEQ(b, llvm::ConstantInt::getSigned(ty, -1)) : b_.getFalse();
        llvm::Value* safe = b_.CreateSelect(b_.CreateOr(by_zero, by_minus_one), one, b);
        llvm::Value* q = div ? (is_signed ? b_.CreateSDiv(a, safe) : b_.CreateUDiv(a, safe))
                             : (is_signed ? b_.CreateSRem(a, safe) : b_.CreateURem(a, safe));
        llvm::Value* on_minus_one = div ? b_.CreateNeg(a) : zero;
        llvm::Value* on_zero = div ? llvm::ConstantInt::getSigned(ty, -1) : a;
        return b_.CreateSelect(by_zero, on_zero, b_.CreateSelect(by_minus_one, on_minus_one, q));
      }
      default:
        break;
    }
    XLITE_CHECK(false && "binary opcode outside the emitter's table");
    return nullptr;
  }

  // XLA's convert: float->int truncates with NaN -> 0 and saturation (the
  // llvm.fpto*i.sat semantics), anything -> pred is x != 0.
  llvm::Value* Convert(llvm::Value* x, P from, P to) {
    llvm::Type* ty = ValueType(to);
    if (from == to) return x;
    if (to == P::PRED) {
      if (IsFloat(from)) return b_.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));
      return b_.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
    }
    if (IsFloat(from) && IsFloat(to)) return b_.CreateFPCast(x, ty);
    if (IsFloat(from)) {
      return b_.CreateIntrinsic(
          IsSignedInt(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat,
          {ty, x->getType()}, {x});
    }
    const bool from_signed = IsSignedInt(from);
    if (IsFloat(to)) return from_signed ? b_.CreateSIToFP(x, ty) : b_.CreateUIToFP(x, ty);
    return b_.CreateIntCast(x, ty, from_signed);
  }

  llvm::Value* Compare(const HloInstruction& inst, llvm::Value* a, llvm::Value* b) {
    const auto& cmp = inst.attrs<CompareAttrs>();
    const P t = inst.operand(0)->shape().element_type();
    const ComparisonType type = cmp.type.value_or(DefaultComparisonType(t));
    using D = ComparisonDirection;
    if (type == ComparisonType::kFloat) {
      switch (cmp.direction) {
        case D::kEq:
          return b_.CreateFCmpOEQ(a, b);
        case D::kNe:
          return b_.CreateFCmpUNE(a, b);
        case D::kGe:
          return b_.CreateFCmpOGE(a, b);
        case D::kGt:
          return b_.CreateFCmpOGT(a, b);
        case D::kLe:
          return b_.CreateFCmpOLE(a, b);
        case D::kLt:
          return b_.CreateFCmpOLT(a, b);
      }
    }
    const bool s = type == ComparisonType::kSigned;
    switch (cmp.direction) {
      case D::kEq:
        return b_.CreateICmpEQ(a, b);
      case D::kNe:
        return b_.CreateICmpNE(a, b);
      case D::kGe:
        return s ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
      case D::kGt:
        return s ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b);
      case D::kLe:
        return s ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
      case D::kLt:
        return s ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
    }
    return nullptr;
  }

  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  llvm::IRBuilder<> b_;
  llvm::Function* fn_ = nullptr;
  const KernelSpec* spec_ = nullptr;
  std::vector<llvm::Value*> buffer_ptrs_;
  std::map<std::pair<const HloInstruction*, Index>, llvm::Value*> memo_;
};

}  // namespace

KernelTiling TilingOf(const Shape& output, int64_t work_per_element) {
  // Enough tiles for any pool, none with less work than a few vectors' worth.
  constexpr int64_t kTargetTiles = 64, kMinChunkWork = 256, kVector = 16;
  KernelTiling tiling;
  if (output.rank() == 0) return tiling;
  tiling.last = output.dimensions(output.rank() - 1);
  for (int64_t d = 0; d + 1 < output.rank(); ++d) tiling.rows *= output.dimensions(d);
  tiling.chunk = std::max<int64_t>(tiling.last, 1);
  const int64_t min_chunk =
      std::max<int64_t>(kMinChunkWork / std::max<int64_t>(work_per_element, 1), 1);
  if (tiling.rows < kTargetTiles && tiling.last > min_chunk) {
    const int64_t wanted = (kTargetTiles + tiling.rows - 1) / tiling.rows;
    const int64_t chunk = std::max((tiling.last + wanted - 1) / wanted, min_chunk);
    tiling.chunk = chunk >= kVector ? (chunk + kVector - 1) / kVector * kVector : chunk;
  }
  tiling.chunks = (tiling.last + tiling.chunk - 1) / tiling.chunk;
  return tiling;
}

int64_t KernelWork(const KernelSpec& spec) {
  const HloInstruction& root = *spec.root;
  return root.opcode() == O::kReduce ? root.operand(0)->shape().ElementCount()
                                     : root.shape().ElementCount();
}

KernelTiling TilingOf(const KernelSpec& spec) {
  const Shape& output = spec.root->shape();
  return TilingOf(output, KernelWork(spec) / std::max<int64_t>(output.ElementCount(), 1));
}

KernelSpec SpecFor(const HloInstruction& inst) {
  KernelSpec spec;
  if (inst.opcode() == O::kFusion) {
    const HloComputation& body = *inst.to_apply();
    spec.root = body.root_instruction();
    if (spec.root->opcode() == O::kTuple) {
      spec.side = spec.root->operand(1);
      spec.root = spec.root->operand(0);
    }
    for (const HloInstruction* p : body.parameter_instructions()) spec.inputs.push_back(p);
    return spec;
  }
  spec.root = &inst;
  for (const HloInstruction* op : inst.operands()) spec.inputs.push_back(op);
  return spec;
}

absl::StatusOr<CompiledKernels> CompileKernels(const std::vector<KernelSpec>& specs) {
  if (specs.empty()) return CompiledKernels{};
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("xlite_kernels", *ctx);
  Emitter emitter(*ctx, *module);
  std::vector<std::string> names;
  for (size_t i = 0; i < specs.size(); ++i) {
    names.push_back(absl::StrCat("xlite_kernel_", i));
    emitter.EmitKernel(specs[i], names.back());
  }
  std::string error;
  llvm::raw_string_ostream error_stream(error);
  if (llvm::verifyModule(*module, &error_stream)) {
    return absl::InternalError(absl::StrCat("kernel IR does not verify: ", error));
  }
  return JitCompile(std::move(ctx), std::move(module), names);
}

}  // namespace xlite::cpu
