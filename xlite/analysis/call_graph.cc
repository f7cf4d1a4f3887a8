#include "xlite/analysis/call_graph.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace xlite {

std::string CallDepthMessage() {
  return absl::StrCat("computations nested more than ", kMaxCallDepth,
                      " deep (xlite's limit on chains of calls, fusions and control flow)");
}

CallKind CallKindOf(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kCall:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
      return CallKind::kControlFlow;
    case HloOpcode::kFusion:
      return CallKind::kFusion;
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return CallKind::kAsync;
    default:
      return CallKind::kEmbedded;
  }
}

std::string_view CallKindName(CallKind kind) {
  switch (kind) {
    case CallKind::kControlFlow:
      return "control-flow";
    case CallKind::kEmbedded:
      return "embedded";
    case CallKind::kFusion:
      return "fusion";
    case CallKind::kAsync:
      return "async";
  }
  return "?";
}

CallGraph::CallGraph(const HloModule& module) {
  for (const auto& c : module.computations()) {
    index_.emplace(c.get(), computations_.size());
    computations_.push_back(c.get());
  }
  nodes_.resize(computations_.size());
  for (size_t i = 0; i < computations_.size(); ++i) {
    for (const auto& inst : computations_[i]->instructions()) {
      CallKind kind = CallKindOf(inst->opcode());
      const auto& called = inst->called_computations();
      for (size_t k = 0; k < called.size(); ++k) {
        CallSite site{inst.get(), static_cast<int64_t>(k), kind};
        nodes_[i].sites_in.push_back(site);
        auto callee = index_.find(called[k]);
        // A computation outside the module (malformed input) has no node.
        if (callee != index_.end()) nodes_[callee->second].sites_of.push_back(site);
      }
    }
  }
  ComputePostOrder(module);
}

void CallGraph::ComputePostOrder(const HloModule& module) {
  if (module.entry_computation() == nullptr) return;
  auto entry = index_.find(module.entry_computation());
  if (entry == index_.end()) return;
  // Iterative depth-first search: each frame is a node and the next site to
  // follow. A callee already on the stack (a cycle, which the verifier
  // rejects) is skipped, so this always ends.
  enum class State : uint8_t { kNew, kOnStack, kDone };
  std::vector<State> state(nodes_.size(), State::kNew);
  std::vector<std::pair<size_t, size_t>> stack = {{entry->second, 0}};
  state[entry->second] = State::kOnStack;
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    const std::vector<CallSite>& sites = nodes_[node].sites_in;
    if (next == sites.size()) {
      state[node] = State::kDone;
      nodes_[node].reachable = true;
      post_order_.push_back(computations_[node]);
      stack.pop_back();
      continue;
    }
    auto callee = index_.find(sites[next++].callee());
    if (callee == index_.end() || state[callee->second] != State::kNew) continue;
    state[callee->second] = State::kOnStack;
    stack.emplace_back(callee->second, 0);
  }
}

const CallGraph::Node* CallGraph::Find(const HloComputation& computation) const {
  auto it = index_.find(&computation);
  return it == index_.end() ? nullptr : &nodes_[it->second];
}

absl::Span<const CallSite> CallGraph::CallSitesOf(const HloComputation& computation) const {
  const Node* node = Find(computation);
  if (node == nullptr) return {};
  return node->sites_of;
}

absl::Span<const CallSite> CallGraph::CallSitesIn(const HloComputation& computation) const {
  const Node* node = Find(computation);
  if (node == nullptr) return {};
  return node->sites_in;
}

namespace {

void AppendOnce(HloComputation* c, std::vector<HloComputation*>& out) {
  if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
}

}  // namespace

std::vector<HloComputation*> CallGraph::CallersOf(const HloComputation& computation) const {
  std::vector<HloComputation*> callers;
  for (const CallSite& site : CallSitesOf(computation)) AppendOnce(site.caller(), callers);
  return callers;
}

std::vector<HloComputation*> CallGraph::CalleesOf(const HloComputation& computation) const {
  std::vector<HloComputation*> callees;
  for (const CallSite& site : CallSitesIn(computation)) AppendOnce(site.callee(), callees);
  return callees;
}

bool CallGraph::IsCalledAs(const HloComputation& computation, CallKind kind) const {
  for (const CallSite& site : CallSitesOf(computation)) {
    if (site.kind == kind) return true;
  }
  return false;
}

bool CallGraph::IsReachable(const HloComputation& computation) const {
  const Node* node = Find(computation);
  return node != nullptr && node->reachable;
}

std::vector<std::string> CallGraph::ExecutionThreads() const {
  std::vector<std::string> threads;
  for (const HloComputation* c : post_order_) {
    if (std::find(threads.begin(), threads.end(), c->execution_thread()) == threads.end()) {
      threads.push_back(c->execution_thread());
    }
  }
  std::sort(threads.begin(), threads.end(), [](const std::string& a, const std::string& b) {
    if ((a == "main") != (b == "main")) return a == "main";
    return a < b;
  });
  return threads;
}

std::vector<HloComputation*> CallGraph::ComputationsOnThread(std::string_view thread) const {
  std::vector<HloComputation*> on_thread;
  for (HloComputation* c : post_order_) {
    if (c->execution_thread() == thread) on_thread.push_back(c);
  }
  return on_thread;
}

}  // namespace xlite
