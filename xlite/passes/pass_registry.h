// Passes by name: what `xlite opt --passes=` and pipeline specs resolve.
// A spec names a pass with optional arguments: `logistic-expander{strategy=exp}`.
#ifndef XLITE_PASSES_PASS_REGISTRY_H_
#define XLITE_PASSES_PASS_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/passes/pass.h"

namespace xlite {

// The `{key=value,...}` arguments of a pass spec. A factory takes the keys it
// knows, typed, and refuses the rest (PassArgs::CheckAllUsed). The typed
// getters fail with "<pass> <key> must be ..., got '<value>'".
class PassArgs {
 public:
  PassArgs() = default;
  PassArgs(std::string pass, std::map<std::string, std::string> values)
      : pass_(std::move(pass)), values_(std::move(values)) {}
  // The value of `key`, or `fallback` when absent.
  std::string Take(const std::string& key, std::string fallback);
  // `true` or `false`.
  absl::StatusOr<bool> TakeBool(const std::string& key, bool fallback);
  // A decimal integer >= `min`.
  absl::StatusOr<int64_t> TakeInt(const std::string& key, int64_t fallback, int64_t min);
  // One of `choices`; returns its index.
  absl::StatusOr<int> TakeChoice(const std::string& key, std::string_view fallback,
                                 const std::vector<std::string_view>& choices);
  // Fails naming the first argument nobody took.
  absl::Status CheckAllUsed(std::string_view pass) const;

 private:
  std::string pass_;
  std::map<std::string, std::string> values_;
  std::vector<std::string> taken_;
};

struct PassInfo {
  std::string_view name;
  std::string_view summary;  // one line for --list-passes
  absl::StatusOr<std::unique_ptr<HloPass>> (*create)(PassArgs& args);
};

// Every pass, sorted by name.
const std::vector<PassInfo>& RegisteredPasses();

// Adds a pass from a layer below this one (xlite/spmd registers
// sharding-propagation); a name already present is kept.
void RegisterPass(PassInfo info);

// Makes the pass a spec names, e.g. `dce` or `logistic-expander{strategy=exp}`.
absl::StatusOr<std::unique_ptr<HloPass>> CreatePass(std::string_view spec);

}  // namespace xlite

#endif  // XLITE_PASSES_PASS_REGISTRY_H_
