// The `xlite` command line: one subcommand per *_command.cc.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <iostream>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/sched/sched_passes.h"
#include "xlite/spmd/autoshard/auto_sharding_pass.h"
#include "xlite/spmd/propagation.h"
#include "xlite/tools/backends.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/help_format.h"
#include "xlite/tools/input.h"
#include "xlite/tools/out_of_memory.h"
#include "xlite/tools/process_memory.h"

namespace {

// Edits (insert, delete, substitute) between `a` and `b`.
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string VersionText() {
  return absl::StrCat("xlite ", XLITE_VERSION, " (backends: ", xlite::tools::AvailableBackends(),
#if XLITE_HAVE_MPI
                      "; MPI communicator",
#endif
                      ")\n");
}

// What argv[1] asks before CLI11 parses: `help [CMD]`, `--version`, or a
// word that is no subcommand (a usage error with the nearest names). Returns
// the exit code when that settles the run.
std::optional<int> HandleFirstWord(CLI::App& app, int argc, char** argv) {
  using xlite::tools::kExitOk;
  using xlite::tools::kExitUsage;
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  if (argc < 2) {
    std::cout << app.help();
    return kExitUsage;
  }
  const std::string first = argv[1];
  if (first == "--version") {
    std::cout << VersionText();
    return kExitOk;
  }
  if (first == "help") {
    if (argc >= 3 && std::find(names.begin(), names.end(), argv[2]) != names.end()) {
      std::cout << app.get_subcommand(argv[2])->help();
    } else {
      std::cout << app.help();
    }
    return kExitOk;
  }
  if (first.empty() || first[0] == '-' ||
      std::find(names.begin(), names.end(), first) != names.end()) {
    return std::nullopt;
  }
  std::vector<std::string> near;
  for (const std::string& name : names) {
    if (EditDistance(first, name) <= 2 || name.rfind(first, 0) == 0) near.push_back(name);
  }
  std::string message = absl::StrCat("xlite: error: unknown command '", first, "'");
  if (!near.empty())
    absl::StrAppend(&message, " (did you mean ", absl::StrJoin(near, " or "), "?)");
  absl::StrAppend(&message, "; the commands: ", absl::StrJoin(names, ", "),
                  " (`xlite help CMD` describes one)");
  xlite::tools::PrintError(message);
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace xlite::tools;
  PrepareHeap();
  // Past a file-size limit (ulimit -f) a write fails with EFBIG and the
  // command reports it, instead of the process being killed mid-write.
  signal(SIGXFSZ, SIG_IGN);
  CLI::App app{
      "xlite: verify, run, optimize, cost, shard, schedule and plan the memory of XLA HLO "
      "modules. `xlite help CMD` or `xlite CMD --help` describes a command.\n"
      "Exit codes: 0 ok, 1 invalid input, 2 usage error.",
      "xlite"};
  app.formatter(std::make_shared<HelpFormatter>());
  app.require_subcommand(1);
  int exit_code = kExitOk;
  // First: the commands' help lists the backends.
  xlite::tools::RegisterBackends();
  AddFmtCommand(app, &exit_code);
  AddVerifyCommand(app, &exit_code);
  AddStatsCommand(app, &exit_code);
  AddOptCommand(app, &exit_code);
  AddRunCommand(app, &exit_code);
  AddBenchCommand(app, &exit_code);
  AddCostCommand(app, &exit_code);
  AddCalibrateCommand(app, &exit_code);
  AddShardCommand(app, &exit_code);
  AddAutoshardCommand(app, &exit_code);
  xlite::spmd::RegisterSpmdPasses();
  xlite::spmd::RegisterAutoShardingPass();
  AddMemCommand(app, &exit_code);
  AddSchedCommand(app, &exit_code);
  xlite::RegisterSchedulingPasses();
  if (std::optional<int> settled = HandleFirstWord(app, argc, argv)) return *settled;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // CLI11 prints the help text or the error; --help is a success, any other
    // parse failure is a usage error whatever code CLI11 would pick.
    return app.exit(error) == 0 ? kExitOk : kExitUsage;
  } catch (const std::bad_alloc&) {
    return ReportOutOfMemory();
  } catch (const std::length_error&) {
    return ReportOutOfMemory();
  }
  ExitWithoutTeardown(exit_code);
}
