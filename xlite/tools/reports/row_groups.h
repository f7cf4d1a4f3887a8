// `--group-by op_name|source` of `xlite cost`, `mem` and `sched`: a report's
// rows summed by the JAX op that made them (metadata op_name) or by the
// source line of their innermost stack frame (ir/op_source.h).
#ifndef XLITE_TOOLS_REPORTS_ROW_GROUPS_H_
#define XLITE_TOOLS_REPORTS_ROW_GROUPS_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xlite::tools {

enum class GroupBy { kNone, kOpName, kSource };

// "op_name" / "source" ("" is kNone); nullopt for any other name.
std::optional<GroupBy> GroupByFromName(std::string_view name);
std::string_view GroupByName(GroupBy group_by);

// The key of one row: its op_name or its source "file:line" ("" when it has
// none).
const std::string& GroupKey(GroupBy group_by, const std::string& op_name,
                            const std::string& source);

// Rows with one key, and the sums of their figures.
struct RowGroup {
  std::string key;
  int64_t rows = 0;
  std::vector<double> sums;  // one per figure
};

struct GroupedRows {
  GroupBy by = GroupBy::kNone;
  std::vector<std::string> figures;  // names, as the JSON fields
  std::string rows_name;             // what a row is ("instructions")
  std::vector<RowGroup> groups;      // largest first by the first figure
};

// Sums `row_figures[i]` (one value per figure) by `keys[i]`; ties keep the
// order of first appearance.
GroupedRows GroupRows(GroupBy by, std::vector<std::string> figures, std::string rows_name,
                      const std::vector<std::string>& keys,
                      const std::vector<std::vector<double>>& row_figures);

// A text table, one line per group; `format(figure index, value)` prints a
// figure.
std::string GroupTableText(const GroupedRows& grouped,
                           const std::function<std::string(size_t, double)>& format);

// Sets report["group_by"] and report["groups"]: [{"op_name" | "source": key,
// "<rows_name>": n, "<figure>": sum, ...}].
void AddGroupsJson(const GroupedRows& grouped, nlohmann::ordered_json* report);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_REPORTS_ROW_GROUPS_H_
