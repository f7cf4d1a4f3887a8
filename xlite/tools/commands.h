// The subcommands of the `xlite` binary and the exit codes they share. Each
// subcommand lives in its own *_command.cc and registers itself on the app.
#ifndef XLITE_TOOLS_COMMANDS_H_
#define XLITE_TOOLS_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace xlite::tools {

// Exit codes: scripts (and the lit tests) tell bad input from bad usage.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalidInput = 1;
inline constexpr int kExitUsage = 2;

// Each adds its subcommand to `app`; when the subcommand runs, its exit code
// is stored in `*exit_code`.
void AddFmtCommand(CLI::App& app, int* exit_code);
void AddVerifyCommand(CLI::App& app, int* exit_code);
void AddStatsCommand(CLI::App& app, int* exit_code);
void AddOptCommand(CLI::App& app, int* exit_code);
void AddRunCommand(CLI::App& app, int* exit_code);
void AddBenchCommand(CLI::App& app, int* exit_code);
void AddCostCommand(CLI::App& app, int* exit_code);
void AddCalibrateCommand(CLI::App& app, int* exit_code);
void AddMemCommand(CLI::App& app, int* exit_code);
void AddSchedCommand(CLI::App& app, int* exit_code);
void AddShardCommand(CLI::App& app, int* exit_code);
void AddAutoshardCommand(CLI::App& app, int* exit_code);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_COMMANDS_H_
