// `xlite calibrate`: measures this machine (FMA peak, memory bandwidth) and
// prints or writes the `host` device spec that `xlite cost --device host` uses.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/base/file_io.h"
#include "xlite/tools/collective_calibration.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/flag_checks.h"
#include "xlite/tools/host_calibration.h"
#include "xlite/tools/input.h"

namespace xlite::tools {
namespace {

struct CalibrateOptions {
  std::string output;
  bool install = false;
  CalibrationOptions measure;
  int64_t array_mb = 64;
  bool collectives = false;
  CollectiveCalibrationOptions collective;
};

// Writes `text` to `path`, or stdout for "" and "-".
int WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return kExitOk;
  }
  std::error_code error;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, error);
  absl::Status written = WriteBinaryFile(path, text);
  if (!written.ok()) {
    PrintError(absl::StrCat("error: cannot write the calibration: ", written.message()));
    return kExitInvalidInput;
  }
  return kExitOk;
}

// --collectives: every rank of the mpirun job measures; rank 0 reports.
int RunCollectiveCalibration(const CalibrateOptions& options) {
  absl::StatusOr<std::unique_ptr<MpiRank>> mpi = MpiRank::Start(60);
  if (!mpi.ok()) {
    PrintError(absl::StrCat("xlite calibrate: error: ", mpi.status().message()));
    return kExitInvalidInput;
  }
  absl::StatusOr<std::vector<CollectiveFit>> fits = CalibrateCollectives(**mpi, options.collective);
  int code = kExitOk;
  if (!fits.ok()) {
    PrintError(absl::StrCat("xlite calibrate: error: rank ", (*mpi)->rank(), ": ",
                            fits.status().message()));
    code = kExitInvalidInput;
  } else if ((*mpi)->is_root()) {
    std::cerr << absl::StrFormat("collectives over %d ranks (xlite's MPI communicator):\n",
                                 (*mpi)->size());
    for (const CollectiveFit& fit : *fits) {
      std::cerr << absl::StrFormat("  %-15s alpha %9.3g s  beta %9.3g B/s  (%s)\n", fit.kind,
                                   fit.alpha_seconds, fit.beta_bytes_per_second, fit.path);
    }
    code = WriteOutput(options.output, CollectiveFitsToJson(*fits, (*mpi)->size()));
  }
  return (*mpi)->Finish(code);
}

int RunCalibrate(const CalibrateOptions& options) {
  if (options.collectives) return RunCollectiveCalibration(options);
  CalibrationOptions measure = options.measure;
  measure.array_bytes = options.array_mb << 20;
  HostMeasurement m = MeasureHost(measure);
  const std::string json = DeviceSpecToJson(HostSpecFromMeasurement(m));
  std::string path = options.install ? HostSpecPath() : options.output;
  if (int code = WriteOutput(path, json); code != kExitOk || path.empty() || path == "-") {
    return code;
  }
  std::cerr << absl::StrFormat(
      "wrote %s: f32 %.4g FLOP/s, f64 %.4g FLOP/s (%s, %d threads), triad %.4g B/s, copy %.4g "
      "B/s\n",
      path, m.f32_flops_per_second, m.f64_flops_per_second, m.vector_isa, m.threads,
      m.triad_bytes_per_second, m.copy_bytes_per_second);
  return kExitOk;
}

}  // namespace

void AddCalibrateCommand(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* command =
      app.add_subcommand("calibrate",
                         "Measure this machine and print its `host` device spec as JSON: FMA peak "
                         "(vectorised multiply-add chains on every thread), memory bandwidth "
                         "(STREAM-like triad and copy), exp rate and thread handoff latency. Takes "
                         "about two seconds; the machine should be otherwise idle.");
  command->add_option("-o,--output", options->output, "Write the JSON to this file");
  command->add_flag("--install", options->install,
                    absl::StrCat("Write it where `--device host` looks ($XLITE_HOST_SPEC, else "
                                 "~/.cache/xlite/host.json)"));
  command->add_option("--threads", options->measure.threads, "Threads (0 = all)")
      ->check(IntegerIn(0, kMaxThreads));
  command
      ->add_option("--array-mb", options->array_mb,
                   "MiB per STREAM array (three arrays; larger than the caches)")
      ->capture_default_str()
      ->check(IntegerIn(1, int64_t{1} << 16));
  command->add_flag("--collectives", options->collectives,
                    "Instead: under `mpirun -np N`, time all-reduce, all-gather, "
                    "reduce-scatter, all-to-all and permute on xlite's MPI communicator over "
                    "message sizes and print the fitted alpha (s) and beta (B/s) as JSON");
  command
      ->add_option("--max-bytes", options->collective.max_bytes,
                   "With --collectives: the largest per-device message")
      ->capture_default_str()
      ->check(IntegerIn(int64_t{1} << 10, int64_t{1} << 30));
  command->callback([options, exit_code] { *exit_code = RunCalibrate(*options); });
}

}  // namespace xlite::tools
