// Device specs: JSON parsing and checking, the built-in specs, roofline.
#include "xlite/analysis/device_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "xlite/base/file_io.h"
#include "xlite/base/status.h"
#include "xlite/base/strings.h"

namespace xlite {
namespace device_internal {
// Defined in the builtin_devices.cc CMake generates from devices/*.json.
struct EmbeddedSpec {
  const char* name;
  const char* json;
};
extern const EmbeddedSpec kEmbeddedSpecs[];
extern const int kNumEmbeddedSpecs;
}  // namespace device_internal

namespace {

using Json = nlohmann::ordered_json;

// The class key of an element type (see DeviceSpec::PeakFlops).
std::string_view FlopsKey(PrimitiveType type) {
  if (IsComplex(type)) type = ComplexComponentType(type);
  switch (type) {
    case PrimitiveType::F64:
      return "f64";
    case PrimitiveType::F32:
      return "f32";
    case PrimitiveType::BF16:
      return "bf16";
    case PrimitiveType::F16:
      return "f16";
    default:
      break;
  }
  if (IsFloat(type)) return BitWidth(type) <= 4 ? "f4" : "f8";
  if (IsInteger(type) && BitWidth(type) <= 8) return "int8";
  return "int32";
}

// Keys to try, narrowest first, when a spec leaves a class out.
std::vector<std::string_view> FallbackChain(std::string_view key) {
  if (key == "f4") return {"f4", "f8", "bf16", "f16", "f32"};
  if (key == "f8") return {"f8", "bf16", "f16", "f32"};
  if (key == "bf16") return {"bf16", "f16", "f32"};
  if (key == "f16") return {"f16", "bf16", "f32"};
  if (key == "int8") return {"int8", "int32", "f32"};
  if (key == "int32") return {"int32", "f32"};
  if (key == "f64") return {"f64", "f32"};
  return {"f32"};
}

constexpr std::string_view kNumberFields[] = {
    "transcendentals_per_second", "memory_bandwidth_bytes_per_second", "memory_bytes",
    "interconnect_bandwidth_bytes_per_second", "interconnect_latency_seconds"};

double* NumberField(DeviceSpec& spec, std::string_view key) {
  if (key == "transcendentals_per_second") return &spec.transcendentals_per_second;
  if (key == "memory_bandwidth_bytes_per_second") return &spec.memory_bandwidth_bytes_per_second;
  if (key == "memory_bytes") return &spec.memory_bytes;
  if (key == "interconnect_bandwidth_bytes_per_second") {
    return &spec.interconnect_bandwidth_bytes_per_second;
  }
  if (key == "interconnect_latency_seconds") return &spec.interconnect_latency_seconds;
  return nullptr;
}

// A device figure's plausible range: rates and sizes from 1 to 1e24 (per
// second, bytes), a latency from 0 to an hour. Outside it the roofline
// overflows or divides by ~0 (inf, NaN or 1e300-second estimates).
absl::Status CheckFigure(const Json& value, std::string_view origin, std::string_view key,
                         bool is_latency) {
  const double lo = is_latency ? 0 : 1, hi = is_latency ? 3600 : 1e24;
  if (!value.is_number() || !(value.get<double>() >= lo && value.get<double>() <= hi)) {
    return InvalidArgument(
        AsAbsl(origin), ": ", AsAbsl(key), " must be a number from ", lo, " to ", hi,
        is_latency ? " (seconds)" : "",
        value.is_number() ? absl::StrCat(" (got ", value.get<double>(), ")") : std::string());
  }
  return absl::OkStatus();
}

absl::Status ParsePeaks(const Json& peaks, std::string_view origin, DeviceSpec* spec) {
  if (!peaks.is_object()) {
    return InvalidArgument(AsAbsl(origin), ": peak_flops_per_second must be an object");
  }
  const std::vector<std::string>& keys = DeviceSpecFlopsKeys();
  for (auto it = peaks.begin(); it != peaks.end(); ++it) {
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
      return InvalidArgument(AsAbsl(origin), ": unknown element type class \"", it.key(),
                             "\" in peak_flops_per_second (known: ", absl::StrJoin(keys, ", "),
                             ")");
    }
    XLITE_RETURN_IF_ERROR(
        CheckFigure(it.value(), origin, absl::StrCat("peak_flops_per_second.", it.key()), false));
    spec->peak_flops_per_second.emplace_back(it.key(), it.value().get<double>());
  }
  if (std::none_of(spec->peak_flops_per_second.begin(), spec->peak_flops_per_second.end(),
                   [](const auto& p) { return p.first == "f32"; })) {
    return InvalidArgument(AsAbsl(origin), ": peak_flops_per_second needs an \"f32\" entry");
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& DeviceSpecFlopsKeys() {
  static const auto* keys =
      new std::vector<std::string>{"f64", "f32", "bf16", "f16", "f8", "f4", "int8", "int32"};
  return *keys;
}

double DeviceSpec::PeakFlops(PrimitiveType type) const {
  for (std::string_view key : FallbackChain(FlopsKey(type))) {
    for (const auto& [name, peak] : peak_flops_per_second) {
      if (name == key) return peak;
    }
  }
  return 0;
}

absl::StatusOr<DeviceSpec> ParseDeviceSpec(std::string_view json, std::string_view origin) {
  Json root = Json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return InvalidArgument(AsAbsl(origin), ": not valid JSON");
  if (!root.is_object()) return InvalidArgument(AsAbsl(origin), ": a device spec is a JSON object");
  DeviceSpec spec;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string& key = it.key();
    const Json& value = it.value();
    if (key == "name" || key == "description") {
      if (!value.is_string())
        return InvalidArgument(AsAbsl(origin), ": ", key, " must be a string");
      (key == "name" ? spec.name : spec.description) = value.get<std::string>();
    } else if (key == "peak_flops_per_second") {
      XLITE_RETURN_IF_ERROR(ParsePeaks(value, origin, &spec));
    } else if (key == "sources") {
      if (!value.is_object()) return InvalidArgument(AsAbsl(origin), ": sources must be an object");
      for (auto s = value.begin(); s != value.end(); ++s) {
        if (!s.value().is_string()) {
          return InvalidArgument(AsAbsl(origin), ": sources.", s.key(), " must be a string");
        }
        spec.sources.emplace_back(s.key(), s.value().get<std::string>());
      }
    } else if (double* field = NumberField(spec, key)) {
      // Latency may be 0 (one device).
      XLITE_RETURN_IF_ERROR(CheckFigure(value, origin, key, key == "interconnect_latency_seconds"));
      *field = value.get<double>();
    } else {
      return InvalidArgument(AsAbsl(origin), ": unknown field \"", key, "\"");
    }
  }
  if (spec.name.empty()) return InvalidArgument(AsAbsl(origin), ": missing field \"name\"");
  if (spec.peak_flops_per_second.empty()) {
    return InvalidArgument(AsAbsl(origin), ": missing field \"peak_flops_per_second\"");
  }
  for (std::string_view key : kNumberFields) {
    if (!root.contains(std::string(key))) {
      return InvalidArgument(AsAbsl(origin), ": missing field \"", AsAbsl(key), "\"");
    }
  }
  return spec;
}

std::string DeviceSpecToJson(const DeviceSpec& spec) {
  Json json;
  json["name"] = spec.name;
  if (!spec.description.empty()) json["description"] = spec.description;
  json["peak_flops_per_second"] = Json::object();
  for (const auto& [key, peak] : spec.peak_flops_per_second) {
    json["peak_flops_per_second"][key] = peak;
  }
  for (std::string_view key : kNumberFields) {
    json[std::string(key)] = *NumberField(const_cast<DeviceSpec&>(spec), key);
  }
  if (!spec.sources.empty()) {
    json["sources"] = Json::object();
    for (const auto& [key, note] : spec.sources) json["sources"][key] = note;
  }
  return json.dump(2) + "\n";
}

std::vector<std::string> BuiltinDeviceNames() {
  std::vector<std::string> names;
  for (int i = 0; i < device_internal::kNumEmbeddedSpecs; ++i) {
    names.push_back(device_internal::kEmbeddedSpecs[i].name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> KnownDeviceNames() {
  std::vector<std::string> names = BuiltinDeviceNames();
  names.push_back("host");
  std::sort(names.begin(), names.end());
  return names;
}

std::string HostSpecPath() {
  if (const char* path = std::getenv("XLITE_HOST_SPEC"); path != nullptr && *path != '\0') {
    return path;
  }
  const char* home = std::getenv("HOME");
  return absl::StrCat(home != nullptr ? home : ".", "/.cache/xlite/host.json");
}

absl::StatusOr<DeviceSpec> LoadDeviceSpec(std::string_view name_or_path) {
  const bool is_path =
      absl::StrContains(AsAbsl(name_or_path), "/") || absl::EndsWith(AsAbsl(name_or_path), ".json");
  if (is_path) {
    const std::string path(name_or_path);
    XLITE_ASSIGN_OR_RETURN(std::string text, ReadBinaryFile(path));
    return ParseDeviceSpec(text, path);
  }
  // Names are case-insensitive (`H100`, `TPU-v5e`), as users write them.
  const std::string name = absl::AsciiStrToLower(AsAbsl(name_or_path));
  if (name == "host") {
    const std::string path = HostSpecPath();
    absl::StatusOr<std::string> text = ReadBinaryFile(path);
    if (!text.ok()) {
      return InvalidArgument("no host spec at ", path, ": run `xlite calibrate --output ", path,
                             "` first (or set XLITE_HOST_SPEC)");
    }
    return ParseDeviceSpec(*text, path);
  }
  for (int i = 0; i < device_internal::kNumEmbeddedSpecs; ++i) {
    const device_internal::EmbeddedSpec& embedded = device_internal::kEmbeddedSpecs[i];
    if (name == embedded.name) {
      return ParseDeviceSpec(embedded.json, absl::StrCat("built-in device ", embedded.name));
    }
  }
  return InvalidArgument("unknown device \"", AsAbsl(name_or_path),
                         "\" (known: ", absl::StrJoin(KnownDeviceNames(), ", "),
                         "; or a path to a JSON spec)");
}

std::string_view BoundName(Bound bound) {
  switch (bound) {
    case Bound::kCompute:
      return "compute";
    case Bound::kMemory:
      return "memory";
    case Bound::kInterconnect:
      return "interconnect";
    case Bound::kNone:
      break;
  }
  return "none";
}

RooflineTime Roofline(const Cost& cost, const DeviceSpec& device) {
  RooflineTime time;
  for (const TypedFlops& typed : cost.flops_by_type) {
    const double peak = device.PeakFlops(typed.type);
    if (peak > 0) time.compute_seconds += typed.flops / peak;
  }
  if (device.transcendentals_per_second > 0) {
    time.compute_seconds += cost.transcendentals / device.transcendentals_per_second;
  }
  if (device.memory_bandwidth_bytes_per_second > 0) {
    time.memory_seconds = cost.bytes_accessed / device.memory_bandwidth_bytes_per_second;
  }
  if (cost.collectives > 0) {
    time.interconnect_seconds = cost.collectives * device.interconnect_latency_seconds;
    if (device.interconnect_bandwidth_bytes_per_second > 0) {
      time.interconnect_seconds +=
          cost.collective_bytes / device.interconnect_bandwidth_bytes_per_second;
    }
  }
  time.seconds = std::max({time.compute_seconds, time.memory_seconds, time.interconnect_seconds});
  if (time.seconds > 0) {
    time.bound = time.seconds == time.compute_seconds  ? Bound::kCompute
                 : time.seconds == time.memory_seconds ? Bound::kMemory
                                                       : Bound::kInterconnect;
  }
  return time;
}

}  // namespace xlite
