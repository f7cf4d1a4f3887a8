// `xlite fmt`: prints modules as canonical HLO text.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "xlite/text/printer.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/input.h"

namespace xlite::tools {
namespace {

struct FmtOptions {
  InputOptions input;
  bool operand_shapes = false;
  bool no_metadata = false;
  bool no_backend_config = false;
  bool explicit_async = false;
  bool short_form = false;
};

int RunFmt(const FmtOptions& options) {
  std::vector<LoadedModule> modules;
  if (!LoadModules(options.input, &modules)) return kExitInvalidInput;
  PrintOptions print_options = options.short_form ? ShortParsablePrintOptions() : PrintOptions();
  print_options.print_operand_shapes = options.operand_shapes;
  print_options.print_metadata &= !options.no_metadata;
  print_options.print_backend_config &= !options.no_backend_config;
  print_options.async_sugar = !options.explicit_async;
  std::string out;
  for (size_t i = 0; i < modules.size(); ++i) {
    if (i > 0) out += "// -----\n";
    AppendModule(*modules[i].module, print_options, &out);
  }
  std::cout << out << std::flush;
  return kExitOk;
}

}  // namespace

void AddFmtCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<FmtOptions>();
  CLI::App* command =
      app.add_subcommand("fmt",
                         "Parse HLO text and print it in canonical form (modules of a split file "
                         "are printed with `// -----` between them). Exit 1 on a parse error.");
  AddInputOptions(*command, &options->input);
  command->add_flag("--operand-shapes", options->operand_shapes,
                    "Write each operand with its shape, as older XLA dumps do");
  command->add_flag("--no-metadata", options->no_metadata, "Leave out metadata={...}");
  command->add_flag("--no-backend-config", options->no_backend_config,
                    "Leave out backend_config=...");
  command->add_flag("--short", options->short_form,
                    "XLA's short parsable form: bare names, no signatures, and no "
                    "metadata, backend_config, control-predecessors or /*index=*/ comments");
  command->add_flag("--explicit-async", options->explicit_async,
                    "Print every async chain as async-start/-update/-done with its "
                    "computation, also where XLA writes the sugar form "
                    "(custom-call-start, ...), keeping the wrapped computation's names");
  command->callback([options, exit_code] { *exit_code = RunFmt(*options); });
}

}  // namespace xlite::tools
