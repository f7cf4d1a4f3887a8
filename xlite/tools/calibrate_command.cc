// `xlite calibrate`: measures this machine (FMA peak, memory bandwidth) and
// prints or writes the `host` device spec that `xlite cost --device host` uses.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xlite/analysis/device_spec.h"
#include "xlite/tools/commands.h"
#include "xlite/tools/host_calibration.h"
#include "xlite/tools/input.h"

namespace xlite::tools {
namespace {

struct CalibrateOptions {
  std::string output;
  bool install = false;
  CalibrationOptions measure;
  int64_t array_mb = 64;
};

int RunCalibrate(const CalibrateOptions& options) {
  CalibrationOptions measure = options.measure;
  measure.array_bytes = options.array_mb << 20;
  HostMeasurement m = MeasureHost(measure);
  const std::string json = DeviceSpecToJson(HostSpecFromMeasurement(m));
  std::string path = options.install ? HostSpecPath() : options.output;
  if (path.empty() || path == "-") {
    std::cout << json;
    return kExitOk;
  }
  std::error_code error;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, error);
  std::ofstream out(path, std::ios::binary);
  out << json;
  out.close();
  if (!out) {
    PrintError(absl::StrCat(path, ": error: cannot write the host spec"));
    return kExitInvalidInput;
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
  CLI::App* command = app.add_subcommand(
      "calibrate",
      "Measure this machine and print its `host` device spec as JSON: FMA peak "
      "(vectorised multiply-add chains on every thread), memory bandwidth "
      "(STREAM-like triad and copy), exp rate and thread handoff latency. Takes "
      "about two seconds; the machine should be otherwise idle.");
  command->add_option("-o,--output", options->output, "Write the JSON to this file");
  command->add_flag("--install", options->install,
                    absl::StrCat("Write it where `--device host` looks ($XLITE_HOST_SPEC, else "
                                 "~/.cache/xlite/host.json)"));
  command->add_option("--threads", options->measure.threads, "Threads (0 = all)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--array-mb", options->array_mb,
                      "MiB per STREAM array (three arrays; larger than the caches)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 16));
  command->callback([options, exit_code] { *exit_code = RunCalibrate(*options); });
}

}  // namespace xlite::tools
