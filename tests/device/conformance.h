// A conformance suite for any ZonedDevice: the ZNS semantics promised by
// include/zonekv/zoned_device.h, checked only through that interface.
//
// To run it against a device, link the `device_conformance` object library
// into a gtest binary and instantiate the suite with factories:
//
//   INSTANTIATE_TEST_SUITE_P(Zbd, DeviceConformanceTest,
//       ::testing::Values(ConformanceTarget{"nvme0n1", OpenMyDevice, {true, false}}),
//       ConformanceTargetName);
//
// The suite only uses the first few zones and resets each of them before
// use, so it may run on a real device that holds nothing of value. The
// device needs at least 4 zones.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "zonekv/zoned_device.h"

namespace zonekv {

struct ConformanceTarget {
  std::string name;  // letters, digits and underscores (used in test names)
  // Opens the device under test; called once per test.
  std::function<Status(std::unique_ptr<ZonedDevice>*)> open;
  struct Capabilities {
    bool stores_data = true;   // false for metadata-only devices (reads return zeros)
    bool reports_wear = true;  // ZoneInfo::reset_count counts resets
  } caps;
};

void PrintTo(const ConformanceTarget& target, std::ostream* os);
std::string ConformanceTargetName(const ::testing::TestParamInfo<ConformanceTarget>& info);

class DeviceConformanceTest : public ::testing::TestWithParam<ConformanceTarget> {
 protected:
  void SetUp() override;

  const DeviceGeometry& g() const { return dev_->geometry(); }
  // Writes `blocks` blocks of pattern `seed` at the write pointer of `zone`.
  Status WriteBlocks(uint32_t zone, uint64_t blocks, uint64_t seed);
  ZoneInfo Info(uint32_t zone);
  std::vector<char> Data(uint64_t n_bytes, uint64_t seed) const;

  std::unique_ptr<ZonedDevice> dev_;
  uint32_t zones_used_ = 0;  // zones [0, zones_used_) are reset in SetUp
};

}  // namespace zonekv
