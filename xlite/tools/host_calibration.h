// Measuring the machine `xlite` runs on for `xlite calibrate`: FMA peak with
// vectorised multiply-add loops, memory bandwidth with STREAM-like copy and
// triad loops, turned into a DeviceSpec named "host".
#ifndef XLITE_TOOLS_HOST_CALIBRATION_H_
#define XLITE_TOOLS_HOST_CALIBRATION_H_

#include <string>

#include "xlite/analysis/device_spec.h"

namespace xlite::tools {

struct CalibrationOptions {
  int threads = 0;                 // 0 = every hardware thread
  int64_t array_bytes = 64 << 20;  // per STREAM array (three of them)
};

struct HostMeasurement {
  int threads = 1;
  std::string vector_isa;  // "avx512f", "avx2+fma" or "scalar"
  double f32_flops_per_second = 0;
  double f64_flops_per_second = 0;
  double exp_per_second = 0;
  double copy_bytes_per_second = 0;
  double triad_bytes_per_second = 0;
  double thread_handoff_seconds = 0;
  double memory_bytes = 0;
};

HostMeasurement MeasureHost(const CalibrationOptions& options);
DeviceSpec HostSpecFromMeasurement(const HostMeasurement& m);

}  // namespace xlite::tools

#endif  // XLITE_TOOLS_HOST_CALIBRATION_H_
