#include "xlite/spmd/sharding_annotations.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "xlite/base/status.h"
#include "xlite/ir/named_sharding.h"

namespace xlite::spmd {

bool IsShardingCustomCall(const HloInstruction& inst) {
  return inst.opcode() == HloOpcode::kCustomCall &&
         inst.attrs<CustomCallAttrs>().target == "Sharding";
}

absl::StatusOr<std::vector<int64_t>> UnspecifiedDims(const HloInstruction& inst) {
  std::vector<int64_t> dims;
  if (!IsShardingCustomCall(inst)) return dims;
  absl::string_view text = absl::StripAsciiWhitespace(inst.backend_config());
  if (text.empty()) return dims;
  auto bad = [&](absl::string_view why) {
    return InvalidArgument("%", inst.name(), ": Sharding custom-call backend_config \"",
                           inst.backend_config(), "\" ", why);
  };
  if (!absl::ConsumePrefix(&text, "unspecified_dims=[") || !absl::ConsumeSuffix(&text, "]")) {
    return bad("is not unspecified_dims=[d,...]");
  }
  const int64_t rank = inst.shape().IsArray() ? inst.shape().rank() : 0;
  for (absl::string_view piece : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    int64_t d = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(piece), &d) || d < 0 || d >= rank) {
      return bad("names a dim that is not one of the result's");
    }
    dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

std::vector<int64_t> OpenDims(const HloSharding& sharding) {
  std::vector<int64_t> dims;
  if (sharding.named() == nullptr) return dims;
  const std::vector<NamedSharding::Dim>& named = sharding.named()->dims;
  for (size_t d = 0; d < named.size(); ++d) {
    if (named[d].open) dims.push_back(static_cast<int64_t>(d));
  }
  return dims;
}

bool IsCsePreventionSharding(const HloSharding& sharding) {
  return sharding.metadata().size() == 1 &&
         sharding.metadata()[0].op_name == "_sharding_propagation_cse_prevention";
}

}  // namespace xlite::spmd
