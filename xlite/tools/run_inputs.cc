#include "xlite/tools/run_inputs.h"

#include <optional>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xlite/analysis/verifier.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"
#include "xlite/ir/computation.h"
#include "xlite/runtime/npy_io.h"
#include "xlite/runtime/random_inputs.h"
#include "xlite/text/parser.h"
#include "xlite/tools/input.h"
#include "xlite/tools/out_of_memory.h"
#include "xlite/tools/run_limits.h"

namespace xlite::tools {
namespace {

// The parameter an .npz member is for: argN (as --save-inputs writes) or
// arr_N (np.savez's names for positional arrays), N in canonical decimal.
std::optional<int64_t> ParameterOfMember(std::string_view name) {
  for (std::string_view prefix : {"arg", "arr_"}) {
    int64_t index = -1;
    if (name.substr(0, prefix.size()) == prefix &&
        absl::SimpleAtoi(AsAbsl(name.substr(prefix.size())), &index) && index >= 0 &&
        absl::StrCat(AsAbsl(prefix), index) == name) {
      return index;
    }
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<Literal>> ArgumentsFromNpz(const std::string& npz_path,
                                                      const HloComputation& entry) {
  const int64_t params = entry.num_parameters();
  XLITE_ASSIGN_OR_RETURN(std::vector<runtime::NamedArray> arrays, runtime::ReadNpzFile(npz_path));
  std::vector<const runtime::NamedArray*> by_index(params, nullptr);
  for (const runtime::NamedArray& array : arrays) {
    std::optional<int64_t> index = ParameterOfMember(array.name);
    if (!index || *index >= params) {
      return InvalidArgument(npz_path, ": unexpected array '", array.name, "' (expected arg0..arg",
                             params - 1, " or numpy's positional arr_0..arr_", params - 1,
                             ", one per entry parameter)");
    }
    if (by_index[*index] != nullptr) {
      return InvalidArgument(npz_path, ": arrays '", by_index[*index]->name, "' and '", array.name,
                             "' are both for parameter ", *index);
    }
    by_index[*index] = &array;
  }
  std::vector<Literal> args;
  for (int64_t i = 0; i < params; ++i) {
    if (by_index[i] == nullptr) {
      return InvalidArgument(npz_path, ": no array 'arg", i, "' (or 'arr_", i, "') for parameter ",
                             i, " (the module has ", params, " parameters)");
    }
    XLITE_ASSIGN_OR_RETURN(
        Literal arg, runtime::AdaptArray(
                         by_index[i]->array, entry.parameter_instruction(i)->shape(),
                         absl::StrCat(npz_path, ": ", by_index[i]->name, " (parameter ", i, ")")));
    args.push_back(std::move(arg));
  }
  return args;
}

absl::StatusOr<std::vector<Literal>> ArgumentsFromNpyFiles(const std::vector<std::string>& files,
                                                           const HloComputation& entry) {
  const int64_t params = entry.num_parameters();
  if (static_cast<int64_t>(files.size()) != params) {
    return InvalidArgument("the module has ", params, " parameters but ", files.size(),
                           " --input files were given");
  }
  std::vector<Literal> args;
  for (int64_t i = 0; i < params; ++i) {
    XLITE_ASSIGN_OR_RETURN(runtime::NpyArray array, runtime::ReadNpyFile(files[i]));
    XLITE_ASSIGN_OR_RETURN(Literal arg,
                           runtime::AdaptArray(array, entry.parameter_instruction(i)->shape(),
                                               absl::StrCat("input ", i, " (", files[i], ")")));
    args.push_back(std::move(arg));
  }
  return args;
}

}  // namespace

absl::StatusOr<RunnableModule> LoadRunnableModule(const std::string& path,
                                                  std::optional<int64_t> memory_budget,
                                                  bool one_device_per_process) {
  XLITE_ASSIGN_OR_RETURN(Source source, ReadSource(path));
  SetActivity(absl::StrCat("parsing ", source.name));
  SourcePositions positions;
  ParseOptions parse_options = UserParseOptions(source.name);
  parse_options.positions = &positions;
  XLITE_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                         ParseHloModule(source.text, parse_options));
  if (std::vector<Violation> violations = FindViolations(*module); !violations.empty()) {
    std::vector<std::string> messages;
    for (const Violation& violation : violations) {
      messages.push_back(
          ViolationMessage(source.name, absl::StrCat(source.name, ":1"), positions, violation));
    }
    return absl::InvalidArgumentError(absl::StrJoin(messages, "\n"));
  }
  XLITE_ASSIGN_OR_RETURN(int64_t budget, MemoryBudget(memory_budget));
  XLITE_RETURN_IF_ERROR(CheckRunResources(*module, budget, one_device_per_process));
  return RunnableModule{std::move(source.name), std::move(module)};
}

absl::StatusOr<int64_t> FillOrRefuseElidedConstants(HloModule& module,
                                                    std::optional<uint64_t> seed) {
  if (seed) return runtime::FillElidedConstants(module, *seed);
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() == HloOpcode::kConstant && inst->attrs<ConstantAttrs>().elided) {
        return InvalidArgument("constant %", inst->name(),
                               " is elided ({...}); use --random SEED to fill elided constants "
                               "deterministically");
      }
    }
  }
  return 0;
}

absl::StatusOr<std::vector<Literal>> EntryArguments(const HloModule& module,
                                                    const ArgumentSource& source) {
  const HloComputation& entry = *module.entry_computation();
  if (!source.inputs_npz.empty()) return ArgumentsFromNpz(source.inputs_npz, entry);
  if (!source.input_files.empty()) return ArgumentsFromNpyFiles(source.input_files, entry);
  return runtime::RandomArguments(module, source.seed.value_or(0));
}

}  // namespace xlite::tools
