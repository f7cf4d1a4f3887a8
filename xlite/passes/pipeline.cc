#include "xlite/passes/pipeline.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xlite/analysis/verifier.h"
#include "xlite/base/file_io.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/passes/named_pipelines.h"
#include "xlite/passes/pass_registry.h"
#include "xlite/text/printer.h"

namespace xlite {
namespace {

absl::Status Dump(const HloModule& module, const PipelineOptions& options, std::string_view pass,
                  int* dump_count) {
  std::error_code error;
  std::filesystem::create_directories(options.dump_dir, error);
  if (error) {
    return InvalidArgument("cannot create dump folder ", options.dump_dir, ": ", error.message());
  }
  std::string path = absl::StrFormat("%s/%04d.%s.after_%s.hlo", options.dump_dir, (*dump_count)++,
                                     module.name(), AsAbsl(pass));
  return WriteBinaryFile(path, PrintModule(module));
}

}  // namespace

void PassPipeline::AddPass(std::unique_ptr<HloPass> pass) {
  steps_.push_back(Step{std::move(pass), nullptr});
}

PassPipeline& PassPipeline::AddFixedPointGroup(std::string name) {
  steps_.push_back(Step{nullptr, std::make_unique<PassPipeline>(std::move(name))});
  return *steps_.back().group;
}

int64_t PassPipeline::max_ulp_error() const {
  int64_t most = 0;
  for (const Step& step : steps_) {
    most = std::max(most, step.pass ? step.pass->max_ulp_error() : step.group->max_ulp_error());
  }
  return most;
}

absl::Status CheckPipelineOptions(const PipelineOptions& options) {
  if (options.dump_after.empty()) return absl::OkStatus();
  try {
    std::regex check(options.dump_after);
  } catch (const std::regex_error& e) {
    return InvalidArgument("bad --dump-after regex '", options.dump_after, "': ", e.what());
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> PassPipeline::Run(HloModule& module, const PipelineOptions& options,
                                       PipelineReport* report) {
  return RunOnce(module, options, "", 0, report);
}

absl::StatusOr<bool> PassPipeline::RunOnce(HloModule& module, const PipelineOptions& options,
                                           const std::string& group, int iteration,
                                           PipelineReport* report) {
  XLITE_RETURN_IF_ERROR(CheckPipelineOptions(options));
  std::optional<std::regex> dump_re;
  if (!options.dump_after.empty()) dump_re.emplace(options.dump_after);
  bool changed_any = false;
  for (Step& step : steps_) {
    if (step.group != nullptr) {
      PassPipeline& inner = *step.group;
      int i = 0;
      for (;; ++i) {
        if (i == options.max_fixed_point_iterations) {
          report->warnings.push_back(absl::StrCat("fixed-point group '", inner.name(),
                                                  "' stopped after ", i,
                                                  " iterations without reaching its fixed point"));
          break;
        }
        XLITE_ASSIGN_OR_RETURN(bool changed,
                               inner.RunOnce(module, options, inner.name(), i, report));
        if (!changed) break;
        changed_any = true;
      }
      continue;
    }
    HloPass& pass = *step.pass;
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<bool> changed = pass.Run(module);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!changed.ok()) {
      return absl::Status(changed.status().code(), absl::StrCat("pass ", AsAbsl(pass.name()), ": ",
                                                                changed.status().message()));
    }
    // Every pass keeps the schedule, whether or not it made instructions.
    if (*changed) module.UpdateSchedule();
    report->passes.push_back(
        PassRecord{std::string(pass.name()), group, iteration, seconds, *changed});
    changed_any |= *changed;
    if (options.verify_each) {
      absl::Status verified = VerifyModule(module);
      if (!verified.ok()) {
        return absl::InternalError(absl::StrCat(
            "pass ", AsAbsl(pass.name()), " produced an invalid module: ", verified.message()));
      }
    }
    if (dump_re && std::regex_match(std::string(pass.name()), *dump_re)) {
      XLITE_RETURN_IF_ERROR(Dump(module, options, pass.name(), &report->dumps));
    }
  }
  return changed_any;
}

std::string PipelineReport::StatsTable() const {
  struct Totals {
    int runs = 0, changed = 0;
    double seconds = 0;
  };
  std::map<std::string, Totals> totals;  // sorted by name: deterministic
  double all = 0;
  for (const PassRecord& r : passes) {
    Totals& t = totals[r.pass];
    ++t.runs;
    t.changed += r.changed;
    t.seconds += r.seconds;
    all += r.seconds;
  }
  std::string out = absl::StrFormat("%-28s %6s %8s %12s\n", "pass", "runs", "changed", "time_ms");
  for (const auto& [name, t] : totals) {
    absl::StrAppendFormat(&out, "%-28s %6d %8d %12.3f\n", name, t.runs, t.changed, t.seconds * 1e3);
  }
  absl::StrAppendFormat(&out, "%-28s %6d %8s %12.3f\n", "total", static_cast<int>(passes.size()),
                        "", all * 1e3);
  return out;
}

namespace {

// Splits at commas outside (), {}.
std::vector<std::string_view> SplitTopLevel(std::string_view spec) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= spec.size(); ++i) {
    if (i == spec.size() || (spec[i] == ',' && depth == 0)) {
      parts.push_back(spec.substr(start, i - start));
      start = i + 1;
    } else if (spec[i] == '(' || spec[i] == '{') {
      ++depth;
    } else if (spec[i] == ')' || spec[i] == '}') {
      --depth;
    }
  }
  return parts;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

absl::Status AppendSpec(std::string_view spec, PassPipeline& pipeline, int depth, int* groups) {
  if (depth > 16) return InvalidArgument("pipeline spec nests too deeply");
  int balance = 0;
  for (char c : spec) {
    balance += (c == '(' || c == '{') - (c == ')' || c == '}');
    if (balance < 0) break;
  }
  if (balance != 0)
    return InvalidArgument("unbalanced brackets in pipeline spec '", AsAbsl(spec), "'");
  for (std::string_view part : SplitTopLevel(spec)) {
    part = Trim(part);
    if (part.empty())
      return InvalidArgument("empty pass name in pipeline spec '", AsAbsl(spec), "'");
    constexpr std::string_view kGroup = "fixed-point(";
    if (part.substr(0, kGroup.size()) == kGroup && part.back() == ')') {
      std::string_view inner = part.substr(kGroup.size(), part.size() - kGroup.size() - 1);
      PassPipeline& group = pipeline.AddFixedPointGroup(absl::StrCat("fixed-point-", (*groups)++));
      XLITE_RETURN_IF_ERROR(AppendSpec(inner, group, depth + 1, groups));
      continue;
    }
    if (std::optional<std::string_view> named = NamedPipelineSpec(part)) {
      XLITE_RETURN_IF_ERROR(AppendSpec(*named, pipeline, depth + 1, groups));
      continue;
    }
    XLITE_ASSIGN_OR_RETURN(std::unique_ptr<HloPass> pass, CreatePass(part));
    pipeline.AddPass(std::move(pass));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PassPipeline> ParsePipelineSpec(std::string_view spec) {
  PassPipeline pipeline("pipeline");
  int groups = 0;
  XLITE_RETURN_IF_ERROR(AppendSpec(spec, pipeline, 0, &groups));
  return pipeline;
}

}  // namespace xlite
