#include "xlite/tools/reports/row_groups.h"

#include <unordered_map>
#include <utility>

#include "absl/strings/str_format.h"
#include "xlite/base/stable_sort.h"

namespace xlite::tools {

std::optional<GroupBy> GroupByFromName(std::string_view name) {
  if (name.empty()) return GroupBy::kNone;
  if (name == "op_name") return GroupBy::kOpName;
  if (name == "source") return GroupBy::kSource;
  return std::nullopt;
}

std::string_view GroupByName(GroupBy group_by) {
  switch (group_by) {
    case GroupBy::kOpName:
      return "op_name";
    case GroupBy::kSource:
      return "source";
    case GroupBy::kNone:
      break;
  }
  return "";
}

const std::string& GroupKey(GroupBy group_by, const std::string& op_name,
                            const std::string& source) {
  return group_by == GroupBy::kSource ? source : op_name;
}

GroupedRows GroupRows(GroupBy by, std::vector<std::string> figures, std::string rows_name,
                      const std::vector<std::string>& keys,
                      const std::vector<std::vector<double>>& row_figures) {
  GroupedRows grouped{by, std::move(figures), std::move(rows_name), {}};
  std::vector<RowGroup>& groups = grouped.groups;
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto [it, inserted] = index.emplace(keys[i], groups.size());
    if (inserted) groups.push_back({keys[i], 0, std::vector<double>(grouped.figures.size(), 0.0)});
    RowGroup& group = groups[it->second];
    ++group.rows;
    for (size_t f = 0; f < group.sums.size() && f < row_figures[i].size(); ++f) {
      group.sums[f] += row_figures[i][f];
    }
  }
  if (!grouped.figures.empty()) {
    StableSort(groups, [](const RowGroup& a, const RowGroup& b) { return a.sums[0] > b.sums[0]; });
  }
  return grouped;
}

std::string GroupTableText(const GroupedRows& grouped,
                           const std::function<std::string(size_t, double)>& format) {
  const std::string_view by = GroupByName(grouped.by);
  std::string out;
  absl::StrAppendFormat(&out, "by %s (%d groups):\n ", by, grouped.groups.size());
  for (const std::string& name : grouped.figures) absl::StrAppendFormat(&out, " %14s", name);
  absl::StrAppendFormat(&out, " %12s  %s\n", grouped.rows_name, by);
  for (const RowGroup& group : grouped.groups) {
    out += " ";
    for (size_t f = 0; f < group.sums.size(); ++f) {
      absl::StrAppendFormat(&out, " %14s", format(f, group.sums[f]));
    }
    absl::StrAppendFormat(&out, " %12d  %s\n", group.rows,
                          group.key.empty() ? "(no " + std::string(by) + ")" : group.key);
  }
  return out;
}

void AddGroupsJson(const GroupedRows& grouped, nlohmann::ordered_json* report) {
  const std::string by(GroupByName(grouped.by));
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const RowGroup& group : grouped.groups) {
    nlohmann::ordered_json item;
    item[by] = group.key;
    item[grouped.rows_name] = group.rows;
    for (size_t f = 0; f < grouped.figures.size(); ++f) item[grouped.figures[f]] = group.sums[f];
    list.push_back(std::move(item));
  }
  (*report)["group_by"] = by;
  (*report)["groups"] = std::move(list);
}

}  // namespace xlite::tools
