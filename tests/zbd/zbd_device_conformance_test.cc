// The device conformance suite every emulated device passes
// (tests/device/conformance.h), run against the Linux zoned block device
// named by $ZONEKV_ZBD_DEVICE (e.g. /dev/nvme0n1 in the QEMU guest of
// scripts/qemu_test.sh). Without the variable the suite has no instance.
// The suite resets the first zones of that device.
#include <cstdlib>
#include <string>
#include <vector>

#include "conformance.h"
#include "zonekv/zbd_device.h"

namespace zonekv {
namespace {

std::vector<ConformanceTarget> ZbdTargets() {
  const char* path = std::getenv("ZONEKV_ZBD_DEVICE");
  if (path == nullptr) return {};
  const std::string device = path;
  return {ConformanceTarget{
      "zbd", [device](std::unique_ptr<ZonedDevice>* d) { return OpenZbdDevice(device, d); }, {true, true}}};
}

INSTANTIATE_TEST_SUITE_P(Zbd, DeviceConformanceTest, ::testing::ValuesIn(ZbdTargets()), ConformanceTargetName);

}  // namespace

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DeviceConformanceTest);

}  // namespace zonekv
