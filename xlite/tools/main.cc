// The `xlite` command line: one subcommand per *_command.cc.
#include <CLI/CLI.hpp>
#include <new>
#include <stdexcept>

#include "xlite/sched/sched_passes.h"
#include "xlite/spmd/propagation.h"
#include "xlite/tools/backends.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/out_of_memory.h"
#include "xlite/tools/process_memory.h"

int main(int argc, char** argv) {
  using namespace xlite::tools;
  PrepareHeap();
  CLI::App app{
      "xlite: tools for XLA's HLO text format.\n"
      "Exit codes: 0 ok, 1 invalid input, 2 usage error.",
      "xlite"};
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
  xlite::spmd::RegisterSpmdPasses();
  AddMemCommand(app, &exit_code);
  AddSchedCommand(app, &exit_code);
  xlite::RegisterSchedulingPasses();
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
