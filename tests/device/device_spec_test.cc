#include <gtest/gtest.h>

#include "zonekv/emulated_device.h"

namespace zonekv {
namespace {

TEST(DeviceSpec, RamWithAllGeometryKeys) {
  std::unique_ptr<ZonedDevice> d;
  Status s = OpenDevice(
      "ram:zones=4,zone_size=1M,zone_cap=512K,block_size=4096,max_open=2,max_active=3,auto_close=0", &d);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const DeviceGeometry& g = d->geometry();
  EXPECT_EQ(g.nr_zones, 4u);
  EXPECT_EQ(g.zone_size_bytes, 1u << 20);
  EXPECT_EQ(g.zone_capacity_bytes, 512u << 10);
  EXPECT_EQ(g.max_open_zones, 2u);
  EXPECT_EQ(g.max_active_zones, 3u);
  EXPECT_EQ(d->name(), "emulated:ram");
}

TEST(DeviceSpec, DefaultsCapacityToZoneSize) {
  std::unique_ptr<ZonedDevice> d;
  ASSERT_TRUE(OpenDevice("ram:zones=2,zone_size=64K", &d).ok());
  EXPECT_EQ(d->geometry().zone_capacity_bytes, 64u << 10);
  EXPECT_EQ(d->geometry().max_open_zones, 0u);
}

TEST(DeviceSpec, MaxActiveAloneAlsoLimitsOpen) {
  std::unique_ptr<ZonedDevice> d;
  ASSERT_TRUE(OpenDevice("meta:zones=2,zone_size=64K,max_active=2", &d).ok());
  EXPECT_EQ(d->geometry().max_open_zones, 2u);
  EXPECT_EQ(d->name(), "emulated:meta");
}

TEST(DeviceSpec, TimingPresetAndOverrides) {
  EmulatedDeviceOptions o;
  ASSERT_TRUE(ParseEmulatedOptions("read_us=10,zones=2,zone_size=1M,timing=confzns,time_scale=0.5,finish=pad", false,
                                   &o).ok());
  EXPECT_TRUE(o.timing.enabled);
  EXPECT_EQ(o.timing.read_us, 10);
  EXPECT_EQ(o.timing.program_us, 450);
  EXPECT_EQ(o.timing.channels, 8u);
  EXPECT_EQ(o.timing.dies, 2u);
  EXPECT_EQ(o.timing.page_size_bytes, 16384u);
  EXPECT_EQ(o.timing.time_scale, 0.5);
  EXPECT_EQ(o.finish, FinishModel::kPad);
}

void ExpectSpecError(const std::string& spec, Status::Code code, const std::string& needle) {
  std::unique_ptr<ZonedDevice> d;
  Status s = OpenDevice(spec, &d);
  EXPECT_TRUE(s.Is(code)) << spec << " -> " << s.ToString();
  EXPECT_NE(s.message().find(needle), std::string::npos) << spec << " -> " << s.ToString();
  EXPECT_EQ(d, nullptr);
}

TEST(DeviceSpec, BadSpecsNameTheProblem) {
  using C = Status::Code;
  ExpectSpecError("ram", C::kInvalidArgument, "no kind");
  ExpectSpecError("disk:zones=1", C::kInvalidArgument, "unknown kind 'disk'");
  ExpectSpecError("ram:zone_size=64K", C::kInvalidArgument, "'zones' is required");
  ExpectSpecError("ram:zones=2", C::kInvalidArgument, "'zone_size' is required");
  ExpectSpecError("ram:zones=2,zone_size=64K,colour=red", C::kInvalidArgument, "unknown device spec key 'colour'");
  ExpectSpecError("ram:zones=two,zone_size=64K", C::kInvalidArgument, "'zones'");
  ExpectSpecError("ram:zones=2,zone_size=64Q", C::kInvalidArgument, "'zone_size'");
  ExpectSpecError("ram:zones=2,zone_size=64K,zones=3", C::kInvalidArgument, "given twice");
  ExpectSpecError("ram:zones=2,zone_size=64K,auto_close=yes", C::kInvalidArgument, "'auto_close'");
  ExpectSpecError("ram:zones=2,zone_size=64K,timing=fast", C::kInvalidArgument, "'timing'");
  ExpectSpecError("ram:zones=2,zone_size=64K,finish=maybe", C::kInvalidArgument, "'finish'");
  ExpectSpecError("ram:zones=2,zone_size=64K,read_us=3", C::kInvalidArgument, "need timing=confzns");
  ExpectSpecError("ram:zones=2,zone_size=64K,novalue", C::kInvalidArgument, "not key=value");
  ExpectSpecError("ram:zones=2,zone_size=64K,timing=confzns,zone_channels=3", C::kInvalidArgument, "zone_channels");
  ExpectSpecError("ram:zones=2,zone_size=64K,timing=confzns,page_size=1000", C::kInvalidArgument, "page_size");
  ExpectSpecError("ram:zones=2,zone_size=64K,zone_cap=128K", C::kInvalidArgument, "exceeds zone_size");
  ExpectSpecError("ram:zones=0,zone_size=64K", C::kInvalidArgument, "zero zones");
  ExpectSpecError("file:", C::kInvalidArgument, "names no image");
  ExpectSpecError("file:/nonexistent/zonekv.img", C::kNotFound, "does not exist");
  ExpectSpecError("file:/tmp/x.img,zones=3", C::kInvalidArgument, "fixed when an image is created");
  ExpectSpecError("zbd:", C::kInvalidArgument, "names no device");
  ExpectSpecError("zbd:/nonexistent/nvme9n9", C::kNotFound, "does not exist");
  ExpectSpecError("zbd:/dev/null", C::kInvalidArgument, "not a zoned block device");
}

}  // namespace
}  // namespace zonekv
