#include "xlite/backends/cpu/cpu_executable.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xlite/backends/cpu/convolution_thunk.h"
#include "xlite/backends/cpu/fusion.h"
#include "xlite/backends/cpu/kernel_emitter.h"
#include "xlite/backends/cpu/thread_pool.h"
#include "xlite/backends/cpu/thunks.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"
#include "xlite/sched/heap_simulator.h"

namespace xlite::cpu {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kAlignment = 64;
constexpr int64_t kHugePage = int64_t{2} << 20;

// One allocation for every buffer of the program, touched once at compile
// time (the first touch of a page is the expensive part) and backed by huge
// pages where the kernel allows.
class Arena {
 public:
  explicit Arena(int64_t bytes) : bytes_(std::max<int64_t>(bytes, kAlignment)) {
    const int64_t rounded = (bytes_ + kHugePage - 1) / kHugePage * kHugePage;
    data_ = static_cast<uint8_t*>(std::aligned_alloc(kHugePage, rounded));
    if (data_ != nullptr) {
      madvise(data_, rounded, MADV_HUGEPAGE);
      std::memset(data_, 0, rounded);
    }
  }
  ~Arena() { std::free(data_); }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  uint8_t* data() const { return data_; }
  int64_t bytes() const { return bytes_; }

 private:
  int64_t bytes_;
  uint8_t* data_ = nullptr;
};

// The arena's buffers with their live ranges over the steps of the program,
// placed by the heap simulator (sched/heap_simulator.h) so that buffers live
// at the same step share no byte (a step's output never overlaps its
// operands); each 64-byte aligned. Until Place(), a leaf's offset is its
// buffer id.
class Planner {
 public:
  // Buffers for the arrays of `shape`, written at `step`.
  BufferTree Allocate(const Shape& shape, int64_t step) {
    BufferTree tree{shape, 0, {}};
    if (shape.IsTuple()) {
      for (const Shape& e : shape.tuple_shapes()) tree.elements.push_back(Allocate(e, step));
      return tree;
    }
    const int64_t bytes =
        shape.IsArray() ? shape.ElementCount() * StorageBytes(shape.element_type()) : 0;
    tree.offset = static_cast<int64_t>(intervals_.size());
    intervals_.push_back({(bytes + kAlignment - 1) / kAlignment * kAlignment, step, step});
    return tree;
  }
  // The arena buffers of `tree` are read at `step`.
  void Use(const BufferTree& tree, int64_t step) {
    if (tree.shape.IsTuple()) {
      for (const BufferTree& e : tree.elements) Use(e, step);
    } else if (tree.slot == 0) {
      HeapInterval& interval = intervals_[tree.offset];
      interval.end = std::max(interval.end, step);
    }
  }
  // Places every buffer; returns the arena's size.
  int64_t Place() {
    HeapResult placed = GlobalDecreasingSizeBestFit(intervals_);
    offsets_ = std::move(placed.offsets);
    return placed.heap_bytes;
  }
  // Turns the buffer ids of `tree` into arena offsets.
  void Resolve(BufferTree& tree) const {
    for (BufferTree& e : tree.elements) Resolve(e);
    if (!tree.shape.IsTuple() && tree.slot == 0) tree.offset = offsets_[tree.offset];
  }

 private:
  std::vector<HeapInterval> intervals_;
  std::vector<int64_t> offsets_;
};

// Every instruction of a fusion body is one the emitter computes: an array
// root, or the multi-output root tuple(reduce, the reduce's operand).
bool IsEmittableFusion(const HloInstruction& fusion) {
  const HloComputation& body = *fusion.to_apply();
  const HloInstruction* root = body.root_instruction();
  const HloInstruction* reduce = root;
  if (root->opcode() == HloOpcode::kTuple) {
    if (root->operand_count() != 2 || root->operand(0)->opcode() != HloOpcode::kReduce ||
        root->operand(0)->operand(0) != root->operand(1) ||
        root->operand(1)->opcode() == HloOpcode::kParameter) {
      return false;
    }
    reduce = root->operand(0);
  } else if (!root->shape().IsArray()) {
    return false;
  }
  for (const auto& inst : body.instructions()) {
    if (inst.get() == root && root != reduce) continue;
    if (inst->opcode() == HloOpcode::kParameter) {
      if (!inst->shape().IsArray()) return false;
    } else if (!IsElementalSupported(*inst) &&
               !(inst.get() == reduce && IsReduceSupported(*inst))) {
      return false;
    }
  }
  return root->opcode() != HloOpcode::kParameter;
}

// The arrays of `tree`, in order.
void AppendLeaves(const BufferTree& tree, std::vector<BufferRef>& refs) {
  if (!tree.shape.IsTuple()) {
    refs.push_back(RefOf(tree));
    return;
  }
  for (const BufferTree& e : tree.elements) AppendLeaves(e, refs);
}

struct Step {
  const HloInstruction* inst;
  enum Kind { kKernel, kDot, kConvolution, kFallback } kind;
  int64_t kernel = -1;  // index into the kernel specs
};

struct Profile {
  double seconds = 0;
  int64_t calls = 0;
};

class CpuExecutable : public runtime::Executable {
 public:
  absl::Status Compile(const HloModule& original, const runtime::CompileOptions& options) {
    const auto start = Clock::now();
    profile_ = options.profile;
    module_ = original.Clone();
    module_->clear_schedule();
    // Batch norms stay whole (evaluator fallback): expanded into f32 ops, as
    // XLA's CPU pipeline does, their gradients overflow where the evaluator's
    // wider arithmetic does not (mobilenet_v2's training step on random
    // inputs), and the evaluator is the reference.
    LoopFusion fusion;
    XLITE_RETURN_IF_ERROR(fusion.Run(*module_).status());
    pool_ = std::make_unique<ThreadPool>(options.threads);

    const HloComputation& entry = *module_->entry_computation();
    AssignResultSlots(entry.root_instruction(), static_cast<int32_t>(1 + entry.num_parameters()));
    Planner planner;
    absl::flat_hash_map<const HloInstruction*, BufferTree> trees;
    std::vector<Step> steps;
    std::vector<KernelSpec> specs;
    const std::vector<HloInstruction*> order = entry.MakeInstructionPostOrder();
    // Constants and copied-in tuple parameters are written before step 0;
    // constants stay for every call, so they live to the end.
    const int64_t end = static_cast<int64_t>(order.size());
    for (int64_t at = 0; at < end; ++at) {
      const HloInstruction* inst = order[at];
      switch (inst->opcode()) {
        case HloOpcode::kParameter:
          // Arrays are read where the caller keeps them; tuples are copied in.
          if (inst->shape().IsArray()) {
            trees[inst] = BufferTree{
                inst->shape(), 0, {}, static_cast<int32_t>(1 + inst->parameter_number())};
            in_place_.push_back(inst->parameter_number());
          } else {
            trees[inst] = planner.Allocate(inst->shape(), 0);
          }
          parameters_.emplace_back(inst->parameter_number(), trees[inst]);
          continue;
        case HloOpcode::kConstant:
          trees[inst] = planner.Allocate(inst->shape(), 0);
          planner.Use(trees[inst], end);
          constants_.emplace_back(inst, trees[inst]);
          continue;
        case HloOpcode::kTuple: {
          BufferTree tree{inst->shape(), 0, {}};
          for (const HloInstruction* op : inst->operands()) tree.elements.push_back(trees[op]);
          trees[inst] = std::move(tree);
          continue;
        }
        case HloOpcode::kGetTupleElement:
          trees[inst] = trees[inst->operand(0)].elements[inst->tuple_index()];
          continue;
        default:
          break;
      }
      for (const HloInstruction* op : inst->operands()) planner.Use(trees[op], at);
      auto result_slot = result_slots_.find(inst);
      trees[inst] = result_slot == result_slots_.end()
                        ? planner.Allocate(inst->shape(), at)
                        : BufferTree{inst->shape(), 0, {}, result_slot->second};
      Step step{inst, Step::kFallback};
      if (inst->opcode() == HloOpcode::kFusion
              ? IsEmittableFusion(*inst)
              : IsElementalSupported(*inst) || IsReduceSupported(*inst)) {
        step.kind = Step::kKernel;
        step.kernel = static_cast<int64_t>(specs.size());
        specs.push_back(SpecFor(*inst));
      } else if (inst->opcode() == HloOpcode::kDot) {
        step.kind = Step::kDot;
      } else if (inst->opcode() == HloOpcode::kConvolution) {
        step.kind = Step::kConvolution;
      }
      steps.push_back(step);
    }
    // The result is read after the last step.
    planner.Use(trees[entry.root_instruction()], end);
    const int64_t arena_bytes = planner.Place();
    for (auto& [inst, tree] : trees) planner.Resolve(tree);
    for (auto& [number, tree] : parameters_) planner.Resolve(tree);
    for (auto& [inst, tree] : constants_) planner.Resolve(tree);
    root_ = trees[entry.root_instruction()];
    arena_ = std::make_unique<Arena>(arena_bytes);
    if (arena_->data() == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat("cpu backend: cannot allocate its ", arena_bytes, "-byte arena"));
    }
    slots_.assign(1 + entry.num_parameters() + result_paths_.size(), nullptr);
    slots_[0] = arena_->data();
    for (const auto& [inst, tree] : constants_) WriteLiteral(inst->literal(), tree, slots_.data());

    XLITE_ASSIGN_OR_RETURN(kernels_, CompileKernels(specs));
    auto at = [&](const HloInstruction* inst) { return RefOf(trees[inst]); };
    int64_t scratch_bytes = 0;
    for (const Step& step : steps) {
      const HloInstruction& inst = *step.inst;
      std::unique_ptr<Thunk> thunk;
      if (step.kind == Step::kKernel) {
        std::vector<BufferRef> buffers;
        AppendLeaves(trees[&inst], buffers);  // the output, and the side output
        for (const HloInstruction* op : inst.operands()) buffers.push_back(at(op));
        const KernelSpec& spec = specs[step.kernel];
        thunk = MakeKernelThunk(inst, kernels_.kernels[step.kernel], std::move(buffers),
                                KernelWork(spec), TilingOf(spec).tiles());
      } else if (step.kind == Step::kDot) {
        thunk = MaybeMakeDotThunk(inst, at(&inst), at(inst.operand(0)), at(inst.operand(1)));
      } else if (step.kind == Step::kConvolution) {
        thunk = MaybeMakeConvolutionThunk(inst, at(&inst), at(inst.operand(0)), at(inst.operand(1)),
                                          pool_->size());
      }
      if (thunk == nullptr) {
        std::vector<BufferTree> operands;
        for (const HloInstruction* op : inst.operands()) operands.push_back(trees[op]);
        thunk = MakeFallbackThunk(inst, std::move(operands), trees[&inst]);
      }
      scratch_bytes = std::max(scratch_bytes, thunk->scratch_bytes());
      thunks_.push_back(std::move(thunk));
    }
    if (scratch_bytes > 0) {
      scratch_ = std::make_unique<Arena>(scratch_bytes);
      if (scratch_->data() == nullptr) {
        return absl::ResourceExhaustedError(
            absl::StrCat("cpu backend: cannot allocate its ", scratch_bytes, "-byte scratch"));
      }
    }
    profiles_.assign(thunks_.size(), Profile{});
    compile_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return absl::OkStatus();
  }

  absl::StatusOr<Literal> Execute(absl::Span<const Literal> args,
                                  const runtime::ExecuteOptions& options) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (args.size() != parameters_.size()) {
      return InvalidArgument("the entry takes ", parameters_.size(), " arguments, got ",
                             args.size());
    }
    for (const auto& [number, tree] : parameters_) {
      if (number < 0 || number >= static_cast<int64_t>(args.size()) ||
          !SameDimensions(args[number].shape(), tree.shape)) {
        return InvalidArgument("argument ", number, " does not have the shape ",
                               tree.shape.ToString());
      }
      if (tree.slot == 0) WriteLiteral(args[number], tree, slots_.data());
    }
    for (int64_t number : in_place_) {
      slots_[1 + number] = const_cast<uint8_t*>(args[number].raw_data().data());
    }
    // Every array of the result is written below (by its thunk, or copied).
    XLITE_ASSIGN_OR_RETURN(Literal result, Literal::CreateForOverwrite(root_.shape));
    for (size_t k = 0; k < result_paths_.size(); ++k) {
      Literal* leaf = &result;
      for (int64_t i : result_paths_[k]) leaf = &leaf->mutable_tuple_elements()[i];
      slots_[first_result_slot_ + k] = leaf->mutable_raw_data().data();
    }
    ThunkContext ctx;
    ctx.slots = slots_.data();
    ctx.pool = pool_.get();
    ctx.scratch = scratch_ != nullptr ? scratch_->data() : nullptr;
    ctx.eval_options.rng_seed = options.rng_seed;
    ctx.eval_options.deadline = options.deadline;
    for (size_t i = 0; i < thunks_.size(); ++i) {
      const auto start = Clock::now();
      if (start > options.deadline) {
        return absl::DeadlineExceededError("the cpu backend ran past its deadline");
      }
      XLITE_RETURN_IF_ERROR(thunks_[i]->Run(ctx));
      if (profile_) {
        profiles_[i].seconds += std::chrono::duration<double>(Clock::now() - start).count();
        ++profiles_[i].calls;
      }
    }
    FillLiteral(root_, result, slots_.data());
    return result;
  }

  std::string ProfileReport() const override {
    std::string out = absl::StrFormat(
        "cpu backend: compile %.1f ms (JIT %s), arena %d bytes, scratch %d bytes, %d threads\n",
        compile_ms_, kernels_.cached ? "cached" : absl::StrFormat("%.1f ms", kernels_.compile_ms),
        arena_->bytes(), scratch_ != nullptr ? scratch_->bytes() : 0, pool_->size());
    out += absl::StrFormat("%-9s %12s %8s  %s\n", "kind", "total_ms", "calls", "instruction");
    std::vector<std::string> fallbacks;
    for (size_t i = 0; i < thunks_.size(); ++i) {
      const HloInstruction& inst = thunks_[i]->instruction();
      std::string what =
          absl::StrCat(inst.name(), " (", std::string(OpcodeName(inst.opcode())), ")");
      out += absl::StrFormat("%-9s %12.3f %8d  %s\n", std::string(thunks_[i]->kind()),
                             profiles_[i].seconds * 1e3, profiles_[i].calls, what);
      if (thunks_[i]->kind() == "fallback") fallbacks.push_back(what);
    }
    out += absl::StrCat("fallback to the evaluator: ", fallbacks.size(), " instruction(s)",
                        fallbacks.empty() ? "" : ": ");
    for (size_t i = 0; i < fallbacks.size(); ++i) {
      out += absl::StrCat(i > 0 ? ", " : "", fallbacks[i]);
    }
    return out + "\n";
  }

 private:
  // The arrays the root returns through tuple instructions (not parameters,
  // constants or repeats) get slots from `first` on, bound per call to the
  // result literal's arrays, so they are computed where the caller gets them.
  void AssignResultSlots(const HloInstruction* inst, int32_t first) {
    first_result_slot_ = first;
    std::vector<int64_t> path;
    AssignResultSlots(inst, path);
  }
  void AssignResultSlots(const HloInstruction* inst, std::vector<int64_t>& path) {
    if (inst->opcode() == HloOpcode::kTuple) {
      for (int64_t i = 0; i < inst->operand_count(); ++i) {
        path.push_back(i);
        AssignResultSlots(inst->operand(i), path);
        path.pop_back();
      }
      return;
    }
    if (!inst->shape().IsArray() || inst->opcode() == HloOpcode::kParameter ||
        inst->opcode() == HloOpcode::kConstant || result_slots_.contains(inst)) {
      return;
    }
    result_slots_[inst] = first_result_slot_ + static_cast<int32_t>(result_paths_.size());
    result_paths_.push_back(path);
  }

  static bool SameDimensions(const Shape& a, const Shape& b) {
    if (a.IsTuple() != b.IsTuple()) return false;
    if (a.IsTuple()) {
      if (a.tuple_shapes().size() != b.tuple_shapes().size()) return false;
      for (size_t i = 0; i < a.tuple_shapes().size(); ++i) {
        if (!SameDimensions(a.tuple_shapes()[i], b.tuple_shapes()[i])) return false;
      }
      return true;
    }
    return a.element_type() == b.element_type() && a.dimensions() == b.dimensions();
  }

  std::unique_ptr<HloModule> module_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<Arena> arena_;
  std::unique_ptr<Arena> scratch_;  // ThunkContext::scratch
  std::vector<std::pair<int64_t, BufferTree>> parameters_;
  std::vector<int64_t> in_place_;  // array parameters, read from the arguments
  std::vector<uint8_t*> slots_;    // this call's bases (see BufferTree)
  absl::flat_hash_map<const HloInstruction*, int32_t> result_slots_;
  std::vector<std::vector<int64_t>> result_paths_;  // per result slot, its tuple index
  int32_t first_result_slot_ = 0;
  std::vector<std::pair<const HloInstruction*, BufferTree>> constants_;
  BufferTree root_;
  CompiledKernels kernels_;
  std::vector<std::unique_ptr<Thunk>> thunks_;
  std::vector<Profile> profiles_;
  bool profile_ = false;
  double compile_ms_ = 0;
  std::mutex mutex_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<runtime::Executable>> CompileCpuExecutable(
    const HloModule& module, const runtime::CompileOptions& options) {
  auto executable = std::make_unique<CpuExecutable>();
  XLITE_RETURN_IF_ERROR(executable->Compile(module, options));
  return executable;
}

}  // namespace xlite::cpu
