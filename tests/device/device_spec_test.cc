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

TEST(DeviceSpec, ProfilesSetFinishAndKeysOverrideThem) {
  EmulatedDeviceOptions o;
  ASSERT_TRUE(ParseEmulatedOptions("wb_units=4,timing=zn540,zones=2,zone_size=2M,write_mb_s=600,jitter=0", false, &o)
                  .ok());
  EXPECT_EQ(o.timing.profile, "zn540");
  EXPECT_EQ(o.finish, FinishModel::kPad);  // the ZN540 pads on finish
  EXPECT_EQ(o.timing.wb_units, 4u);
  EXPECT_EQ(o.timing.write_mb_s, 600);
  EXPECT_FALSE(o.timing.jitter);
  EXPECT_EQ(o.timing.program_us, 561);  // from the profile
  EmulatedDeviceOptions p;
  ASSERT_TRUE(ParseEmulatedOptions("timing=confznspp,finish=free,partial_reset=0,erase_block=8M", true, &p).ok());
  EXPECT_EQ(p.finish, FinishModel::kFree);
  EXPECT_FALSE(p.timing.partial_reset);
  EXPECT_EQ(p.timing.erase_block_bytes, 8u << 20);
  EmulatedDeviceOptions q;
  ASSERT_TRUE(ParseEmulatedOptions("timing=cosmos", true, &q).ok());
  EXPECT_EQ(q.finish, FinishModel::kFree);
  EXPECT_TRUE(q.timing.early_completion);
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
  ExpectSpecError("ram:zones=2,zone_size=64K,timing=fast", C::kInvalidArgument,
                  "'timing': unknown timing profile 'fast' (known: none, zn540, confzns, confznspp, cosmos)");
  ExpectSpecError("ram:zones=2,zone_size=64K,finish=maybe", C::kInvalidArgument, "'finish'");
  ExpectSpecError("ram:zones=2,zone_size=64K,read_us=3", C::kInvalidArgument, "'read_us' needs a timing profile");
  ExpectSpecError("ram:zones=2,zone_size=64K,time_scale=0.5", C::kInvalidArgument, "needs a timing profile");
  ExpectSpecError("ram:zones=2,zone_size=64K,timing=zn540,erase_us=3", C::kInvalidArgument, "measured latency curve");
  ExpectSpecError("ram:zones=2,zone_size=64K,timing=cosmos,jitter=2", C::kInvalidArgument, "'jitter'");
  ExpectSpecError("ram:zones=2,zone_size=64K,timing=cosmos,wb_units=0", C::kInvalidArgument, "wb_units");
  ExpectSpecError("ram:zones=2,zone_size=64K,timing=cosmos,unit_size=20K", C::kInvalidArgument, "unit_size");
  ExpectSpecError("ram:zones=2,zone_size=64K,timing=confzns,planes=2", C::kInvalidArgument, "'planes' is gone");
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

// Found by fuzz/device_spec_fuzz: a timing profile with channels=4222222224
// made OpenDevice allocate a busy calendar per die (about 100 GB) and abort.
TEST(DeviceSpec, FuzzHugeDieCountIsAnError) {
  ExpectSpecError("meta:zones=4,zone_size=1M,timing=confzns,erase_us=100,partial_reset=1,channels=4222222224,"
                  "time_scale=5.5",
                  Status::Code::kInvalidArgument, "exceeds 65536 dies");
  ExpectSpecError("ram:zones=4,zone_size=1M,timing=zn540,dies=70000,channels=1,zone_channels=1",
                  Status::Code::kInvalidArgument, "exceeds 65536 dies");
}

}  // namespace
}  // namespace zonekv
