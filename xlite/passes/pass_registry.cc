#include "xlite/passes/pass_registry.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/passes/algebraic_simplifier.h"
#include "xlite/passes/call_inliner.h"
#include "xlite/passes/conditional_simplifier.h"
#include "xlite/passes/constant_folding.h"
#include "xlite/passes/cse.h"
#include "xlite/passes/dce.h"
#include "xlite/passes/dot_decomposer.h"
#include "xlite/passes/expanders.h"
#include "xlite/passes/flatten_call_graph.h"
#include "xlite/passes/logistic_expander.h"
#include "xlite/passes/reshape_mover.h"
#include "xlite/passes/sort_simplifier.h"
#include "xlite/passes/tuple_simplifier.h"
#include "xlite/passes/while_loop_invariant_code_motion.h"
#include "xlite/passes/while_loop_simplifier.h"
#include "xlite/passes/zero_sized_elimination.h"

namespace xlite {
namespace {

// Factory of a pass that takes no arguments.
template <typename T>
absl::StatusOr<std::unique_ptr<HloPass>> Make(PassArgs&) {
  return std::unique_ptr<HloPass>(std::make_unique<T>());
}

absl::StatusOr<std::unique_ptr<HloPass>> MakeLogisticExpander(PassArgs& args) {
  XLITE_ASSIGN_OR_RETURN(int strategy, args.TakeChoice("strategy", "exp", {"exp", "tanh"}));
  return std::unique_ptr<HloPass>(std::make_unique<LogisticExpanderPass>(
      strategy == 1 ? LogisticStrategy::kTanh : LogisticStrategy::kExp));
}

absl::StatusOr<std::unique_ptr<HloPass>> MakePowExpander(PassArgs& args) {
  XLITE_ASSIGN_OR_RETURN(int64_t max_exponent, args.TakeInt("max_exponent", 8, 0));
  return std::unique_ptr<HloPass>(std::make_unique<PowExpanderPass>(max_exponent));
}

absl::StatusOr<std::unique_ptr<HloPass>> MakeBatchNormExpander(PassArgs& args) {
  XLITE_ASSIGN_OR_RETURN(bool training, args.TakeBool("rewrite_training_op", true));
  XLITE_ASSIGN_OR_RETURN(bool inference, args.TakeBool("rewrite_inference_op", true));
  XLITE_ASSIGN_OR_RETURN(bool grad, args.TakeBool("rewrite_grad_op", true));
  return std::unique_ptr<HloPass>(
      std::make_unique<BatchNormExpanderPass>(training, inference, grad));
}

std::vector<PassInfo> MakeTable() {
  std::vector<PassInfo> passes = {
      {"algsimp",
       "algebraic simplification: arithmetic identities, shape-op chains, no-op ops, "
       "lossless converts, constant selects, outer-product dots, reduce of broadcast",
       Make<AlgebraicSimplifierPass>},
      {"call-inliner", "inlines every non-composite call", Make<CallInlinerPass>},
      {"simplify-conditional",
       "inlines the branch of a conditional with a constant selector or a single branch",
       Make<ConditionalSimplifierPass>},
      {"zero_sized_hlo_elimination",
       "replaces side-effect-free instructions with zero-element results by empty constants",
       Make<ZeroSizedEliminationPass>},
      {"constant_folding",
       "evaluates side-effect-free instructions whose operands are all constants "
       "(skips broadcast, iota, rng and results above 45M elements or growing past 1024)",
       Make<ConstantFoldingPass>},
      {"batchnorm_expander",
       "expands batch-norm-training/-inference/-grad to reduce/broadcast/elementwise ops "
       "(rewrite_training_op, rewrite_inference_op, rewrite_grad_op: true by default)",
       MakeBatchNormExpander},
      {"cbrt-expander", "expands cbrt(x) to sign(x) * power(|x|, 1/3)", Make<CbrtExpanderPass>},
      {"comparison-expander",
       "expands total-order float compares to signed integer compares of the bit patterns",
       Make<ComparisonExpanderPass>},
      {"erf-expander",
       "expands f32/f16/bf16 erf to a clamped rational approximation in f32 (within 8 ulp)",
       Make<ErfExpanderPass>},
      {"pow-expander",
       "expands power by a constant integer exponent to square-and-multiply: exact for "
       "integers, floats for 0 <= n <= max_exponent (default 8)",
       MakePowExpander},
      {"reduce-precision-expander",
       "expands reduce-precision to integer bit operations (round to nearest even, "
       "exponent clamp, NaN kept)",
       Make<ReducePrecisionExpanderPass>},
      {"rng-expander",
       "expands float rng (uniform, normal) to rng-bit-generator and bit manipulation "
       "(a different random stream from the evaluator's rng)",
       Make<RngExpanderPass>},
      {"rsqrt-expander", "expands rsqrt(x) to 1 / sqrt(x)", Make<RsqrtExpanderPass>},
      {"cse", "merges identical side-effect-free instructions (common subexpressions)",
       Make<CsePass>},
      {"dce", "removes unused side-effect-free instructions and uncalled computations",
       Make<DcePass>},
      {"dot_decomposer",
       "rewrites non-canonical dots as transposes/reshapes around a [B..,M,K]x[B..,K,N] dot",
       Make<DotDecomposerPass>},
      {"flatten-call-graph",
       "clones computations called from several call/while/conditional sites so that "
       "each has one caller",
       Make<FlattenCallGraphPass>},
      {"reshape-mover",
       "sinks equivalent reshapes/transposes below elementwise ops so that they can cancel",
       Make<ReshapeMoverPass>},
      {"logistic-expander",
       "expands logistic(x): strategy=exp (default) 1/(1+exp(-x)), or strategy=tanh "
       "0.5+0.5*tanh(0.5*x)",
       MakeLogisticExpander},
      {"simplify-sorting",
       "removes sort operands whose outputs are unused and that the comparator ignores",
       Make<SortSimplifierPass>},
      {"tuple-simplifier",
       "forwards get-tuple-element of a tuple and replaces a tuple rebuilt from all "
       "elements of another tuple by that tuple",
       Make<TupleSimplifierPass>},
      {"while-loop-invariant-code-motion",
       "hoists loop-invariant work out of while bodies into new loop state elements",
       Make<WhileLoopInvariantCodeMotionPass>},
      {"while-loop-simplifier",
       "removes while loops running 0 or 1 times and dead while-loop state elements",
       Make<WhileLoopSimplifierPass>},
  };
  std::sort(passes.begin(), passes.end(),
            [](const PassInfo& a, const PassInfo& b) { return a.name < b.name; });
  return passes;
}

// `name{k=v,k=v}` -> name and arguments.
absl::Status SplitSpec(std::string_view spec, std::string_view* name,
                       std::map<std::string, std::string>* args) {
  size_t brace = spec.find('{');
  *name = spec.substr(0, brace);
  if (brace == std::string_view::npos) return absl::OkStatus();
  if (spec.back() != '}')
    return InvalidArgument("pass spec '", AsAbsl(spec), "' lacks its closing }");
  std::string_view body = spec.substr(brace + 1, spec.size() - brace - 2);
  while (!body.empty()) {
    size_t comma = body.find(',');
    std::string_view item = body.substr(0, comma);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return InvalidArgument("pass argument '", AsAbsl(item), "' is not key=value");
    }
    (*args)[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
  }
  return absl::OkStatus();
}

}  // namespace

std::string PassArgs::Take(const std::string& key, std::string fallback) {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  taken_.push_back(key);
  return it->second;
}

absl::StatusOr<bool> PassArgs::TakeBool(const std::string& key, bool fallback) {
  std::string value = Take(key, fallback ? "true" : "false");
  if (value == "true") return true;
  if (value == "false") return false;
  return InvalidArgument(pass_, " ", key, " must be true or false, got '", value, "'");
}

absl::StatusOr<int64_t> PassArgs::TakeInt(const std::string& key, int64_t fallback, int64_t min) {
  std::string value = Take(key, absl::StrCat(fallback));
  int64_t result = 0;
  if (!absl::SimpleAtoi(value, &result) || result < min) {
    return InvalidArgument(
        pass_, " ", key, " must be ",
        min == 0 ? std::string("a non-negative integer") : absl::StrCat("an integer >= ", min),
        ", got '", value, "'");
  }
  return result;
}

absl::StatusOr<int> PassArgs::TakeChoice(const std::string& key, std::string_view fallback,
                                         const std::vector<std::string_view>& choices) {
  std::string value = Take(key, std::string(fallback));
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i] == value) return static_cast<int>(i);
  }
  std::string allowed;
  for (std::string_view choice : choices) {
    absl::StrAppend(&allowed, allowed.empty() ? "" : " or ", AsAbsl(choice));
  }
  return InvalidArgument(pass_, " ", key, " must be ", allowed, ", got '", value, "'");
}

absl::Status PassArgs::CheckAllUsed(std::string_view pass) const {
  for (const auto& [key, value] : values_) {
    if (std::find(taken_.begin(), taken_.end(), key) == taken_.end()) {
      return InvalidArgument("pass ", AsAbsl(pass), " has no argument '", key, "'");
    }
  }
  return absl::OkStatus();
}

namespace {

std::vector<PassInfo>& MutableTable() {
  static auto* table = new std::vector<PassInfo>(MakeTable());
  return *table;
}

}  // namespace

const std::vector<PassInfo>& RegisteredPasses() { return MutableTable(); }

void RegisterPass(PassInfo info) {
  std::vector<PassInfo>& table = MutableTable();
  auto at = std::lower_bound(table.begin(), table.end(), info,
                             [](const PassInfo& a, const PassInfo& b) { return a.name < b.name; });
  if (at != table.end() && at->name == info.name) return;
  table.insert(at, info);
}

absl::StatusOr<std::unique_ptr<HloPass>> CreatePass(std::string_view spec) {
  std::string_view name;
  std::map<std::string, std::string> values;
  XLITE_RETURN_IF_ERROR(SplitSpec(spec, &name, &values));
  for (const PassInfo& info : RegisteredPasses()) {
    if (info.name != name) continue;
    PassArgs args(std::string(name), std::move(values));
    XLITE_ASSIGN_OR_RETURN(std::unique_ptr<HloPass> pass, info.create(args));
    XLITE_RETURN_IF_ERROR(args.CheckAllUsed(name));
    return pass;
  }
  std::vector<std::string> names;
  for (const PassInfo& info : RegisteredPasses()) names.emplace_back(info.name);
  return InvalidArgument("unknown pass '", AsAbsl(name), "' (known: ", absl::StrJoin(names, ", "),
                         "; see xlite opt --list-passes)");
}

}  // namespace xlite
