// `xlite verify`: parses and verifies modules, reporting every violation.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "xlite/analysis/verifier.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/input.h"

namespace xlite::tools {
namespace {

struct VerifyCommandOptions {
  InputOptions input;
  bool layout_sensitive = false;
};

int RunVerify(const VerifyCommandOptions& options) {
  std::vector<LoadedModule> modules;
  bool ok = LoadModules(options.input, &modules);
  VerifyOptions verify_options;
  verify_options.layout_sensitive = options.layout_sensitive;
  for (const LoadedModule& loaded : modules) ok = ReportViolations(loaded, verify_options) && ok;
  if (!ok) return kExitInvalidInput;
  std::cout << "OK: " << modules.size() << " modules\n";
  return kExitOk;
}

}  // namespace

void AddVerifyCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<VerifyCommandOptions>();
  CLI::App* command =
      app.add_subcommand("verify",
                         "Parse and verify HLO modules; prints `OK: <n> modules`, or every "
                         "error with its position and exits 1.");
  AddInputOptions(*command, &options->input);
  command->add_flag("--layout-sensitive", options->layout_sensitive,
                    "Also check layouts where XLA's layout-sensitive verifier does");
  command->callback([options, exit_code] { *exit_code = RunVerify(*options); });
}

}  // namespace xlite::tools
