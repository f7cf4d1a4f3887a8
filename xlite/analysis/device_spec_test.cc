// Device spec tests: the built-in specs load, bad specs are refused with a
// message naming the problem, and the roofline picks the right bound.
#include "xlite/analysis/device_spec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xlite {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kToySpec = R"({
  "name": "toy",
  "peak_flops_per_second": {"f32": 100, "bf16": 400},
  "transcendentals_per_second": 10,
  "memory_bandwidth_bytes_per_second": 50,
  "memory_bytes": 1000,
  "interconnect_bandwidth_bytes_per_second": 20,
  "interconnect_latency_seconds": 0.5
})";

TEST(DeviceSpec, BuiltinSpecsLoadAndNoteTheirSources) {
  std::vector<std::string> names = BuiltinDeviceNames();
  EXPECT_THAT(names, ::testing::ElementsAre("h100", "h200", "tpu-v5e", "tpu-v5p"));
  for (const std::string& name : names) {
    absl::StatusOr<DeviceSpec> spec = LoadDeviceSpec(name);
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_EQ(spec->name, name);
    EXPECT_GT(spec->PeakFlops(PrimitiveType::BF16), 0);
    EXPECT_GT(spec->memory_bandwidth_bytes_per_second, 0);
    // Every figure says where it comes from.
    for (const char* field : {"peak_flops_per_second", "memory_bandwidth_bytes_per_second",
                              "memory_bytes", "interconnect_bandwidth_bytes_per_second",
                              "interconnect_latency_seconds", "transcendentals_per_second"}) {
      bool noted = false;
      for (const auto& [key, note] : spec->sources) noted |= key == field && !note.empty();
      EXPECT_TRUE(noted) << name << " has no source for " << field;
    }
  }
  absl::StatusOr<DeviceSpec> h200 = LoadDeviceSpec("h200");
  ASSERT_TRUE(h200.ok());
  EXPECT_EQ(h200->memory_bandwidth_bytes_per_second, 4.8e12);
  EXPECT_EQ(h200->PeakFlops(PrimitiveType::F8E4M3FN), 1979e12);
}

TEST(DeviceSpec, PeakFallsBackToWiderClasses) {
  absl::StatusOr<DeviceSpec> spec = ParseDeviceSpec(kToySpec, "toy");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->PeakFlops(PrimitiveType::F32), 100);
  EXPECT_EQ(spec->PeakFlops(PrimitiveType::BF16), 400);
  EXPECT_EQ(spec->PeakFlops(PrimitiveType::F16), 400);     // f16 -> bf16
  EXPECT_EQ(spec->PeakFlops(PrimitiveType::F8E5M2), 400);  // f8 -> bf16
  EXPECT_EQ(spec->PeakFlops(PrimitiveType::S8), 100);      // int8 -> int32 -> f32
  EXPECT_EQ(spec->PeakFlops(PrimitiveType::C64), 100);     // complex -> component
}

TEST(DeviceSpec, RoundTripsThroughJson) {
  absl::StatusOr<DeviceSpec> spec = ParseDeviceSpec(kToySpec, "toy");
  ASSERT_TRUE(spec.ok());
  absl::StatusOr<DeviceSpec> again = ParseDeviceSpec(DeviceSpecToJson(*spec), "again");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->peak_flops_per_second, spec->peak_flops_per_second);
  EXPECT_EQ(again->interconnect_latency_seconds, 0.5);
}

TEST(DeviceSpec, BadSpecsAreRefused) {
  EXPECT_THAT(ParseDeviceSpec("{", "f.json").status().message(),
              HasSubstr("f.json: not valid JSON"));
  EXPECT_THAT(ParseDeviceSpec("[]", "f").status().message(), HasSubstr("JSON object"));
  EXPECT_THAT(ParseDeviceSpec(R"({"name": "x", "peak_flops_per_second": {"bf16": 1}})", "f")
                  .status()
                  .message(),
              HasSubstr("needs an \"f32\" entry"));
  EXPECT_THAT(ParseDeviceSpec(R"({"name": "x", "peak_flops_per_second": {"f32": 1}})", "f")
                  .status()
                  .message(),
              HasSubstr("missing field \"transcendentals_per_second\""));
  EXPECT_THAT(ParseDeviceSpec(R"({"name": "x", "peak_flops_per_second": {"q7": 1}})", "f")
                  .status()
                  .message(),
              HasSubstr("unknown element type class \"q7\""));
  EXPECT_THAT(ParseDeviceSpec(R"({"name": "x", "memory_bytes": -1})", "f").status().message(),
              HasSubstr("memory_bytes must be a number from 1 to 1e+24 (got -1)"));
  // Absurd figures would give inf, NaN or 1e300-second estimates.
  EXPECT_THAT(ParseDeviceSpec(R"({"name": "x", "memory_bandwidth_bytes_per_second": 1e-300})", "f")
                  .status()
                  .message(),
              HasSubstr("memory_bandwidth_bytes_per_second must be a number from 1 to 1e+24"));
  EXPECT_THAT(ParseDeviceSpec(R"({"name": "x", "peak_flops_per_second": {"f32": 1e308}})", "f")
                  .status()
                  .message(),
              HasSubstr("peak_flops_per_second.f32 must be a number from 1 to 1e+24"));
  EXPECT_THAT(ParseDeviceSpec(R"({"name": "x", "interconnect_latency_seconds": 1e9})", "f")
                  .status()
                  .message(),
              HasSubstr("interconnect_latency_seconds must be a number from 0 to 3600 (seconds)"));
  EXPECT_THAT(ParseDeviceSpec(R"({"nmae": "x"})", "f").status().message(),
              HasSubstr("unknown field \"nmae\""));
}

TEST(DeviceSpec, NamesAreCaseInsensitive) {
  absl::StatusOr<DeviceSpec> upper = LoadDeviceSpec("H100");
  ASSERT_TRUE(upper.ok()) << upper.status().message();
  absl::StatusOr<DeviceSpec> lower = LoadDeviceSpec("h100");
  ASSERT_TRUE(lower.ok());
  EXPECT_EQ(DeviceSpecToJson(*upper), DeviceSpecToJson(*lower));
  EXPECT_TRUE(LoadDeviceSpec("TPU-v5e").ok());
}

TEST(DeviceSpec, UnknownDeviceListsTheKnownOnes) {
  absl::Status status = LoadDeviceSpec("h300").status();
  EXPECT_THAT(status.message(), HasSubstr("unknown device \"h300\""));
  EXPECT_THAT(status.message(), HasSubstr("h100, h200, host, tpu-v5e, tpu-v5p"));
  EXPECT_THAT(LoadDeviceSpec("/no/such/spec.json").status().message(), HasSubstr("cannot open"));
}

TEST(Roofline, ComputeMemoryAndInterconnectBounds) {
  absl::StatusOr<DeviceSpec> spec = ParseDeviceSpec(kToySpec, "toy");
  ASSERT_TRUE(spec.ok());
  Cost compute;
  compute.AddFlops(PrimitiveType::F32, 1000);  // 10 s at 100 flop/s
  compute.AddFlops(PrimitiveType::BF16, 800);  // + 2 s at 400
  compute.transcendentals = 30;                // + 3 s at 10
  compute.bytes_accessed = 500;                // 10 s at 50 B/s
  RooflineTime t = Roofline(compute, *spec);
  EXPECT_DOUBLE_EQ(t.compute_seconds, 15);
  EXPECT_DOUBLE_EQ(t.memory_seconds, 10);
  EXPECT_DOUBLE_EQ(t.seconds, 15);
  EXPECT_EQ(t.bound, Bound::kCompute);

  Cost memory;
  memory.AddFlops(PrimitiveType::F32, 100);  // 1 s
  memory.bytes_accessed = 100;               // 2 s
  EXPECT_EQ(Roofline(memory, *spec).bound, Bound::kMemory);
  EXPECT_DOUBLE_EQ(Roofline(memory, *spec).seconds, 2);

  Cost collective;
  collective.bytes_accessed = 50;    // 1 s
  collective.collective_bytes = 40;  // 2 s + 0.5 s latency
  collective.collectives = 1;
  EXPECT_EQ(Roofline(collective, *spec).bound, Bound::kInterconnect);
  EXPECT_DOUBLE_EQ(Roofline(collective, *spec).seconds, 2.5);

  EXPECT_EQ(Roofline(Cost(), *spec).bound, Bound::kNone);
}

}  // namespace
}  // namespace xlite
