// OpMetadata (`metadata={...}`) and the other small attributes every
// instruction may carry (frontend attributes, statistics).
#ifndef XLITE_IR_METADATA_H_
#define XLITE_IR_METADATA_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xlite {

struct OpMetadata {
  std::string op_type;
  std::string op_name;
  std::string source_file;
  int64_t source_line = 0;
  int64_t source_end_line = 0;
  int64_t source_column = 0;
  int64_t source_end_column = 0;
  int64_t stack_frame_id = 0;
  std::string deduplicated_name;
  std::string scheduling_name;
  std::vector<int64_t> profile_type;
  bool preserve_layout = false;
  bool operator==(const OpMetadata&) const = default;
  bool empty() const { return *this == OpMetadata(); }
};

// `frontend_attributes={k="v",...}`: kept sorted by key. A value that was a raw
// JSON dict `{...}` in the text is kept verbatim with `is_json` set.
struct FrontendAttribute {
  std::string key;
  std::string value;
  bool is_json = false;
  bool operator==(const FrontendAttribute&) const = default;
};
using FrontendAttributes = std::vector<FrontendAttribute>;

// The attribute named `key`, or null.
inline const FrontendAttribute* FindFrontendAttribute(const FrontendAttributes& attrs,
                                                      std::string_view key) {
  for (const FrontendAttribute& a : attrs) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

// `statistics={visualizing_index=1,stat-1=33,...}`.
struct Statistics {
  int64_t visualizing_index = 0;
  std::vector<std::pair<std::string, double>> stats;
  bool operator==(const Statistics&) const = default;
};

}  // namespace xlite

#endif  // XLITE_IR_METADATA_H_
