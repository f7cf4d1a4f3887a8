// Device specs (peak FLOP/s per element type, memory and interconnect) read
// from JSON, the specs built into the binary, and the roofline estimate of a
// cost on a device.
#ifndef XLITE_ANALYSIS_DEVICE_SPEC_H_
#define XLITE_ANALYSIS_DEVICE_SPEC_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "xlite/analysis/cost_analysis.h"

namespace xlite {

struct DeviceSpec {
  std::string name;
  std::string description;
  // Peak FLOP/s by element-type class: "f64", "f32", "bf16", "f16", "f8",
  // "f4", "int8", "int32" ("f32" is required; see PeakFlops for fallbacks).
  std::vector<std::pair<std::string, double>> peak_flops_per_second;
  double transcendentals_per_second = 0;
  double memory_bandwidth_bytes_per_second = 0;
  double memory_bytes = 0;
  double interconnect_bandwidth_bytes_per_second = 0;
  double interconnect_latency_seconds = 0;
  // Where each figure comes from (field name -> note), kept in file order.
  std::vector<std::pair<std::string, std::string>> sources;

  // The peak for an element type: its class ("f8" for every 8-bit float,
  // "int8" for 8 bits and narrower integers, "int32" for wider ones and pred,
  // complex as its component), else the nearest wider class that is given,
  // else "f32".
  double PeakFlops(PrimitiveType type) const;
};

// The peak-FLOP/s keys a spec may use.
const std::vector<std::string>& DeviceSpecFlopsKeys();

// Parses and checks a spec; `origin` names it in errors (a path or "built-in").
absl::StatusOr<DeviceSpec> ParseDeviceSpec(std::string_view json, std::string_view origin);
std::string DeviceSpecToJson(const DeviceSpec& spec);

// The specs compiled into the binary (from xlite/analysis/devices/*.json).
std::vector<std::string> BuiltinDeviceNames();
// Names accepted by LoadDeviceSpec: the built-in ones and "host".
std::vector<std::string> KnownDeviceNames();
// Where `--device host` reads the spec `xlite calibrate` measured:
// $XLITE_HOST_SPEC, else $HOME/.cache/xlite/host.json.
std::string HostSpecPath();
// A built-in name or "host" (in any case), or a path to a JSON file
// (anything with a '/' or ending in ".json").
absl::StatusOr<DeviceSpec> LoadDeviceSpec(std::string_view name_or_path);

enum class Bound { kNone, kCompute, kMemory, kInterconnect };
std::string_view BoundName(Bound bound);

// time = max(compute, memory, interconnect), where compute = sum over element
// types of flops / peak(type) + transcendentals / transcendental rate, memory
// = bytes accessed / memory bandwidth, interconnect = collective bytes /
// interconnect bandwidth + latency per collective.
struct RooflineTime {
  double compute_seconds = 0;
  double memory_seconds = 0;
  double interconnect_seconds = 0;
  double seconds = 0;
  Bound bound = Bound::kNone;
};
RooflineTime Roofline(const Cost& cost, const DeviceSpec& device);

}  // namespace xlite

#endif  // XLITE_ANALYSIS_DEVICE_SPEC_H_
