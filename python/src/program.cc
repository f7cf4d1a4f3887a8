#include "program.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "errors.h"
#include "module_handle.h"
#include "xlite/compiler/compile.h"
#include "xlite/ir/computation.h"
#include "xlite/spmd/sharded_execution.h"
#include "xlite/tools/backends.h"

namespace nb = nanobind;

namespace xlite::python {

std::unique_ptr<Program> CompileProgram(const HloModule& module, std::string backend, bool spmd,
                                        int threads) {
  if (backend.empty()) backend = spmd ? "interpreter" : tools::DefaultBackend();
  if (!tools::IsBackend(backend)) {
    throw XliteError(absl::StrCat("unknown backend '", backend,
                                  "' (available: ", tools::AvailableBackends(), ")"));
  }
  if (spmd && backend != "interpreter") {
    throw XliteError(absl::StrCat("not supported yet: backend ", backend,
                                  " with spmd=True (use backend=\"interpreter\")"));
  }
  const int64_t devices = module.config().DeviceCount();
  if (!spmd && devices > 1) {
    throw XliteError(absl::StrCat("not supported yet: running a module of ", devices,
                                  " devices without spmd=True"));
  }
  if (threads < 0) throw XliteError("threads must be >= 0");
  VerifyOrThrow(module);
  auto program = std::make_unique<Program>();
  program->backend = backend;
  program->module = module.Clone();
  for (const HloInstruction* parameter :
       program->module->entry_computation()->parameter_instructions()) {
    program->parameter_shapes.push_back(parameter->shape());
  }
  compiler::CompileOptions options;
  options.partition = spmd;
  if (!spmd) {
    options.backend = backend;
    options.build_executable = true;
    options.executable_options.threads = threads;
  }
  nb::gil_scoped_release unlocked;
  compiler::CompileResult compiled =
      ValueOrThrow(compiler::Compile(*program->module, options),
                   spmd ? "partitioning failed" : "compilation failed");
  program->entry = std::move(compiled.entry);
  program->executable = std::move(compiled.executable);
  return program;
}

nb::list RunProgram(Program& program, const std::vector<ArrayArgument>& arguments,
                    uint64_t rng_seed) {
  if (arguments.size() != program.parameter_shapes.size()) {
    throw XliteError(absl::StrCat("the module takes ", program.parameter_shapes.size(),
                                  " arguments, ", arguments.size(), " given"));
  }
  std::vector<Literal> literals;
  for (size_t i = 0; i < arguments.size(); ++i) {
    literals.push_back(ToParameterLiteral(arguments[i], program.parameter_shapes[i], i));
  }
  absl::StatusOr<Literal> result;
  {
    nb::gil_scoped_release unlocked;
    if (program.executable != nullptr) {
      runtime::ExecuteOptions options;
      options.rng_seed = rng_seed;
      result = program.executable->Execute(literals, options);
    } else {
      EvalOptions options;
      options.rng_seed = rng_seed;
      result = spmd::RunPartitioned(*program.module, *program.entry, literals, options);
    }
  }
  return ResultLeaves(ValueOrThrow(std::move(result), "evaluation failed"));
}

}  // namespace xlite::python
