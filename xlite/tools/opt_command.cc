// `xlite opt`: runs passes or a named pipeline over modules and prints the
// result; --list-passes lists what exists.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xlite/analysis/verifier.h"
#include "xlite/base/file_io.h"
#include "xlite/base/strings.h"
#include "xlite/compiler/compile.h"
#include "xlite/passes/named_pipelines.h"
#include "xlite/passes/pass_registry.h"
#include "xlite/passes/pipeline.h"
#include "xlite/text/printer.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/input.h"

namespace xlite::tools {
namespace {

struct OptOptions {
  InputOptions input;
  std::string passes;
  std::string pipeline;
  bool list_passes = false;
  bool pass_stats = false;
  PipelineOptions pipeline_options;
  std::string output;  // empty: stdout
};

void ListPasses() {
  for (const PassInfo& info : RegisteredPasses()) {
    std::cout << absl::StrFormat("%-24s %s\n", AsAbsl(info.name), AsAbsl(info.summary));
  }
  std::cout << "\nPipelines (--pipeline=NAME):\n";
  for (const auto& [name, spec] : NamedPipelines()) {
    std::cout << absl::StrFormat("%-24s %s\n", AsAbsl(name), AsAbsl(spec));
  }
}

int RunOpt(const OptOptions& options) {
  if (options.list_passes) {
    ListPasses();
    return kExitOk;
  }
  if (options.input.path.empty()) {
    PrintError("xlite opt: an input file is required (or --list-passes)");
    return kExitUsage;
  }
  if (options.passes.empty() == options.pipeline.empty()) {
    PrintError("xlite opt: give exactly one of --passes=... or --pipeline=NAME");
    return kExitUsage;
  }
  std::string spec = options.passes;
  if (!options.pipeline.empty()) {
    if (!NamedPipelineSpec(options.pipeline)) {
      PrintError(
          absl::StrCat("xlite opt: unknown pipeline '", options.pipeline, "' (see --list-passes)"));
      return kExitUsage;
    }
    spec = options.pipeline;
  }
  if (absl::StatusOr<PassPipeline> pipeline = ParsePipelineSpec(spec); !pipeline.ok()) {
    PrintError(absl::StrCat("xlite opt: ", pipeline.status().message()));
    return kExitUsage;
  }
  if (absl::Status usable = CheckPipelineOptions(options.pipeline_options); !usable.ok()) {
    PrintError(absl::StrCat("xlite opt: ", usable.message()));
    return kExitUsage;
  }
  compiler::CompileOptions compile;
  compile.passes = spec;
  compile.pipeline_options = options.pipeline_options;
  std::vector<LoadedModule> modules;
  if (!LoadModules(options.input, &modules)) return kExitInvalidInput;
  std::string out;
  for (size_t i = 0; i < modules.size(); ++i) {
    HloModule& module = *modules[i].module;
    absl::Status valid = VerifyModule(module);
    if (!valid.ok()) {
      PrintError(absl::StrCat(modules[i].location, ": error: ", valid.message()));
      return kExitInvalidInput;
    }
    absl::StatusOr<compiler::CompileResult> compiled = compiler::Compile(module, compile);
    if (!compiled.ok()) {
      PrintError(absl::StrCat(modules[i].location, ": error: ", compiled.status().message()));
      return kExitInvalidInput;
    }
    for (const std::string& warning : compiled->warnings) {
      PrintError(absl::StrCat(modules[i].location, ": warning: ", warning));
    }
    for (const std::string& warning : compiled->pipeline.warnings) {
      PrintError(absl::StrCat(modules[i].location, ": warning: ", warning));
    }
    if (options.pass_stats) {
      std::cerr << "pass statistics for module " << module.name() << ":\n"
                << compiled->pipeline.StatsTable();
    }
    if (i > 0) out += "// -----\n";
    AppendModule(module, PrintOptions(), &out);
  }
  if (!options.output.empty()) {
    absl::Status written = WriteBinaryFile(options.output, out);
    if (!written.ok()) {
      PrintError(absl::StrCat("xlite opt: error: ", written.message()));
      return kExitInvalidInput;
    }
    return kExitOk;
  }
  std::cout << out << std::flush;
  return kExitOk;
}

}  // namespace

void AddOptCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<OptOptions>();
  CLI::App* command =
      app.add_subcommand("opt",
                         "Run HLO passes (--passes=a,b{k=v},fixed-point(c,d)) or a named pipeline "
                         "(--pipeline=default) and print the resulting module.");
  AddInputOptions(*command, &options->input);
  command->get_option("input")->required(false);
  command->add_option("--passes", options->passes,
                      "Comma-separated pass specs; fixed-point(...) repeats a group");
  command->add_option("--pipeline", options->pipeline, "A named pipeline, e.g. default");
  command->add_option("-o,--output,--save-compiled", options->output,
                      "Write the resulting module to this file instead of stdout");
  command->add_flag("--list-passes", options->list_passes,
                    "List every pass and pipeline with one line on what it does");
  command->add_flag("--pass-stats", options->pass_stats,
                    "Print per-pass runs, changes and wall time to stderr");
  command->add_flag("--verify-each", options->pipeline_options.verify_each,
                    "Run the verifier after every pass");
  command->add_option("--dump-after", options->pipeline_options.dump_after,
                      "Write the module after each pass whose name matches this regex");
  command->add_option("--dump-dir", options->pipeline_options.dump_dir,
                      "Folder for --dump-after files (default xlite_dump)");
  command->callback([options, exit_code] { *exit_code = RunOpt(*options); });
}

}  // namespace xlite::tools
