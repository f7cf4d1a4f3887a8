// The call graph of a module: which instructions call which computations and
// in what kind of call (control flow, embedded reducer/comparator, fusion
// body, async wrapped computation), what the entry reaches, a callees-first
// order and the execution threads. A snapshot: rebuild it after a pass adds
// or removes calls.
#ifndef XLITE_ANALYSIS_CALL_GRAPH_H_
#define XLITE_ANALYSIS_CALL_GRAPH_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "xlite/ir/module.h"

namespace xlite {

// How an instruction runs a computation it calls.
enum class CallKind : uint8_t {
  // call, while condition and body, conditional branches: the computation
  // runs as a sequence of its own (it gets a schedule, buffers, a thunk).
  kControlFlow,
  // to_apply of reduce, map, sort, scatter, all-reduce...: applied per
  // element (or per pair of elements) inside the caller.
  kEmbedded,
  // The body of a fusion instruction.
  kFusion,
  // The computation an async-start / async-update / async-done wraps.
  kAsync,
};

// The deepest nesting of computations (a chain of calls of any kind) xlite
// takes: the verifier refuses deeper modules, so every layer may walk called
// computations recursively within a thread's stack.
inline constexpr int64_t kMaxCallDepth = 1000;
// The refusal's one text: "computations nested more than 1000 deep ...".
std::string CallDepthMessage();

// The one place saying which kind of call an opcode makes.
CallKind CallKindOf(HloOpcode opcode);
std::string_view CallKindName(CallKind kind);

// One use of a computation: `instruction->called_computations()[index]`.
struct CallSite {
  HloInstruction* instruction = nullptr;
  int64_t index = 0;
  CallKind kind = CallKind::kControlFlow;

  HloComputation* callee() const { return instruction->called_computations()[index]; }
  HloComputation* caller() const { return instruction->parent(); }
};

class CallGraph {
 public:
  explicit CallGraph(const HloModule& module);

  // The sites calling `computation`, in module order (calling computations
  // as the module lists them, then instruction order). An instruction that
  // calls it twice (a while whose condition is its body) is two sites.
  absl::Span<const CallSite> CallSitesOf(const HloComputation& computation) const;
  // The sites inside `computation`, in instruction order.
  absl::Span<const CallSite> CallSitesIn(const HloComputation& computation) const;
  // The computations calling `computation`, each once, in module order.
  std::vector<HloComputation*> CallersOf(const HloComputation& computation) const;
  // The computations `computation` calls, each once, in first-call order.
  std::vector<HloComputation*> CalleesOf(const HloComputation& computation) const;
  // Whether some site calls `computation` with `kind`.
  bool IsCalledAs(const HloComputation& computation, CallKind kind) const;

  // Whether the entry reaches `computation` through calls (the entry itself
  // included).
  bool IsReachable(const HloComputation& computation) const;
  // The computations the entry reaches, callees before callers (a depth-
  // first post order from the entry over sites in instruction order), the
  // entry last. Empty when the module has no entry.
  const std::vector<HloComputation*>& PostOrder() const { return post_order_; }

  // The execution threads of the reachable computations, each once, "main"
  // first, then the others in name order.
  std::vector<std::string> ExecutionThreads() const;
  // The reachable computations on `thread`, in PostOrder() order.
  std::vector<HloComputation*> ComputationsOnThread(std::string_view thread) const;

 private:
  struct Node {
    std::vector<CallSite> sites_in;  // calls this computation makes
    std::vector<CallSite> sites_of;  // calls of this computation
    bool reachable = false;
  };
  const Node* Find(const HloComputation& computation) const;
  void ComputePostOrder(const HloModule& module);

  std::vector<HloComputation*> computations_;  // module order
  std::vector<Node> nodes_;                    // parallel to computations_
  // Looked up only, never iterated (output follows computations_).
  absl::flat_hash_map<const HloComputation*, size_t> index_;
  std::vector<HloComputation*> post_order_;
};

}  // namespace xlite

#endif  // XLITE_ANALYSIS_CALL_GRAPH_H_
