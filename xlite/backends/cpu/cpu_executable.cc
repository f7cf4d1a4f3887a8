#include "xlite/backends/cpu/cpu_executable.h"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xlite/backends/cpu/conv_fusion.h"
#include "xlite/backends/cpu/convolution_thunk.h"
#include "xlite/backends/cpu/cpu_memory_plan.h"
#include "xlite/backends/cpu/fusion.h"
#include "xlite/backends/cpu/kernel_emitter.h"
#include "xlite/backends/cpu/thread_pool.h"
#include "xlite/backends/cpu/thunks.h"
#include "xlite/base/status.h"
#include "xlite/ir/computation.h"

namespace xlite::cpu {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kAlignment = kArenaAlignment;
constexpr int64_t kHugePage = int64_t{2} << 20;

// One allocation for every buffer of the program, touched once at compile
// time (the first touch of a page is the expensive part) and backed by huge
// pages where the kernel allows.
class Arena {
 public:
  explicit Arena(int64_t bytes) : bytes_(bytes) {
    const int64_t rounded =
        (std::max<int64_t>(bytes_, kAlignment) + kHugePage - 1) / kHugePage * kHugePage;
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

// Writes a constant at its place in the order: one whose buffer the
// assignment shares over time (an output, or a buffer a thunk writes) holds
// it only from its own step on.
class ConstantThunk : public Thunk {
 public:
  ConstantThunk(const HloInstruction& inst, BufferTree tree)
      : Thunk(inst), tree_(std::move(tree)) {}
  std::string_view kind() const override { return "constant"; }
  absl::Status Run(ThunkContext& ctx) override {
    WriteLiteral(instruction().literal(), tree_, ctx.slots);
    return absl::OkStatus();
  }

 private:
  BufferTree tree_;
};

struct Step {
  const HloInstruction* inst;
  enum Kind { kKernel, kDot, kConvolution, kFallback, kConstant } kind;
  int64_t kernel = -1;  // index into the kernel specs
};

struct Profile {
  double seconds = 0;
  int64_t calls = 0;
};

class CpuExecutable : public runtime::Executable {
 public:
  // `prepared` is the module as PrepareCpuModule left it.
  absl::Status Compile(std::unique_ptr<HloModule> prepared,
                       const runtime::CompileOptions& options) {
    const auto start = Clock::now();
    profile_ = options.profile;
    module_ = std::move(prepared);
    pool_ = std::make_unique<ThreadPool>(options.threads);

    // The shared buffer assignment places every buffer; the thunks run in
    // its schedule's entry order.
    XLITE_ASSIGN_OR_RETURN(CpuMemoryPlan plan, PlanCpuMemory(*module_));
    const HloComputation& entry = *module_->entry_computation();
    const AliasAnalysis& aliases = *plan.aliases;
    const DataflowAnalysis& df = aliases.dataflow();
    const int32_t first_result_slot = static_cast<int32_t>(1 + entry.num_parameters());
    // Entry array parameters the program does not write stay in the
    // caller's arguments.
    absl::flat_hash_map<int32_t, int32_t> slot_of_buffer;
    for (int64_t p = 0; p < entry.num_parameters(); ++p) {
      const HloInstruction* param = entry.parameter_instruction(p);
      if (param == nullptr || !param->shape().IsArray()) continue;
      const int32_t value = df.ValueDefinedAt(*param, {});
      if (value < 0) continue;
      const int32_t buffer = aliases.BufferOfValue(value);
      if (!plan.options.in_arena[buffer]) slot_of_buffer.emplace(buffer, 1 + p);
    }
    // The root's arrays that a thunk writes outside the arena are computed
    // in the result literal (one slot per buffer; a repeat is copied).
    {
      std::vector<int64_t> path;
      AssignResultSlots(entry.root_instruction()->shape(), *entry.root_instruction(), path, plan,
                        first_result_slot, slot_of_buffer);
    }
    absl::Status located = absl::OkStatus();
    auto tree_of = [&](const HloInstruction& inst) {
      std::vector<int64_t> index;
      return TreeOf(inst, inst.shape(), index, plan, slot_of_buffer, located);
    };
    absl::flat_hash_map<const HloInstruction*, BufferTree> trees;
    std::vector<Step> steps;
    std::vector<KernelSpec> specs;
    for (const HloInstruction* inst : module_->schedule().sequence(entry)) {
      trees[inst] = tree_of(*inst);
      switch (inst->opcode()) {
        case HloOpcode::kParameter: {
          const BufferTree& tree = trees[inst];
          const int32_t own = static_cast<int32_t>(1 + inst->parameter_number());
          if (inst->shape().IsArray() && tree.slot == own)
            in_place_.push_back(inst->parameter_number());
          parameters_.emplace_back(inst->parameter_number(), tree);
          continue;
        }
        case HloOpcode::kConstant: {
          // Written once when its buffer holds nothing else for the whole
          // program; else at its step of every call (a result, or a buffer
          // a thunk writes too).
          const int32_t value = df.ValueDefinedAt(*inst, {});
          const int32_t buffer = value < 0 ? -1 : aliases.BufferOfValue(value);
          if (buffer >= 0 && plan.options.in_arena[buffer] &&
              aliases.buffer(buffer).kind == BufferKind::kConstant &&
              aliases.buffer(buffer).values.size() == 1) {
            constants_.emplace_back(inst, trees[inst]);
          } else {
            steps.push_back(Step{inst, Step::kConstant});
          }
          continue;
        }
        case HloOpcode::kTuple:
        case HloOpcode::kGetTupleElement:
          continue;
        default:
          break;
      }
      Step step{inst, Step::kFallback};
      if (FusedConvolution(*inst) != nullptr) {
        step.kind = Step::kConvolution;
      } else if (inst->opcode() == HloOpcode::kFusion
                     ? IsEmittableFusion(*inst)
                     : IsElementalSupported(*inst) || IsReduceSupported(*inst)) {
        step.kind = Step::kKernel;
        step.kernel = static_cast<int64_t>(specs.size());
        KernelSpec spec = SpecFor(*inst);
        // Operands the assignment placed where the output goes (sharing is
        // only ever granted to elementwise uses, see CanShareOperandBuffer).
        const BufferTree& out = trees[inst];
        if (spec.outputs() == 1 && !out.shape.IsTuple() &&
            static_cast<int64_t>(spec.inputs.size()) == inst->operand_count()) {
          for (int64_t i = 0; i < inst->operand_count(); ++i) {
            const BufferTree& in = trees[inst->operand(i)];
            if (!in.shape.IsTuple() && in.slot == out.slot && in.offset == out.offset &&
                in.shape.IsArray() && in.shape.ElementCount() > 0) {
              spec.in_place_inputs.push_back(i);
            }
          }
        }
        specs.push_back(std::move(spec));
      } else if (inst->opcode() == HloOpcode::kDot) {
        step.kind = Step::kDot;
      } else if (inst->opcode() == HloOpcode::kConvolution) {
        step.kind = Step::kConvolution;
      }
      steps.push_back(step);
    }
    XLITE_RETURN_IF_ERROR(located);
    const int64_t arena_bytes = plan.assignment.arena_bytes;
    root_ = trees[entry.root_instruction()];
    arena_ = std::make_unique<Arena>(arena_bytes);
    if (arena_->data() == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat("cpu backend: cannot allocate its ", arena_bytes, "-byte arena"));
    }
    slots_.assign(first_result_slot + result_paths_.size(), nullptr);
    slots_[0] = arena_->data();
    first_result_slot_ = first_result_slot;
    for (const auto& [inst, tree] : constants_) WriteLiteral(inst->literal(), tree, slots_.data());

    XLITE_ASSIGN_OR_RETURN(kernels_, CompileKernels(specs));
    auto at = [&](const HloInstruction* inst) { return RefOf(trees[inst]); };
    absl::flat_hash_set<const HloInstruction*> written_once;
    for (const auto& [inst, tree] : constants_) written_once.insert(inst);
    for (const Step& step : steps) {
      const HloInstruction& inst = *step.inst;
      std::unique_ptr<Thunk> thunk;
      if (step.kind == Step::kConstant) {
        thunk = std::make_unique<ConstantThunk>(inst, trees[&inst]);
      } else if (step.kind == Step::kKernel) {
        std::vector<BufferRef> buffers;
        AppendLeaves(trees[&inst], buffers);  // the output, and the side output
        for (const HloInstruction* op : inst.operands()) buffers.push_back(at(op));
        const KernelSpec& spec = specs[step.kernel];
        thunk = MakeKernelThunk(inst, kernels_.kernels[step.kernel], std::move(buffers),
                                KernelWork(spec), TilingOf(spec).tiles());
      } else if (step.kind == Step::kDot) {
        thunk = MaybeMakeDotThunk(inst, at(&inst), at(inst.operand(0)), at(inst.operand(1)));
      } else if (step.kind == Step::kConvolution) {
        std::vector<BufferRef> operands;
        std::vector<const uint8_t*> constant_data;
        for (const HloInstruction* op : inst.operands()) {
          operands.push_back(at(op));
          constant_data.push_back(written_once.contains(op) ? Resolve(at(op), slots_.data())
                                                            : nullptr);
        }
        thunk = MaybeMakeConvolutionThunk(inst, at(&inst), std::move(operands), constant_data,
                                          pool_->size());
      }
      if (thunk == nullptr) {
        std::vector<BufferTree> operands;
        for (const HloInstruction* op : inst.operands()) operands.push_back(trees[op]);
        thunk = MakeFallbackThunk(inst, std::move(operands), trees[&inst]);
      }
      thunks_.push_back(std::move(thunk));
    }
    ChainBlockedConvolutions(thunks_, *entry.root_instruction());
    int64_t scratch_bytes = 0;
    for (const auto& thunk : thunks_)
      scratch_bytes = std::max(scratch_bytes, thunk->scratch_bytes());
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
    // Parameters not read in place are copied in (tuples, and those the
    // program writes: the arena or the result holds them).
    for (const auto& [number, tree] : parameters_) {
      if (tree.slot != 1 + number || tree.shape.IsTuple()) {
        WriteLiteral(args[number], tree, slots_.data());
      }
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

  int64_t arena_bytes() const override { return arena_->bytes(); }
  int64_t scratch_bytes() const override { return scratch_ != nullptr ? scratch_->bytes() : 0; }

  std::string ProfileReport() const override {
    std::string out = absl::StrFormat(
        "cpu backend: compile %.1f ms (JIT %s), arena %d bytes, scratch %d bytes, %d threads\n",
        compile_ms_, kernels_.cached ? "cached" : absl::StrFormat("%.1f ms", kernels_.compile_ms),
        arena_->bytes(), scratch_ != nullptr ? scratch_->bytes() : 0, pool_->size());
    // Thunks by time spent, the most expensive first, then the sum.
    std::vector<size_t> order(thunks_.size());
    double total_seconds = 0;
    int64_t total_calls = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      order[i] = i;
      total_seconds += profiles_[i].seconds;
      total_calls += profiles_[i].calls;
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return profiles_[a].seconds > profiles_[b].seconds;
    });
    out += absl::StrFormat("%-9s %12s %7s %8s  %s\n", "kind", "total_ms", "share", "calls",
                           "instruction");
    std::vector<std::string> fallbacks;
    for (size_t i : order) {
      const HloInstruction& inst = thunks_[i]->instruction();
      std::string what =
          absl::StrCat(inst.name(), " (", std::string(OpcodeName(inst.opcode())), ")");
      double share = total_seconds > 0 ? 100 * profiles_[i].seconds / total_seconds : 0;
      out += absl::StrFormat("%-9s %12.3f %6.1f%% %8d  %s\n", std::string(thunks_[i]->kind()),
                             profiles_[i].seconds * 1e3, share, profiles_[i].calls, what);
      if (thunks_[i]->kind() == "fallback") fallbacks.push_back(what);
    }
    out += absl::StrFormat("%-9s %12.3f %6.1f%% %8d  %d thunks\n", "total", total_seconds * 1e3,
                           total_seconds > 0 ? 100.0 : 0.0, total_calls, thunks_.size());
    out += absl::StrCat("fallback to the evaluator: ", fallbacks.size(), " instruction(s)",
                        fallbacks.empty() ? "" : ": ");
    for (size_t i = 0; i < fallbacks.size(); ++i) {
      out += absl::StrCat(i > 0 ? ", " : "", fallbacks[i]);
    }
    return out + "\n";
  }

 private:
  // Result slots for the buffers at the root's array leaves that the plan
  // keeps outside the arena (and that are not the caller's arguments).
  void AssignResultSlots(const Shape& shape, const HloInstruction& root, std::vector<int64_t>& path,
                         const CpuMemoryPlan& plan, int32_t first,
                         absl::flat_hash_map<int32_t, int32_t>& slot_of_buffer) {
    if (shape.IsTuple()) {
      for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size()); ++i) {
        path.push_back(i);
        AssignResultSlots(shape.tuple_shapes()[i], root, path, plan, first, slot_of_buffer);
        path.pop_back();
      }
      return;
    }
    if (!shape.IsArray()) return;
    absl::Span<const int32_t> set = plan.aliases->dataflow().ValueSetAt(root, path);
    if (set.empty()) return;
    const int32_t buffer = plan.aliases->BufferOfValue(set[0]);
    if (plan.options.in_arena[buffer] || slot_of_buffer.contains(buffer)) return;
    slot_of_buffer.emplace(buffer, first + static_cast<int32_t>(result_paths_.size()));
    result_paths_.push_back(path);
  }

  // Where `inst`'s arrays live: the arena offset of their buffer, or its
  // argument or result slot.
  static BufferTree TreeOf(const HloInstruction& inst, const Shape& shape,
                           std::vector<int64_t>& index, const CpuMemoryPlan& plan,
                           const absl::flat_hash_map<int32_t, int32_t>& slot_of_buffer,
                           absl::Status& status) {
    BufferTree tree{shape, 0, {}};
    if (shape.IsTuple()) {
      for (int64_t i = 0; i < static_cast<int64_t>(shape.tuple_shapes().size()); ++i) {
        index.push_back(i);
        tree.elements.push_back(
            TreeOf(inst, shape.tuple_shapes()[i], index, plan, slot_of_buffer, status));
        index.pop_back();
      }
      return tree;
    }
    absl::Span<const int32_t> set = plan.aliases->dataflow().ValueSetAt(inst, index);
    if (set.empty()) {
      if (shape.IsArray() && status.ok()) {
        status = absl::InternalError(absl::StrCat("cpu backend: no buffer for ", inst.name()));
      }
      return tree;
    }
    const int32_t buffer = plan.aliases->BufferOfValue(set[0]);
    const int64_t offset = plan.assignment.offsets[buffer];
    if (offset >= 0) {
      tree.offset = offset;
    } else if (auto it = slot_of_buffer.find(buffer); it != slot_of_buffer.end()) {
      tree.slot = it->second;
    } else if (shape.IsArray() && status.ok()) {
      status = absl::InternalError(
          absl::StrCat("cpu backend: the buffer of ", inst.name(), " has no place"));
    }
    return tree;
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
  std::vector<int64_t> in_place_;                   // array parameters, read from the arguments
  std::vector<uint8_t*> slots_;                     // this call's bases (see BufferTree)
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

absl::StatusOr<std::unique_ptr<runtime::Executable>> CompilePreparedCpuExecutable(
    const HloModule& prepared, const runtime::CompileOptions& options) {
  auto executable = std::make_unique<CpuExecutable>();
  XLITE_RETURN_IF_ERROR(executable->Compile(prepared.Clone(), options));
  return executable;
}

absl::StatusOr<std::unique_ptr<runtime::Executable>> CompileCpuExecutable(
    const HloModule& module, const runtime::CompileOptions& options) {
  std::unique_ptr<HloModule> prepared = module.Clone();
  XLITE_RETURN_IF_ERROR(PrepareCpuModule(*prepared));
  auto executable = std::make_unique<CpuExecutable>();
  XLITE_RETURN_IF_ERROR(executable->Compile(std::move(prepared), options));
  return executable;
}

}  // namespace xlite::cpu
