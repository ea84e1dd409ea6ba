// Helpers shared by the device tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "zonekv/emulated_device.h"

namespace zonekv {
namespace test {

// A small RAM device: `zones` zones of 64 KiB, capacity 48 KiB, 4 KiB blocks.
inline EmulatedDeviceOptions SmallOptions(uint32_t zones = 8, uint32_t max_open = 0, uint32_t max_active = 0) {
  EmulatedDeviceOptions o;
  o.geometry.block_size = 4096;
  o.geometry.zone_size_bytes = 64 << 10;
  o.geometry.zone_capacity_bytes = 48 << 10;
  o.geometry.nr_zones = zones;
  o.geometry.max_open_zones = max_open;
  o.geometry.max_active_zones = max_active;
  return o;
}

inline std::unique_ptr<EmulatedDevice> NewRam(const EmulatedDeviceOptions& o) {
  std::unique_ptr<EmulatedDevice> d;
  Status s = EmulatedDevice::OpenRam(o, &d);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return d;
}

// `n` bytes whose content depends on `seed` and the position.
inline std::vector<char> Pattern(size_t n, uint64_t seed) {
  std::vector<char> v(n);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v[i] = static_cast<char>(x);
  }
  return v;
}

inline ZoneInfo Zone(ZonedDevice* d, uint32_t z) {
  ZoneInfo info;
  Status s = d->ReportZone(z, &info);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return info;
}

// A fresh path under the test temp dir; removes any leftover file.
inline std::string TempPath(const std::string& name) {
  std::string p = ::testing::TempDir() + "zonekv_device_" + name + "_" + std::to_string(getpid());
  std::remove(p.c_str());
  return p;
}

}  // namespace test
}  // namespace zonekv
