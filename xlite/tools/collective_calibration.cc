#include "xlite/tools/collective_calibration.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/base/status.h"
#include "xlite/eval/evaluator.h"
#include "xlite/text/parser.h"

namespace xlite::tools {
namespace {

struct Kind {
  const char* name;
  const char* path;  // how the MPI communicator carries it
  const char* type;
};

constexpr Kind kKinds[] = {
    {"all-reduce", "f32 add: MPI_Iallgatherv, then the HLO reducer in group order", "f32"},
    {"all-reduce-s32", "s32 add: MPI_Iallreduce", "s32"},
    {"all-gather", "MPI_Iallgatherv", "f32"},
    {"reduce-scatter", "f32 add: MPI_Iallgatherv, then reduce", "f32"},
    {"all-to-all", "MPI_Ialltoall", "f32"},
    {"permute", "ring collective-permute: MPI_Isend/MPI_Improbe", "f32"},
};

// A module whose entry is one collective of `kind` over all `n` devices on
// a per-device operand of `elements`.
std::string CollectiveModule(const Kind& kind, int64_t n, int64_t elements) {
  std::string all = absl::StrCat("{",
                                 absl::StrJoin(
                                     [&] {
                                       std::vector<int64_t> ids;
                                       for (int64_t i = 0; i < n; ++i) ids.push_back(i);
                                       return ids;
                                     }(),
                                     ","),
                                 "}");
  std::string t = kind.type;
  std::string in = absl::StrCat(t, "[", elements, "]");
  std::string groups =
      absl::StrCat("channel_id=1, replica_groups={", all, "}, use_global_device_ids=true");
  std::string body;
  std::string_view name = kind.name;
  if (name == "all-reduce" || name == "all-reduce-s32") {
    body = absl::StrCat("ROOT r = ", in, " all-reduce(p), ", groups, ", to_apply=add");
  } else if (name == "all-gather") {
    body = absl::StrCat("ROOT r = ", t, "[", elements * n, "] all-gather(p), ", groups,
                        ", dimensions={0}");
  } else if (name == "reduce-scatter") {
    body = absl::StrCat("ROOT r = ", t, "[", elements / n, "] reduce-scatter(p), ", groups,
                        ", dimensions={0}, to_apply=add");
  } else if (name == "all-to-all") {
    body = absl::StrCat("ROOT r = ", in, " all-to-all(p), channel_id=1, replica_groups={", all,
                        "}, dimensions={0}");
  } else {
    std::vector<std::string> pairs;
    for (int64_t i = 0; i < n; ++i) pairs.push_back(absl::StrCat("{", i, ",", (i + 1) % n, "}"));
    body = absl::StrCat("ROOT r = ", in, " collective-permute(p), channel_id=1, ",
                        "source_target_pairs={", absl::StrJoin(pairs, ","), "}");
  }
  return absl::StrCat("HloModule calibrate, num_partitions=", n, "\n\nadd {\n  a = ", t,
                      "[] parameter(0)\n  b = ", t, "[] parameter(1)\n  ROOT s = ", t,
                      "[] add(a, b)\n}\n\nENTRY main {\n  p = ", in, " parameter(0)\n  ", body,
                      "\n}\n");
}

// Least squares of seconds = alpha + bytes * inverse_beta, weighted by
// 1 / seconds^2 (relative error), so that small messages settle alpha and
// large ones beta instead of the largest swamping both.
void Fit(CollectiveFit& fit) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const CollectiveTiming& t : fit.timings) {
    if (t.seconds <= 0) continue;
    double w = 1 / (t.seconds * t.seconds);
    double x = static_cast<double>(t.bytes);
    sw += w, sx += w * x, sy += w * t.seconds, sxx += w * x * x, sxy += w * x * t.seconds;
  }
  double denominator = sw * sxx - sx * sx;
  double slope = denominator > 0 ? (sw * sxy - sx * sy) / denominator : 0;
  fit.alpha_seconds = sw > 0 ? std::max(0.0, (sy - slope * sx) / sw) : 0;
  fit.beta_bytes_per_second = slope > 0 ? 1 / slope : 0;
}

}  // namespace

absl::StatusOr<std::vector<CollectiveFit>> CalibrateCollectives(
    MpiRank& mpi, const CollectiveCalibrationOptions& options) {
  int64_t n = mpi.size();
  if (n < 2) {
    return InvalidArgument(
        "calibrating collectives needs at least 2 ranks: run it as "
        "mpirun -np N xlite calibrate --collectives");
  }
  std::vector<CollectiveFit> fits;
  for (const Kind& kind : kKinds) {
    CollectiveFit fit;
    fit.kind = kind.name;
    fit.path = kind.path;
    for (int64_t bytes = options.min_bytes; bytes <= options.max_bytes; bytes *= 4) {
      // Whole blocks per device for the kinds that split their operand.
      int64_t elements = std::max<int64_t>(n, bytes / 4 / n * n);
      XLITE_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                             ParseHloModule(CollectiveModule(kind, n, elements)));
      std::vector<Literal> args;
      args.emplace_back(module->entry_computation()->parameter_instruction(0)->shape());
      EvalOptions eval_options;
      eval_options.partition_id = mpi.rank();
      eval_options.communicator = mpi.communicator();
      std::vector<double> seconds;
      for (int rep = 0; rep <= options.repetitions; ++rep) {  // rep 0 warms up
        Evaluator evaluator(eval_options);
        auto start = std::chrono::steady_clock::now();
        XLITE_RETURN_IF_ERROR(evaluator.Run(*module, args).status());
        std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        if (rep > 0) seconds.push_back(took.count());
      }
      std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
      fit.timings.push_back({elements * 4, seconds[seconds.size() / 2]});
    }
    Fit(fit);
    fits.push_back(std::move(fit));
  }
  if (!mpi.is_root()) return std::vector<CollectiveFit>();
  return fits;
}

std::string CollectiveFitsToJson(const std::vector<CollectiveFit>& fits, int64_t ranks) {
  nlohmann::ordered_json collectives = nlohmann::ordered_json::object();
  for (const CollectiveFit& fit : fits) {
    nlohmann::ordered_json timings = nlohmann::ordered_json::array();
    for (const CollectiveTiming& t : fit.timings) {
      timings.push_back({{"bytes", t.bytes}, {"seconds", t.seconds}});
    }
    collectives[fit.kind] = {{"alpha_seconds", fit.alpha_seconds},
                             {"beta_bytes_per_second", fit.beta_bytes_per_second},
                             {"path", fit.path},
                             {"timings", timings}};
  }
  nlohmann::ordered_json out = {
      {"device", "host"}, {"communicator", "mpi"}, {"ranks", ranks}, {"collectives", collectives}};
  return out.dump(2) + "\n";
}

}  // namespace xlite::tools
