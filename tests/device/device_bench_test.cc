// The device bench in modelled time: every figure a source publishes for a
// profile comes out within 10% of it. Deterministic (the model is seeded
// and never reads the clock).
#include "zonekv/device_bench.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace zonekv {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

std::vector<BenchMeasure> Bench(const std::string& profile, const DeviceGeometry& g) {
  TimingOptions t;
  FinishModel f;
  EXPECT_TRUE(TimingOptions::Profile(profile, &t, &f).ok());
  std::vector<BenchMeasure> out;
  Status s = ModelDeviceBench(t, f, g, BenchOptions(), &out);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

DeviceGeometry Geometry(uint32_t zones, uint64_t zone_size, uint64_t zone_cap, uint32_t max_active) {
  DeviceGeometry g;
  g.nr_zones = zones;
  g.zone_size_bytes = zone_size;
  g.zone_capacity_bytes = zone_cap;
  g.max_open_zones = g.max_active_zones = max_active;
  return g;
}

// Checks every anchored figure and returns the names of those anchored.
std::set<std::string> ExpectWithinTenPercent(const std::vector<BenchMeasure>& measures) {
  std::set<std::string> anchored;
  for (const BenchMeasure& m : measures) {
    EXPECT_TRUE(std::isfinite(m.value) && m.value >= 0) << m.name << " = " << m.value;
    if (!m.has_anchor) continue;
    anchored.insert(m.name);
    EXPECT_NEAR(m.ratio(), 1.0, 0.10) << m.name << ": " << m.value << " " << m.unit << " against " << m.anchor
                                      << " (" << m.source << ")";
  }
  return anchored;
}

TEST(DeviceBench, Zn540MatchesItsMeasuredAnchors) {
  // The ZN540's real geometry: 2 GiB zones of 1077 MiB, 14 open/active.
  auto measures = Bench("zn540", Geometry(16, 2048 * kMiB, 1077 * kMiB, 14));
  std::set<std::string> anchored = ExpectWithinTenPercent(measures);
  for (const char* name : {"write_128k_1zone", "write_16k_4zones", "write_4k_qd1_1zone", "write_4k_qd1_2zones",
                           "write_4k_qd1_4zones", "write_4k_qd1_8zones", "write_4k_lat", "write_16k_lat",
                           "append_4k_lat", "randread_4k_qd1_lat", "reset_full", "reset_half", "finish_empty",
                           "finish_half"}) {
    EXPECT_TRUE(anchored.count(name)) << name << " has no anchor";
  }
}

TEST(DeviceBench, Zn540ZoneLatencyAnchorsNeedItsZoneCapacity) {
  auto measures = Bench("zn540", Geometry(16, 64 * kMiB, 64 * kMiB, 14));
  for (const BenchMeasure& m : measures) {
    if (m.name == "reset_full" || m.name == "finish_half") {
      EXPECT_FALSE(m.has_anchor) << m.name;
      EXPECT_NE(m.source.find("1077 MiB zones only"), std::string::npos) << m.source;
    }
  }
}

TEST(DeviceBench, CosmosMatchesTable1OfPaper001) {
  // Paper 001's prototype: 40 zones of 512 MiB.
  auto measures = Bench("cosmos", Geometry(40, 512 * kMiB, 512 * kMiB, 0));
  EXPECT_EQ(ExpectWithinTenPercent(measures),
            (std::set<std::string>{"write_16k_4zones", "read_seq_16k_qd4", "randread_16k_qd4"}));
}

TEST(DeviceBench, ConfZnsResetIsOneBlockErase) {
  auto measures = Bench("confzns", Geometry(64, 64 * kMiB, 64 * kMiB, 0));
  EXPECT_EQ(ExpectWithinTenPercent(measures), (std::set<std::string>{"reset_full", "reset_half"}));
}

TEST(DeviceBench, UnpublishedFiguresHaveNoAnchor) {
  auto measures = Bench("confznspp", Geometry(64, 256 * kMiB, 256 * kMiB, 32));
  EXPECT_TRUE(ExpectWithinTenPercent(measures).empty());
  for (const BenchMeasure& m : measures) {
    EXPECT_NE(m.ToJson().Dump().find("\"anchor\":null"), std::string::npos) << m.ToJson().Dump();
    EXPECT_NE(m.ToJson().Dump().find("\"ratio\":null"), std::string::npos) << m.ToJson().Dump();
  }
}

TEST(DeviceBench, TooSmallADeviceIsAnError) {
  TimingOptions t;
  FinishModel f;
  ASSERT_TRUE(TimingOptions::Profile("zn540", &t, &f).ok());
  std::vector<BenchMeasure> out;
  Status s = ModelDeviceBench(t, f, Geometry(8, 64 * kMiB, 64 * kMiB, 0), BenchOptions(), &out);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("needs 14 zones"), std::string::npos) << s.ToString();
  ASSERT_TRUE(TimingOptions::Profile("none", &t, &f).ok());
  s = ModelDeviceBench(t, f, Geometry(16, 64 * kMiB, 64 * kMiB, 0), BenchOptions(), &out);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
}

}  // namespace
}  // namespace zonekv
