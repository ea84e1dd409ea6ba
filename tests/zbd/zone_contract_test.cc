// The ZonedDevice contract (zoned_device.h) where a Linux zoned block device
// departs from it most easily, checked the same way against the emulator and
// a real device. Complements the general DeviceConformanceTest
// (tests/device/conformance.h; zbd_device_conformance_test.cc): writes that
// the kernel would split at a zone boundary, rejected commands that must
// change nothing (QEMU auto-closes a zone before failing an open), unwritten
// zones closed back to empty, unaligned caller buffers, no-op commands and
// the counters, concurrent appends to one zone.
//
// Devices under test (the test parameter):
//   emulated-cap64   RAM emulator with QEMU's geometry: 32 zones of 64 MiB,
//                    capacity = zone size, max open/active 14, 4 KiB blocks
//   emulated-cap48   the same with a 48 MiB zone capacity
//   emulated-open4   capacity 48 MiB, max open 4, max active 8 (auto-close
//                    reachable), as scripts/qemu_test.sh's open4 namespace
//   zbd              the device named by $ZONEKV_ZBD_DEVICE (e.g. /dev/nvme0n1)
//                    through OpenZbdDevice(); skipped when the variable is
//                    unset. EVERY ZONE OF THAT DEVICE IS RESET by each test.
//
// Every test starts from a device whose zones are all empty and asserts only
// what the contract promises, adapting to the device's geometry.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "zonekv/emulated_device.h"
#include "zonekv/zbd_device.h"

namespace zonekv {
namespace {

using Code = Status::Code;

const char* ZbdPath() { return std::getenv("ZONEKV_ZBD_DEVICE"); }

Status OpenUnderTest(const std::string& kind, std::unique_ptr<ZonedDevice>* dev) {
  if (kind == "zbd") {
    ZONEKV_RETURN_IF_ERROR(OpenZbdDevice(ZbdPath(), dev));
    for (uint32_t z = 0; z < (*dev)->geometry().nr_zones; z++) ZONEKV_RETURN_IF_ERROR((*dev)->ResetZone(z));
    return Status::OK();
  }
  EmulatedDeviceOptions o;
  o.geometry.block_size = 4096;
  o.geometry.zone_size_bytes = 64ull << 20;
  o.geometry.zone_capacity_bytes = kind == "emulated-cap64" ? 64ull << 20 : 48ull << 20;
  o.geometry.nr_zones = 32;
  o.geometry.max_open_zones = kind == "emulated-open4" ? 4 : 14;
  o.geometry.max_active_zones = kind == "emulated-open4" ? 8 : 14;
  std::unique_ptr<EmulatedDevice> e;
  ZONEKV_RETURN_IF_ERROR(EmulatedDevice::OpenRam(o, &e));
  *dev = std::move(e);
  return Status::OK();
}

// `n` bytes that depend on `seed` and the position.
std::vector<char> Pattern(size_t n, uint64_t seed) {
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

class ZoneContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "zbd" && ZbdPath() == nullptr) {
      GTEST_SKIP() << "set ZONEKV_ZBD_DEVICE=/dev/nvme0n1 to run against a zoned block device";
    }
    Status s = OpenUnderTest(GetParam(), &dev_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    g_ = dev_->geometry();
    bs_ = g_.block_size;
  }

  ZoneInfo Zone(uint32_t z) {
    ZoneInfo info;
    Status s = dev_->ReportZone(z, &info);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return info;
  }
  std::vector<ZoneInfo> All() {
    std::vector<ZoneInfo> zones;
    Status s = dev_->ReportZones(0, g_.nr_zones, &zones);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return zones;
  }
  uint64_t Start(uint32_t z) const { return uint64_t{z} * g_.zone_size_bytes; }
  // Writes `blocks` blocks of pattern `seed` at zone z's write pointer.
  void Fill(uint32_t z, uint64_t bytes, uint64_t seed = 1) {
    const uint64_t chunk = 4ull << 20;
    for (uint64_t done = 0; done < bytes;) {
      const uint64_t n = std::min(chunk, bytes - done);
      std::vector<char> data = Pattern(n, seed + done);
      Status s = dev_->Write(Zone(z).wp_bytes, data.data(), n);
      ASSERT_TRUE(s.ok()) << s.ToString();
      done += n;
    }
  }
  // Every zone's state and write pointer, to check a rejected command changed nothing.
  std::vector<std::pair<ZoneState, uint64_t>> Snapshot() {
    std::vector<std::pair<ZoneState, uint64_t>> v;
    for (const ZoneInfo& z : All()) v.emplace_back(z.state, z.wp_bytes);
    return v;
  }

  std::unique_ptr<ZonedDevice> dev_;
  DeviceGeometry g_;
  uint64_t bs_ = 0;
};

TEST_P(ZoneContractTest, WriteOpensZoneImplicitlyAndReadsBack) {
  std::vector<char> data = Pattern(3 * bs_ + 1, 7);
  // An unaligned source buffer must work as well as an aligned one.
  ASSERT_TRUE(dev_->Write(Start(1), data.data() + 1, 3 * bs_).ok());
  ZoneInfo z = Zone(1);
  EXPECT_EQ(z.state, ZoneState::kImplicitOpen);
  EXPECT_EQ(z.wp_bytes, Start(1) + 3 * bs_);
  std::vector<char> back(3 * bs_ + 1);
  ASSERT_TRUE(dev_->Read(Start(1), 3 * bs_, back.data() + 1).ok());
  EXPECT_EQ(0, std::memcmp(back.data() + 1, data.data() + 1, 3 * bs_));
  // Past the write pointer but within capacity: zeros.
  std::vector<char> past(2 * bs_, 'x');
  ASSERT_TRUE(dev_->Read(Start(1) + 2 * bs_, 2 * bs_, past.data()).ok());
  EXPECT_EQ(0, std::memcmp(past.data(), data.data() + 1 + 2 * bs_, bs_));
  EXPECT_TRUE(std::all_of(past.begin() + bs_, past.end(), [](char c) { return c == 0; }));
  DeviceCounters c = dev_->counters();
  EXPECT_EQ(c.host_write_bytes, 3 * bs_);
  EXPECT_EQ(c.host_read_bytes, 5 * bs_);
}

TEST_P(ZoneContractTest, WriteNotAtWritePointerIsInvalidWrite) {
  std::vector<char> data = Pattern(bs_, 1);
  auto before = Snapshot();
  Status s = dev_->Write(Start(2) + bs_, data.data(), bs_);
  EXPECT_TRUE(s.Is(Code::kZoneInvalidWrite)) << s.ToString();
  EXPECT_EQ(Snapshot(), before);
  ASSERT_TRUE(dev_->Write(Start(2), data.data(), bs_).ok());
  s = dev_->Write(Start(2), data.data(), bs_);
  EXPECT_TRUE(s.Is(Code::kZoneInvalidWrite)) << s.ToString();
  EXPECT_EQ(Zone(2).wp_bytes, Start(2) + bs_);
}

TEST_P(ZoneContractTest, MisalignedOrOutOfRangeIsInvalidArgument) {
  std::vector<char> data = Pattern(2 * bs_, 1);
  auto before = Snapshot();
  EXPECT_TRUE(dev_->Write(Start(0) + 512, data.data(), bs_).Is(Code::kInvalidArgument));
  EXPECT_TRUE(dev_->Write(Start(0), data.data(), bs_ + 512).Is(Code::kInvalidArgument));
  EXPECT_TRUE(dev_->Write(Start(0), data.data(), 0).Is(Code::kInvalidArgument));
  EXPECT_TRUE(dev_->Write(g_.device_bytes(), data.data(), bs_).Is(Code::kInvalidArgument));
  EXPECT_TRUE(dev_->Read(Start(0) + 512, bs_, data.data()).Is(Code::kInvalidArgument));
  EXPECT_TRUE(dev_->Read(g_.device_bytes() - bs_, 2 * bs_, data.data()).Is(Code::kInvalidArgument));
  uint64_t at = 0;
  EXPECT_TRUE(dev_->Append(0, data.data(), bs_ - 512, &at).Is(Code::kInvalidArgument));
  EXPECT_TRUE(dev_->Append(g_.nr_zones, data.data(), bs_, &at).Is(Code::kInvalidArgument));
  EXPECT_TRUE(dev_->OpenZone(g_.nr_zones).Is(Code::kInvalidArgument));
  EXPECT_TRUE(dev_->CloseZone(g_.nr_zones).Is(Code::kInvalidArgument));
  EXPECT_TRUE(dev_->FinishZone(g_.nr_zones).Is(Code::kInvalidArgument));
  EXPECT_TRUE(dev_->ResetZone(g_.nr_zones).Is(Code::kInvalidArgument));
  EXPECT_EQ(Snapshot(), before);
}

TEST_P(ZoneContractTest, WriteCrossingCapacityIsZoneBoundary) {
  Fill(3, g_.zone_capacity_bytes - bs_);
  auto before = Snapshot();
  std::vector<char> data = Pattern(2 * bs_, 3);
  Status s = dev_->Write(Zone(3).wp_bytes, data.data(), 2 * bs_);
  EXPECT_TRUE(s.Is(Code::kZoneBoundary)) << s.ToString();
  EXPECT_EQ(Snapshot(), before) << "nothing may land, in this zone or the next";
  uint64_t at = 0;
  s = dev_->Append(3, data.data(), 2 * bs_, &at);
  EXPECT_TRUE(s.Is(Code::kZoneBoundary)) << s.ToString();
  EXPECT_EQ(Snapshot(), before);
}

TEST_P(ZoneContractTest, ReadsStopAtZoneCapacity) {
  std::vector<char> buf(2 * bs_);
  const uint64_t cap_end = Start(4) + g_.zone_capacity_bytes;
  EXPECT_TRUE(dev_->Read(cap_end - bs_, bs_, buf.data()).ok());
  Status s = dev_->Read(cap_end - bs_, 2 * bs_, buf.data());
  if (g_.zone_capacity_bytes < g_.zone_size_bytes) {
    EXPECT_TRUE(s.Is(Code::kZoneBoundary)) << s.ToString();
    s = dev_->Read(cap_end, bs_, buf.data());
    EXPECT_TRUE(s.Is(Code::kZoneBoundary)) << s.ToString();
  } else {
    // Without a gap a read may span zones; unwritten blocks read as zeros.
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(std::all_of(buf.begin(), buf.end(), [](char c) { return c == 0; }));
  }
}

TEST_P(ZoneContractTest, FilledZoneIsFullAndRejectsWrites) {
  Fill(5, g_.zone_capacity_bytes, 5);
  ZoneInfo z = Zone(5);
  EXPECT_EQ(z.state, ZoneState::kFull);
  EXPECT_EQ(z.wp_bytes, Start(5) + g_.zone_capacity_bytes);
  std::vector<char> data = Pattern(bs_, 1);
  Status s = dev_->Write(Start(5), data.data(), bs_);
  EXPECT_TRUE(s.Is(Code::kZoneFull)) << s.ToString();
  uint64_t at = 0;
  s = dev_->Append(5, data.data(), bs_, &at);
  EXPECT_TRUE(s.Is(Code::kZoneFull)) << s.ToString();
  // The last block written is readable.
  std::vector<char> back(bs_);
  ASSERT_TRUE(dev_->Read(Start(5) + g_.zone_capacity_bytes - bs_, bs_, back.data()).ok());
  const uint64_t last_chunk = (g_.zone_capacity_bytes - 1) / (4ull << 20) * (4ull << 20);
  std::vector<char> expect = Pattern(g_.zone_capacity_bytes - last_chunk, 5 + last_chunk);
  EXPECT_EQ(0, std::memcmp(back.data(), expect.data() + expect.size() - bs_, bs_));
}

TEST_P(ZoneContractTest, ConcurrentAppendsToOneZoneDoNotOverlap) {
  constexpr int kThreads = 4, kEach = 16;
  std::mutex mu;
  std::vector<std::pair<uint64_t, int>> landed;  // offset, writer
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      std::vector<char> data = Pattern(bs_, t);
      for (int i = 0; i < kEach; i++) {
        uint64_t at = 0;
        Status s = dev_->Append(7, data.data(), bs_, &at);
        std::lock_guard<std::mutex> l(mu);
        EXPECT_TRUE(s.ok()) << s.ToString();
        landed.emplace_back(at, t);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<uint64_t> offsets;
  for (auto& [at, t] : landed) offsets.insert(at);
  ASSERT_EQ(offsets.size(), size_t{kThreads * kEach});
  EXPECT_EQ(*offsets.begin(), Start(7));
  EXPECT_EQ(*offsets.rbegin(), Start(7) + (kThreads * kEach - 1) * bs_);
  for (auto& [at, t] : landed) {
    std::vector<char> back(bs_);
    ASSERT_TRUE(dev_->Read(at, bs_, back.data()).ok());
    EXPECT_EQ(back, Pattern(bs_, t)) << "block at " << at;
  }
}

TEST_P(ZoneContractTest, ExplicitOpenAndCloseTransitions) {
  ASSERT_TRUE(dev_->OpenZone(8).ok());
  EXPECT_EQ(Zone(8).state, ZoneState::kExplicitOpen);
  ASSERT_TRUE(dev_->OpenZone(8).ok()) << "opening an open zone is a no-op";
  std::vector<char> data = Pattern(bs_, 8);
  ASSERT_TRUE(dev_->Write(Start(8), data.data(), bs_).ok());
  EXPECT_EQ(Zone(8).state, ZoneState::kExplicitOpen) << "writing keeps an explicit open";
  ASSERT_TRUE(dev_->CloseZone(8).ok());
  EXPECT_EQ(Zone(8).state, ZoneState::kClosed);
  ASSERT_TRUE(dev_->CloseZone(8).ok()) << "closing a closed zone is a no-op";
  ASSERT_TRUE(dev_->Write(Start(8) + bs_, data.data(), bs_).ok());
  EXPECT_EQ(Zone(8).state, ZoneState::kImplicitOpen) << "writing reopens a closed zone implicitly";
  ASSERT_TRUE(dev_->CloseZone(8).ok());
  ASSERT_TRUE(dev_->OpenZone(8).ok());
  EXPECT_EQ(Zone(8).state, ZoneState::kExplicitOpen);
  EXPECT_EQ(Zone(8).wp_bytes, Start(8) + 2 * bs_);
}

// NVMe ZNS: a zone closed before anything was written is Closed (not Empty,
// as ZBC would have it) and still holds its active resource.
TEST_P(ZoneContractTest, ClosingAnUnwrittenOpenZoneLeavesItClosed) {
  ASSERT_TRUE(dev_->OpenZone(9).ok());
  ASSERT_TRUE(dev_->CloseZone(9).ok());
  EXPECT_EQ(Zone(9).state, ZoneState::kClosed);
  EXPECT_EQ(Zone(9).wp_bytes, Start(9));
}

TEST_P(ZoneContractTest, InvalidTransitionsAreRejected) {
  auto before = Snapshot();
  Status s = dev_->CloseZone(10);
  EXPECT_TRUE(s.Is(Code::kInvalidTransition)) << "close empty: " << s.ToString();
  EXPECT_EQ(Snapshot(), before);
  ASSERT_TRUE(dev_->FinishZone(10).ok());
  before = Snapshot();
  s = dev_->CloseZone(10);
  EXPECT_TRUE(s.Is(Code::kInvalidTransition)) << "close full: " << s.ToString();
  s = dev_->OpenZone(10);
  EXPECT_TRUE(s.Is(Code::kInvalidTransition)) << "open full: " << s.ToString();
  EXPECT_EQ(Snapshot(), before);
}

TEST_P(ZoneContractTest, FinishMovesWritePointerToCapacity) {
  std::vector<char> data = Pattern(2 * bs_, 11);
  ASSERT_TRUE(dev_->Write(Start(11), data.data(), 2 * bs_).ok());
  const DeviceCounters c0 = dev_->counters();
  ASSERT_TRUE(dev_->FinishZone(11).ok());
  ZoneInfo z = Zone(11);
  EXPECT_EQ(z.state, ZoneState::kFull);
  EXPECT_EQ(z.wp_bytes, Start(11) + g_.zone_capacity_bytes);
  EXPECT_EQ(dev_->counters().finishes, c0.finishes + 1);
  std::vector<char> back(2 * bs_);
  ASSERT_TRUE(dev_->Read(Start(11), 2 * bs_, back.data()).ok());
  EXPECT_EQ(back, data);
  ASSERT_TRUE(dev_->Read(Start(11) + 2 * bs_, bs_, back.data()).ok());
  EXPECT_TRUE(std::all_of(back.begin(), back.begin() + bs_, [](char c) { return c == 0; }))
      << "a finished zone reads zeros past the old write pointer";
  ASSERT_TRUE(dev_->FinishZone(11).ok()) << "finishing a full zone is a no-op";
  EXPECT_EQ(dev_->counters().finishes, c0.finishes + 1);
  ASSERT_TRUE(dev_->FinishZone(12).ok()) << "an empty zone can be finished";
  EXPECT_EQ(Zone(12).state, ZoneState::kFull);
  EXPECT_EQ(Zone(12).wp_bytes, Start(12) + g_.zone_capacity_bytes);
}

TEST_P(ZoneContractTest, ResetEmptiesZoneAndCountsWear) {
  std::vector<char> data = Pattern(bs_, 13);
  ASSERT_TRUE(dev_->Write(Start(13), data.data(), bs_).ok());
  const uint64_t wear = Zone(13).reset_count;
  const DeviceCounters c0 = dev_->counters();
  ASSERT_TRUE(dev_->ResetZone(13).ok());
  ZoneInfo z = Zone(13);
  EXPECT_EQ(z.state, ZoneState::kEmpty);
  EXPECT_EQ(z.wp_bytes, Start(13));
  EXPECT_EQ(z.reset_count, wear + 1);
  EXPECT_EQ(dev_->counters().resets, c0.resets + 1);
  std::vector<char> back(bs_, 'x');
  ASSERT_TRUE(dev_->Read(Start(13), bs_, back.data()).ok());
  EXPECT_TRUE(std::all_of(back.begin(), back.end(), [](char c) { return c == 0; }));
  ASSERT_TRUE(dev_->ResetZone(13).ok()) << "resetting an empty zone is a no-op";
  EXPECT_EQ(Zone(13).reset_count, wear + 1);
  EXPECT_EQ(dev_->counters().resets, c0.resets + 1);
  // A full zone resets too, and is writable again from its start.
  ASSERT_TRUE(dev_->FinishZone(13).ok());
  ASSERT_TRUE(dev_->ResetZone(13).ok());
  EXPECT_EQ(Zone(13).reset_count, wear + 2);
  ASSERT_TRUE(dev_->Write(Start(13), data.data(), bs_).ok());
}

TEST_P(ZoneContractTest, MaxActiveLimitsOpensAndWrites) {
  const uint32_t max_active = g_.max_active_zones;
  if (max_active == 0 || max_active + 2 > g_.nr_zones) GTEST_SKIP() << "needs a max_active limit and spare zones";
  // Written and closed zones stay active without holding an open resource.
  std::vector<char> data = Pattern(bs_, 1);
  for (uint32_t z = 0; z < max_active; z++) {
    ASSERT_TRUE(dev_->Write(Start(z), data.data(), bs_).ok()) << "zone " << z;
    ASSERT_TRUE(dev_->CloseZone(z).ok()) << "zone " << z;
  }
  auto before = Snapshot();
  Status s = dev_->OpenZone(max_active);
  EXPECT_TRUE(s.Is(Code::kTooManyActive)) << s.ToString();
  s = dev_->Write(Start(max_active), data.data(), bs_);
  EXPECT_TRUE(s.Is(Code::kTooManyActive)) << s.ToString();
  EXPECT_EQ(Snapshot(), before);
  // Zones already active stay writable; finishing one frees its resource.
  ASSERT_TRUE(dev_->Write(Start(0) + bs_, data.data(), bs_).ok());
  ASSERT_TRUE(dev_->FinishZone(0).ok());
  ASSERT_TRUE(dev_->OpenZone(max_active).ok());
}

TEST_P(ZoneContractTest, RejectedImplicitOpenChangesNothing) {
  const uint32_t max_active = g_.max_active_zones;
  if (max_active == 0 || max_active + 2 > g_.nr_zones) GTEST_SKIP() << "needs a max_active limit and spare zones";
  std::vector<char> data = Pattern(bs_, 1);
  for (uint32_t z = 0; z < max_active; z++) ASSERT_TRUE(dev_->Write(Start(z), data.data(), bs_).ok());
  auto before = Snapshot();
  Status s = dev_->Write(Start(max_active), data.data(), bs_);
  EXPECT_TRUE(s.Is(Code::kTooManyActive)) << s.ToString();
  std::vector<ZoneInfo> after = All();
  for (uint32_t z = 0; z < g_.nr_zones; z++) {
    EXPECT_EQ(after[z].state, before[z].first) << "zone " << z << " changed state in a rejected write";
  }
}

// Auto-close can only trigger when a closed zone can coexist with max_open
// open ones, i.e. when max_active exceeds max_open (or is unlimited).
TEST_P(ZoneContractTest, OpenLimitAutoClosesOldestImplicitlyOpenZone) {
  const uint32_t max_open = g_.max_open_zones;
  if (max_open == 0 || max_open + 2 > g_.nr_zones ||
      (g_.max_active_zones != 0 && g_.max_active_zones <= max_open)) {
    GTEST_SKIP() << "needs max_open < max_active and spare zones";
  }
  std::vector<char> data = Pattern(bs_, 1);
  for (uint32_t z = 0; z < max_open; z++) ASSERT_TRUE(dev_->Write(Start(z), data.data(), bs_).ok());
  ASSERT_TRUE(dev_->Write(Start(max_open), data.data(), bs_).ok());
  EXPECT_EQ(Zone(0).state, ZoneState::kClosed) << "the oldest implicitly open zone is closed";
  EXPECT_EQ(Zone(max_open).state, ZoneState::kImplicitOpen);
}

INSTANTIATE_TEST_SUITE_P(Devices, ZoneContractTest,
                         ::testing::Values("emulated-cap64", "emulated-cap48", "emulated-open4", "zbd"),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// Properties only a real zoned block device has.
class ZbdOnlyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ZbdPath() == nullptr) GTEST_SKIP() << "set ZONEKV_ZBD_DEVICE=/dev/nvme0n1 to run";
  }
};

TEST_F(ZbdOnlyTest, SecondOpenIsBusy) {
  std::unique_ptr<ZonedDevice> a, b;
  ASSERT_TRUE(OpenZbdDevice(ZbdPath(), &a).ok());
  EXPECT_EQ(a->name(), std::string("zbd:") + ZbdPath());
  Status s = OpenZbdDevice(ZbdPath(), &b);
  EXPECT_TRUE(s.Is(Code::kBusy)) << s.ToString();
  EXPECT_NE(s.message().find("in use"), std::string::npos) << s.ToString();
}

TEST_F(ZbdOnlyTest, SchedulerNoneIsRefused) {
  const std::string dev = ZbdPath();
  const std::string sched = "/sys/block/" + dev.substr(dev.rfind('/') + 1) + "/queue/scheduler";
  std::ofstream(sched) << "none";
  std::unique_ptr<ZonedDevice> d;
  Status s = OpenZbdDevice(dev, &d);
  std::ofstream(sched) << "mq-deadline";
  EXPECT_TRUE(s.Is(Code::kNotSupported)) << s.ToString();
  EXPECT_NE(s.message().find("echo mq-deadline >"), std::string::npos) << s.ToString();
  ASSERT_TRUE(OpenZbdDevice(dev, &d).ok()) << "mq-deadline restored";
}

}  // namespace
}  // namespace zonekv
