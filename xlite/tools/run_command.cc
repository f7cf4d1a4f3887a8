// `xlite run`: evaluates a module on inputs from .npy/.npz files or
// generated from a seed, prints a summary of every result leaf and can write
// the results to an .npz. Multi-device modules run every device.
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xlite/analysis/partition_state.h"
#include "xlite/base/file_io.h"
#include "xlite/base/status.h"
#include "xlite/compiler/compile.h"
#include "xlite/eval/evaluator.h"
#include "xlite/eval/multi_device.h"
#include "xlite/ir/computation.h"
#include "xlite/runtime/array_summary.h"
#include "xlite/runtime/npy_io.h"
#include "xlite/spmd/sharded_execution.h"
#include "xlite/text/printer.h"
#include "xlite/tools/backends.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/flag_checks.h"
#include "xlite/tools/input.h"
#include "xlite/tools/mpi_run.h"
#include "xlite/tools/out_of_memory.h"
#include "xlite/tools/result_compare.h"
#include "xlite/tools/run_inputs.h"
#include "xlite/tools/run_limits.h"

namespace xlite::tools {
namespace {

struct RunOptions {
  std::string path;
  ArgumentSource inputs;
  std::string output;
  std::string save_inputs;
  // Empty: the cpu backend (when built) for single-device runs, the
  // interpreter for --spmd, MPI and multi-device modules.
  std::string backend;
  int threads = 0;       // 0: one per core
  bool profile = false;  // print the backend's time per kernel/thunk
  int64_t print_elements = 8;
  std::optional<int64_t> memory_budget;
  std::optional<double> timeout_seconds;
  std::string communicator = "in-process";
  double collective_timeout = 60;
  bool spmd = false;            // propagate, partition, run the partitions
  std::string save_compiled;    // write the module as compiled to run
  std::string compare;          // an .npz of reference results
  std::string compare_backend;  // or the same run on this backend
  Tolerance tolerance;
  std::optional<double> rtol, atol;  // as given, to check they go with a comparison
};

// An error with the exit code it maps to.
struct Failure {
  int code;
  std::string message;
};

// Device 0's leaves are out0, out1...; device d > 0's are dev<d>_out0...
std::string LeafName(int64_t device, size_t leaf) {
  return device == 0 ? absl::StrCat("out", leaf) : absl::StrCat("dev", device, "_out", leaf);
}

// The array leaves of every device's result, named as LeafName says.
std::vector<runtime::NamedArray> NamedArrayLeaves(const std::vector<Literal>& results) {
  std::vector<runtime::NamedArray> named;
  for (size_t d = 0; d < results.size(); ++d) {
    std::vector<const Literal*> leaves = runtime::Leaves(results[d]);
    for (size_t i = 0; i < leaves.size(); ++i) {
      if (leaves[i]->shape().IsArray()) {
        named.push_back({LeafName(static_cast<int64_t>(d), i), *leaves[i]});
      }
    }
  }
  return named;
}

absl::Status WriteNpz(const std::string& path, absl::Span<const runtime::NamedArray> arrays) {
  XLITE_ASSIGN_OR_RETURN(std::string npz, runtime::SerializeNpz(arrays));
  return WriteBinaryFile(path, npz);
}

Failure EvaluationFailure(const absl::Status& status, const RunOptions& options) {
  std::string message = absl::StrCat("evaluation failed: ", status.message());
  if (status.code() == absl::StatusCode::kDeadlineExceeded && options.timeout_seconds) {
    absl::StrAppend(&message, " (--timeout ", *options.timeout_seconds, " s)");
  }
  return Failure{kExitInvalidInput, message};
}

// Runs `module` on `args` as `options` say: one device on its backend, the
// partitioned program (--spmd) on threads or MPI ranks, or every device of a
// multi-device module. Fills `results` with each device's result (one
// global result under --spmd); leaves it empty on MPI ranks other than 0.
std::optional<Failure> Execute(RunOptions options, HloModule& module, std::vector<Literal> args,
                               MpiRank* mpi, const std::string& name,
                               std::vector<Literal>& results) {
  EvalOptions eval_options;
  eval_options.rng_seed = options.inputs.seed.value_or(0);
  eval_options.deadline = StartDeadline(options.timeout_seconds);
  int64_t devices = module.config().DeviceCount();
  const bool one_device = !options.spmd && mpi == nullptr && devices == 1;
  if (options.backend.empty()) options.backend = one_device ? DefaultBackend() : "interpreter";
  if (options.backend != "interpreter" && !one_device) {
    return Failure{kExitUsage, absl::StrCat("not supported yet: --backend ", options.backend,
                                            " on multi-device modules, --spmd or --communicator "
                                            "mpi (use --backend interpreter)")};
  }
  // --save-compiled: the module as it runs, once compiled (on rank 0).
  auto save_compiled = [&]() -> std::optional<Failure> {
    if (options.save_compiled.empty() || (mpi != nullptr && !mpi->is_root())) return std::nullopt;
    absl::Status saved = WriteBinaryFile(options.save_compiled, PrintModule(module));
    if (!saved.ok()) return Failure{kExitInvalidInput, std::string(saved.message())};
    return std::nullopt;
  };
  // Every rank checks the job before partitioning: one rank per device, and
  // the same module, inputs and options as rank 0.
  if (mpi != nullptr) {
    if (absl::Status fits = mpi->CheckDeviceCount(module); !fits.ok()) {
      return Failure{kExitInvalidInput, std::string(fits.message())};
    }
    const std::string result_options = absl::StrCat(
        "spmd=", options.spmd, " backend=", options.backend, " rng_seed=", eval_options.rng_seed);
    if (absl::Status same = mpi->CheckAgreement(module, args, result_options); !same.ok()) {
      return Failure{kExitInvalidInput, mpi->is_root() ? std::string(same.message()) : ""};
    }
  }
  SetActivity(absl::StrCat("evaluating ", name));
  if (options.spmd) {
    SetActivity(absl::StrCat("partitioning ", name));
    compiler::CompileOptions compile;
    compile.partition = true;
    absl::StatusOr<compiler::CompileResult> partitioned = compiler::Compile(module, compile);
    if (!partitioned.ok()) {
      return Failure{kExitInvalidInput,
                     absl::StrCat("partitioning failed: ", partitioned.status().message())};
    }
    if (mpi == nullptr || mpi->is_root()) {
      for (const std::string& warning : partitioned->warnings) {
        std::cerr << "xlite run: warning: " << warning << "\n";
      }
    }
    if (std::optional<Failure> failed = save_compiled()) return failed;
    absl::StatusOr<Literal> result;
    if (mpi != nullptr) {
      // Every rank partitions the same module the same way and takes its
      // own shard of the global inputs; rank 0 assembles the outputs.
      absl::StatusOr<std::vector<Literal>> shards =
          spmd::PartitionArguments(*partitioned->entry, args, mpi->rank());
      if (!shards.ok()) return Failure{kExitInvalidInput, std::string(shards.status().message())};
      absl::StatusOr<std::vector<Literal>> all = mpi->RunDevice(module, *shards, eval_options);
      if (!all.ok() && all.status().code() == absl::StatusCode::kAborted && !mpi->is_root()) {
        return Failure{kExitInvalidInput, ""};  // rank 0 reports it
      }
      if (!all.ok()) return EvaluationFailure(all.status(), options);
      if (!mpi->is_root()) return std::nullopt;
      result = spmd::AssembleFromShards(*all, partitioned->entry->result,
                                        partitioned->entry->result_shape);
    } else {
      result = spmd::RunPartitioned(module, *partitioned->entry, args, eval_options);
    }
    if (!result.ok()) return EvaluationFailure(result.status(), options);
    results.push_back(*std::move(result));
  } else if (mpi != nullptr) {
    if (std::optional<Failure> failed = save_compiled()) return failed;
    absl::StatusOr<std::vector<Literal>> all = mpi->RunDevice(module, args, eval_options);
    if (!all.ok() && all.status().code() == absl::StatusCode::kAborted && !mpi->is_root()) {
      return Failure{kExitInvalidInput, ""};  // rank 0 reports it
    }
    if (!all.ok()) {
      return EvaluationFailure(all.status(), options);
    }
    // Rank 0 prints and writes every device's results.
    if (!mpi->is_root()) return std::nullopt;
    results = *std::move(all);
  } else if (devices == 1) {
    SetActivity(absl::StrCat("compiling ", name));
    compiler::CompileOptions compile;
    compile.backend = options.backend;
    compile.build_executable = true;
    compile.executable_options.threads = options.threads;
    compile.executable_options.profile = options.profile;
    absl::StatusOr<compiler::CompileResult> compiled = compiler::Compile(module, compile);
    if (!compiled.ok()) {
      return Failure{kExitInvalidInput,
                     absl::StrCat("compilation failed: ", compiled.status().message())};
    }
    if (std::optional<Failure> failed = save_compiled()) return failed;
    SetActivity(absl::StrCat("evaluating ", name));
    runtime::ExecuteOptions execute_options;
    execute_options.rng_seed = eval_options.rng_seed;
    execute_options.deadline = eval_options.deadline;
    absl::StatusOr<Literal> result = compiled->executable->Execute(args, execute_options);
    if (!result.ok()) {
      return EvaluationFailure(result.status(), options);
    }
    if (options.profile) std::cerr << compiled->executable->ProfileReport();
    results.push_back(*std::move(result));
  } else {
    if (std::optional<Failure> failed = save_compiled()) return failed;
    std::vector<std::vector<Literal>> per_device;
    per_device.push_back(std::move(args));
    absl::StatusOr<std::vector<Literal>> all =
        EvaluateOnAllDevices(module, per_device, eval_options);
    if (!all.ok()) {
      return EvaluationFailure(all.status(), options);
    }
    results = *std::move(all);
  }
  return std::nullopt;
}

// Usage errors of --compare, --compare-backend, --rtol and --atol.
std::optional<Failure> CheckCompareOptions(const RunOptions& options, const MpiRank* mpi) {
  if (!options.compare.empty() && !options.compare_backend.empty()) {
    return Failure{kExitUsage, "give either --compare or --compare-backend, not both"};
  }
  const bool comparing = !options.compare.empty() || !options.compare_backend.empty();
  for (const auto& [flag, value] : {std::pair{"--rtol", options.rtol}, {"--atol", options.atol}}) {
    if (!value) continue;
    if (!comparing) {
      return Failure{kExitUsage, absl::StrCat(flag, " needs --compare or --compare-backend")};
    }
    if (!(*value >= 0) || std::isinf(*value)) {
      return Failure{kExitUsage, absl::StrCat(flag, " must be a finite number >= 0")};
    }
  }
  if (!options.compare_backend.empty() && !IsBackend(options.compare_backend)) {
    return Failure{kExitUsage, absl::StrCat("unknown --compare-backend '", options.compare_backend,
                                            "' (available: ", AvailableBackends(), ")")};
  }
  if (!options.compare_backend.empty() && mpi != nullptr) {
    return Failure{kExitUsage,
                   "not supported yet: --compare-backend with --communicator mpi (write the "
                   "reference with --output from another run and give it to --compare)"};
  }
  return std::nullopt;
}

// `mpi` is this process's rank under --communicator mpi, else null.
std::optional<Failure> Run(RunOptions options, MpiRank* mpi) {
  if (!options.backend.empty() && !IsBackend(options.backend)) {
    return Failure{kExitUsage, absl::StrCat("unknown backend '", options.backend,
                                            "' (available: ", AvailableBackends(), ")")};
  }
  if (!options.inputs.input_files.empty() && !options.inputs.inputs_npz.empty()) {
    return Failure{kExitUsage, "give either --input files or one --inputs archive, not both"};
  }
  if (std::optional<Failure> refused = CheckCompareOptions(options, mpi)) return refused;
  if (options.rtol) options.tolerance.rtol = *options.rtol;
  if (options.atol) options.tolerance.atol = *options.atol;
  absl::StatusOr<RunnableModule> loaded =
      LoadRunnableModule(options.path, options.memory_budget, mpi != nullptr);
  if (!loaded.ok()) return Failure{kExitInvalidInput, std::string(loaded.status().message())};
  HloModule& module = *loaded->module;
  const HloComputation& entry = *module.entry_computation();
  if (!options.inputs.from_files() && !options.inputs.seed && entry.num_parameters() > 0) {
    return Failure{kExitUsage, absl::StrCat("the module has ", entry.num_parameters(),
                                            " parameters: give --input files, --inputs "
                                            "args.npz or --random SEED")};
  }
  absl::StatusOr<int64_t> filled = FillOrRefuseElidedConstants(module, options.inputs.seed);
  if (!filled.ok()) return Failure{kExitInvalidInput, std::string(filled.status().message())};
  if (*filled > 0 && (mpi == nullptr || mpi->is_root())) {
    std::cerr << "xlite run: filled " << *filled << " elided constant" << (*filled == 1 ? "" : "s")
              << " ({...}) from seed " << *options.inputs.seed << "\n";
  }
  SetActivity(absl::StrCat("preparing the inputs of ", loaded->name));
  absl::StatusOr<std::vector<Literal>> prepared = EntryArguments(module, options.inputs);
  if (!prepared.ok()) return Failure{kExitInvalidInput, std::string(prepared.status().message())};
  std::vector<Literal> args = *std::move(prepared);
  if (!options.save_inputs.empty() && (mpi == nullptr || mpi->is_root())) {
    std::vector<runtime::NamedArray> named;
    for (size_t i = 0; i < args.size(); ++i) named.push_back({absl::StrCat("arg", i), args[i]});
    absl::Status saved = WriteNpz(options.save_inputs, named);
    if (!saved.ok()) return Failure{kExitInvalidInput, std::string(saved.message())};
  }
  if (options.spmd && module.config().num_partitions == 1 && (mpi == nullptr || mpi->is_root())) {
    std::cerr << "xlite run: note: " << loaded->name
              << " has num_partitions=1: --spmd runs it as one partition (set num_partitions in "
                 "its HloModule line to partition it)\n";
  }
  if (!options.spmd && module.config().DeviceCount() > 1 && !FiguresArePerDevice(module) &&
      (mpi == nullptr || mpi->is_root())) {
    std::cerr << "xlite run: note: " << loaded->name
              << " has num_partitions=" << module.config().num_partitions
              << " and is not partitioned yet: every device runs the whole program (add --spmd "
                 "to partition it and run one partition per device)\n";
  }
  // --compare-backend runs the module as loaded, before compiling changes it.
  std::unique_ptr<HloModule> reference_module;
  std::vector<Literal> reference_args;
  if (!options.compare_backend.empty()) {
    reference_module = module.Clone();
    reference_args = args;
  }
  std::vector<Literal> results;
  if (std::optional<Failure> failed =
          Execute(options, module, std::move(args), mpi, loaded->name, results)) {
    return failed;
  }
  if (results.empty()) return std::nullopt;  // an MPI rank other than 0
  for (size_t d = 0; d < results.size(); ++d) {
    if (results.size() > 1) {
      std::cout << "device " << d << " (replica " << d / module.config().num_partitions
                << ", partition " << d % module.config().num_partitions << "):\n";
    }
    std::vector<const Literal*> leaves = runtime::Leaves(results[d]);
    for (size_t i = 0; i < leaves.size(); ++i) {
      std::cout << LeafName(static_cast<int64_t>(d), i) << ": "
                << runtime::SummarizeLeaf(*leaves[i], options.print_elements) << "\n";
    }
  }
  std::vector<runtime::NamedArray> written = NamedArrayLeaves(results);
  if (!options.output.empty()) {
    absl::Status status = WriteNpz(options.output, written);
    if (!status.ok()) return Failure{kExitInvalidInput, std::string(status.message())};
  }
  if (options.compare.empty() && options.compare_backend.empty()) return std::nullopt;
  std::vector<runtime::NamedArray> reference;
  std::string against = options.compare;
  if (!options.compare.empty()) {
    absl::StatusOr<std::vector<runtime::NamedArray>> read = runtime::ReadNpzFile(options.compare);
    if (!read.ok()) return Failure{kExitInvalidInput, std::string(read.status().message())};
    reference = *std::move(read);
  } else {
    RunOptions reference_options = options;
    reference_options.backend = options.compare_backend;
    reference_options.spmd = false;
    reference_options.profile = false;
    reference_options.save_compiled.clear();
    against = absl::StrCat("backend ", options.compare_backend);
    std::vector<Literal> reference_results;
    if (std::optional<Failure> failed =
            Execute(reference_options, *reference_module, std::move(reference_args), nullptr,
                    loaded->name, reference_results)) {
      failed->message = absl::StrCat("the reference run on ", against, ": ", failed->message);
      return failed;
    }
    reference = NamedArrayLeaves(reference_results);
  }
  absl::StatusOr<std::vector<LeafComparison>> compared =
      CompareLeaves(written, reference, options.tolerance);
  if (!compared.ok()) {
    return Failure{kExitInvalidInput,
                   absl::StrCat("--compare ", against, ": ", compared.status().message())};
  }
  std::cout << "compared with " << against << " (rtol " << options.tolerance.rtol << ", atol "
            << options.tolerance.atol << "):\n";
  int64_t differ = 0;
  for (const LeafComparison& leaf : *compared) {
    std::cout << "  " << leaf.text << "\n";
    differ += leaf.matches ? 0 : 1;
  }
  if (differ > 0) {
    return Failure{kExitInvalidInput, absl::StrCat(differ, " of ", compared->size(),
                                                   " result leaves differ from ", against)};
  }
  return std::nullopt;
}

}  // namespace

void AddRunCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* command = app.add_subcommand(
      "run",
      "Evaluate a module and print a summary of each result leaf (shape, min/max/mean, first "
      "elements, fnv1a64 checksum of its bytes). Leaves are named out0, out1... depth-first; on "
      "a multi-device module device d>0's are dev<d>_out0... Types numpy lacks (bf16, f8, s4...) "
      "are written under their ml_dtypes names (np.load gives them back once ml_dtypes is "
      "imported) and read as numpy saves ml_dtypes arrays (untyped '<V2', '|V1') or as raw bits "
      "in the unsigned integer of their storage width.");
  command->add_option("input", options->path, "HLO text file, or - for stdin")->required();
  command->add_option("--input", options->inputs.input_files,
                      "A .npy file per entry parameter, in parameter order (repeat the flag)");
  command->add_option("--inputs", options->inputs.inputs_npz,
                      "An .npz holding arg0, arg1... (or np.savez's positional arr_0, arr_1...) in "
                      "entry-parameter order");
  command
      ->add_option("--random", options->inputs.seed,
                   "Generate the inputs (and fill elided {...} constants) from this seed")
      ->check(UnsignedInteger());
  command->add_option("--output", options->output,
                      "Write the result leaves to this .npz (out0, out1..., dev<d>_out<i>)");
  command->add_option("--save-inputs", options->save_inputs,
                      "Write the arguments used (e.g. generated ones) to this .npz as arg0, "
                      "arg1..., for a later --inputs");
  command->add_option(
      "--backend", options->backend,
      absl::StrCat("Backend to run on (", AvailableBackends(), "; default: ", DefaultBackend(),
                   " for one device, interpreter for "
                   "--spmd, MPI and multi-device modules)"));
  command
      ->add_option("--threads", options->threads, "Worker threads of the backend (0: one per core)")
      ->capture_default_str()
      ->check(IntegerIn(0, kMaxThreads));
  command->add_flag("--profile", options->profile,
                    "Print the time per fused computation/thunk to stderr (backends that keep "
                    "one; the interpreter keeps none)");
  command
      ->add_option("--print-elements", options->print_elements, "Leading elements shown per leaf")
      ->capture_default_str()
      ->check(IntegerIn(0, std::numeric_limits<int64_t>::max()));
  command
      ->add_option("--memory-budget", options->memory_budget,
                   "Refuse a run whose estimated memory exceeds BYTES (default: the "
                   "available memory, MemAvailable of /proc/meminfo)")
      ->check(IntegerIn(0, std::numeric_limits<int64_t>::max()));
  command
      ->add_option("--timeout", options->timeout_seconds,
                   "Stop the evaluation with an error after SECONDS")
      ->check(SecondsUpTo(kMaxTimeoutSeconds));
  command
      ->add_option("--communicator", options->communicator,
                   "How the devices of a multi-device module communicate: in-process "
                   "(threads) or mpi (run under `mpirun -np N`, one device per rank; rank 0 "
                   "prints and writes the results)")
      ->capture_default_str()
      ->check(CLI::IsMember({"in-process", "mpi"}));
  command->add_flag("--spmd", options->spmd,
                    "Propagate shardings, partition the module (the spmd pipeline), run "
                    "num_partitions devices on global inputs and print the global results");
  command->add_option("--save-compiled,--save-partitioned", options->save_compiled,
                      "Write the module as it runs to this file: with --spmd the per-partition "
                      "module (what `xlite opt --pipeline=spmd` prints), on one device the "
                      "backend's (cpu: fused and scheduled, as its thunks run)");
  command->add_option("--compare", options->compare,
                      "Compare the result leaves with the arrays of the same name in this .npz "
                      "(as --output writes them); print each leaf's largest absolute and "
                      "relative error and its first mismatch; exit 1 when one differs");
  command->add_option("--compare-backend", options->compare_backend,
                      "Run the module as written on this backend too (e.g. interpreter) and "
                      "compare with that, as --compare does; with --spmd: the unpartitioned run");
  command->add_option("--rtol", options->rtol,
                      "With a comparison: relative tolerance of float elements (default 1e-5)");
  command->add_option("--atol", options->atol,
                      "With a comparison: absolute tolerance of float elements (default 1e-6); an "
                      "element matches when |got - want| <= atol + rtol * |want|");
  command
      ->add_option("--collective-timeout", options->collective_timeout,
                   "With --communicator mpi: seconds a rank waits for a collective, a "
                   "transfer or the final results before ending every rank with an error")
      ->capture_default_str()
      ->check(SecondsUpTo(kMaxTimeoutSeconds));
  command->callback([options, exit_code] {
    std::unique_ptr<MpiRank> mpi;
    std::string context;
    if (options->communicator == "mpi") {
      absl::StatusOr<std::unique_ptr<MpiRank>> started =
          MpiRank::Start(options->collective_timeout);
      if (!started.ok()) {
        PrintCommandError("run", "", started.status().message());
        *exit_code = kExitInvalidInput;
        return;
      }
      mpi = *std::move(started);
      context = absl::StrCat("rank ", mpi->rank(), ": ");
    }
    std::optional<Failure> failure = Run(*options, mpi.get());
    if (failure && !failure->message.empty()) {
      PrintCommandError("run", context, failure->message);
    }
    *exit_code = failure ? failure->code : kExitOk;
    if (mpi) *exit_code = mpi->Finish(*exit_code);
  });
}

}  // namespace xlite::tools
