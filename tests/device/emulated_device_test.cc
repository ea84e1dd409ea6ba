// Zone state machine, limits and error codes of the emulated device.
#include "zonekv/emulated_device.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "test_util.h"

namespace zonekv {
namespace {

using test::NewRam;
using test::Pattern;
using test::SmallOptions;
using C = Status::Code;
constexpr uint64_t kZone = 64 << 10, kCap = 48 << 10, kBlock = 4096;

class EmulatedDeviceTest : public ::testing::Test {
 protected:
  void Open(uint32_t zones = 8, uint32_t max_open = 0, uint32_t max_active = 0, bool auto_close = true) {
    EmulatedDeviceOptions o = SmallOptions(zones, max_open, max_active);
    o.auto_close = auto_close;
    dev_ = NewRam(o);
  }
  Status WriteBlocks(uint32_t zone, uint64_t blocks, uint64_t seed = 1) {
    ZoneInfo z = test::Zone(dev_.get(), zone);
    auto data = Pattern(blocks * kBlock, seed);
    return dev_->Write(z.wp_bytes, data.data(), data.size());
  }
  ZoneState State(uint32_t z) { return test::Zone(dev_.get(), z).state; }
  uint64_t Wp(uint32_t z) { return test::Zone(dev_.get(), z).wp_bytes; }
  // Every zone's report, to check that a rejected operation changed nothing.
  std::string Snapshot() {
    std::vector<ZoneInfo> zs;
    EXPECT_TRUE(dev_->ReportZones(0, dev_->geometry().nr_zones, &zs).ok());
    std::string s;
    for (auto& z : zs) {
      s += std::to_string(z.wp_bytes) + "/" + ZoneStateName(z.state) + "/" + std::to_string(z.reset_count) + " ";
    }
    return s;
  }
  void ExpectRejected(Status s, C code, const std::string& needle, const std::string& before) {
    EXPECT_TRUE(s.Is(code)) << s.ToString();
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.ToString();
    EXPECT_EQ(Snapshot(), before) << "a rejected operation changed the device: " << s.ToString();
  }

  std::unique_ptr<EmulatedDevice> dev_;
};

TEST_F(EmulatedDeviceTest, FreshDeviceIsEmpty) {
  Open();
  std::vector<ZoneInfo> zs;
  ASSERT_TRUE(dev_->ReportZones(0, 100, &zs).ok());
  ASSERT_EQ(zs.size(), 8u);
  for (uint32_t i = 0; i < 8; i++) {
    EXPECT_EQ(zs[i].id, i);
    EXPECT_EQ(zs[i].start_bytes, i * kZone);
    EXPECT_EQ(zs[i].wp_bytes, i * kZone);
    EXPECT_EQ(zs[i].size_bytes, kZone);
    EXPECT_EQ(zs[i].capacity_bytes, kCap);
    EXPECT_EQ(zs[i].state, ZoneState::kEmpty);
    EXPECT_EQ(zs[i].reset_count, 0u);
  }
  zs.clear();
  ASSERT_TRUE(dev_->ReportZones(6, 5, &zs).ok());
  EXPECT_EQ(zs.size(), 2u);
}

TEST_F(EmulatedDeviceTest, WriteThenReadBack) {
  Open();
  auto data = Pattern(3 * kBlock, 7);
  ASSERT_TRUE(dev_->Write(2 * kZone, data.data(), data.size()).ok());
  std::vector<char> out(3 * kBlock);
  ASSERT_TRUE(dev_->Read(2 * kZone, out.size(), out.data()).ok());
  EXPECT_EQ(out, data);
  EXPECT_EQ(Wp(2), 2 * kZone + 3 * kBlock);
  EXPECT_EQ(State(2), ZoneState::kImplicitOpen);
  DeviceCounters c = dev_->counters();
  EXPECT_EQ(c.host_write_bytes, 3 * kBlock);
  EXPECT_EQ(c.host_read_bytes, 3 * kBlock);
  EXPECT_EQ(c.writes, 1u);
  EXPECT_EQ(c.reads, 1u);
  EXPECT_EQ(c.opens, 1u);
}

TEST_F(EmulatedDeviceTest, ReadsPastWritePointerReturnZeros) {
  Open();
  ASSERT_TRUE(WriteBlocks(0, 1).ok());
  std::vector<char> out(2 * kBlock, 'x');
  ASSERT_TRUE(dev_->Read(0, out.size(), out.data()).ok());
  EXPECT_EQ(std::vector<char>(out.begin(), out.begin() + kBlock), Pattern(kBlock, 1));
  EXPECT_EQ(std::vector<char>(out.begin() + kBlock, out.end()), std::vector<char>(kBlock, 0));
}

TEST_F(EmulatedDeviceTest, ResetHidesOldData) {
  Open();
  ASSERT_TRUE(WriteBlocks(1, 2).ok());
  ASSERT_TRUE(dev_->ResetZone(1).ok());
  std::vector<char> out(2 * kBlock, 'x');
  ASSERT_TRUE(dev_->Read(kZone, out.size(), out.data()).ok());
  EXPECT_EQ(out, std::vector<char>(2 * kBlock, 0));
  // Rewriting one block and finishing must not resurrect the second old block.
  ASSERT_TRUE(WriteBlocks(1, 1, 9).ok());
  ASSERT_TRUE(dev_->FinishZone(1).ok());
  ASSERT_TRUE(dev_->Read(kZone, out.size(), out.data()).ok());
  EXPECT_EQ(std::vector<char>(out.begin(), out.begin() + kBlock), Pattern(kBlock, 9));
  EXPECT_EQ(std::vector<char>(out.begin() + kBlock, out.end()), std::vector<char>(kBlock, 0));
}

TEST_F(EmulatedDeviceTest, ReadsAcrossZonesWithinCapacity) {
  EmulatedDeviceOptions o = SmallOptions(4);
  o.geometry.zone_capacity_bytes = kZone;  // no gap between zones
  dev_ = NewRam(o);
  auto a = Pattern(kZone, 1), b = Pattern(kBlock, 2);
  ASSERT_TRUE(dev_->Write(0, a.data(), a.size()).ok());
  ASSERT_TRUE(dev_->Write(kZone, b.data(), b.size()).ok());
  std::vector<char> out(2 * kBlock);
  ASSERT_TRUE(dev_->Read(kZone - kBlock, out.size(), out.data()).ok());
  EXPECT_EQ(std::memcmp(out.data(), a.data() + kZone - kBlock, kBlock), 0);
  EXPECT_EQ(std::memcmp(out.data() + kBlock, b.data(), kBlock), 0);
}

TEST_F(EmulatedDeviceTest, ZoneAppendReturnsWhereDataLanded) {
  Open();
  uint64_t at = 0;
  auto a = Pattern(kBlock, 1), b = Pattern(2 * kBlock, 2);
  ASSERT_TRUE(dev_->Append(3, a.data(), a.size(), &at).ok());
  EXPECT_EQ(at, 3 * kZone);
  ASSERT_TRUE(dev_->Append(3, b.data(), b.size(), &at).ok());
  EXPECT_EQ(at, 3 * kZone + kBlock);
  std::vector<char> out(b.size());
  ASSERT_TRUE(dev_->Read(at, out.size(), out.data()).ok());
  EXPECT_EQ(out, b);
}

TEST_F(EmulatedDeviceTest, FillingTheCapacityMakesZoneFullAndReleasesResources) {
  Open(8, 1, 1, false);
  ASSERT_TRUE(WriteBlocks(0, kCap / kBlock - 1).ok());
  EXPECT_EQ(State(0), ZoneState::kImplicitOpen);
  ASSERT_TRUE(WriteBlocks(0, 1).ok());
  EXPECT_EQ(State(0), ZoneState::kFull);
  EXPECT_EQ(Wp(0), kCap);
  // The only open/active resource is free again.
  EXPECT_TRUE(WriteBlocks(1, 1).ok());
}

// --- explicit transitions ----------------------------------------------------

TEST_F(EmulatedDeviceTest, OpenTransitions) {
  Open();
  ASSERT_TRUE(dev_->OpenZone(0).ok());  // empty -> exp_open
  EXPECT_EQ(State(0), ZoneState::kExplicitOpen);
  ASSERT_TRUE(dev_->OpenZone(0).ok());  // exp_open -> exp_open
  EXPECT_EQ(State(0), ZoneState::kExplicitOpen);
  ASSERT_TRUE(WriteBlocks(0, 1).ok());  // writing keeps it explicitly open
  EXPECT_EQ(State(0), ZoneState::kExplicitOpen);
  ASSERT_TRUE(WriteBlocks(1, 1).ok());  // imp_open -> exp_open
  ASSERT_TRUE(dev_->OpenZone(1).ok());
  EXPECT_EQ(State(1), ZoneState::kExplicitOpen);
  ASSERT_TRUE(dev_->CloseZone(1).ok());  // closed -> exp_open
  ASSERT_TRUE(dev_->OpenZone(1).ok());
  EXPECT_EQ(State(1), ZoneState::kExplicitOpen);
  ASSERT_TRUE(dev_->FinishZone(2).ok());  // full: cannot be opened
  std::string before = Snapshot();
  ExpectRejected(dev_->OpenZone(2), C::kInvalidTransition, "zone 2 is full", before);
}

TEST_F(EmulatedDeviceTest, CloseTransitions) {
  Open();
  ASSERT_TRUE(WriteBlocks(0, 1).ok());
  ASSERT_TRUE(dev_->CloseZone(0).ok());  // imp_open -> closed
  EXPECT_EQ(State(0), ZoneState::kClosed);
  ASSERT_TRUE(dev_->CloseZone(0).ok());  // closed: no-op
  EXPECT_EQ(State(0), ZoneState::kClosed);
  ASSERT_TRUE(dev_->OpenZone(1).ok());
  ASSERT_TRUE(WriteBlocks(1, 1).ok());
  ASSERT_TRUE(dev_->CloseZone(1).ok());  // exp_open -> closed
  EXPECT_EQ(State(1), ZoneState::kClosed);
  ASSERT_TRUE(dev_->OpenZone(2).ok());
  ASSERT_TRUE(dev_->CloseZone(2).ok());  // exp_open with nothing written -> closed (NVMe, not ZBC)
  EXPECT_EQ(State(2), ZoneState::kClosed);
  std::string before = Snapshot();
  ExpectRejected(dev_->CloseZone(3), C::kInvalidTransition, "zone 3 is empty", before);
  ASSERT_TRUE(dev_->FinishZone(3).ok());
  before = Snapshot();
  ExpectRejected(dev_->CloseZone(3), C::kInvalidTransition, "zone 3 is full", before);
  EXPECT_EQ(dev_->counters().closes, 3u);
}

TEST_F(EmulatedDeviceTest, FinishTransitionsFromEveryWritableState) {
  Open();
  ASSERT_TRUE(dev_->FinishZone(0).ok());  // empty -> full
  ASSERT_TRUE(WriteBlocks(1, 1).ok());
  ASSERT_TRUE(dev_->FinishZone(1).ok());  // imp_open -> full
  ASSERT_TRUE(dev_->OpenZone(2).ok());
  ASSERT_TRUE(dev_->FinishZone(2).ok());  // exp_open -> full
  ASSERT_TRUE(WriteBlocks(3, 1).ok());
  ASSERT_TRUE(dev_->CloseZone(3).ok());
  ASSERT_TRUE(dev_->FinishZone(3).ok());  // closed -> full
  for (uint32_t z = 0; z < 4; z++) {
    EXPECT_EQ(State(z), ZoneState::kFull) << z;
    EXPECT_EQ(Wp(z), z * kZone + kCap) << z;
  }
  ASSERT_TRUE(dev_->FinishZone(3).ok());  // full: no-op
  DeviceCounters c = dev_->counters();
  EXPECT_EQ(c.finishes, 4u);
  EXPECT_EQ(c.finish_pad_bytes, 0u);  // finish=free
  EXPECT_EQ(c.dlwa(), 1.0);
  std::string before = Snapshot();
  ExpectRejected(WriteBlocks(3, 1), C::kZoneFull, "zone 3 is full", before);
}

TEST_F(EmulatedDeviceTest, ResetTransitionsAndWear) {
  Open();
  ASSERT_TRUE(dev_->ResetZone(0).ok());  // empty: no-op, no wear
  EXPECT_EQ(test::Zone(dev_.get(), 0).reset_count, 0u);
  ASSERT_TRUE(WriteBlocks(0, 2).ok());
  ASSERT_TRUE(dev_->ResetZone(0).ok());  // imp_open -> empty
  ASSERT_TRUE(WriteBlocks(0, 1).ok());
  ASSERT_TRUE(dev_->CloseZone(0).ok());
  ASSERT_TRUE(dev_->ResetZone(0).ok());  // closed -> empty
  ASSERT_TRUE(dev_->FinishZone(0).ok());
  ASSERT_TRUE(dev_->ResetZone(0).ok());  // full -> empty
  ASSERT_TRUE(dev_->OpenZone(0).ok());
  ASSERT_TRUE(dev_->ResetZone(0).ok());  // exp_open -> empty
  ZoneInfo z = test::Zone(dev_.get(), 0);
  EXPECT_EQ(z.state, ZoneState::kEmpty);
  EXPECT_EQ(z.wp_bytes, 0u);
  EXPECT_EQ(z.reset_count, 4u);
  EXPECT_EQ(dev_->counters().resets, 4u);
}

TEST_F(EmulatedDeviceTest, ReadOnlyAndOfflineZones) {
  Open();
  ASSERT_TRUE(WriteBlocks(0, 1).ok());
  ASSERT_TRUE(dev_->SetZoneCondition(0, ZoneState::kReadOnly).ok());
  ASSERT_TRUE(dev_->SetZoneCondition(1, ZoneState::kOffline).ok());
  std::string before = Snapshot();
  std::vector<char> out(kBlock);
  ASSERT_TRUE(dev_->Read(0, kBlock, out.data()).ok());
  EXPECT_EQ(out, Pattern(kBlock, 1));
  ExpectRejected(WriteBlocks(0, 1), C::kZoneReadOnly, "zone 0 is read-only", before);
  ExpectRejected(dev_->ResetZone(0), C::kZoneReadOnly, "zone 0", before);
  ExpectRejected(dev_->FinishZone(0), C::kZoneReadOnly, "zone 0", before);
  ExpectRejected(dev_->OpenZone(0), C::kInvalidTransition, "zone 0", before);
  ExpectRejected(dev_->Read(kZone, kBlock, out.data()), C::kZoneOffline, "zone 1 is offline", before);
  ExpectRejected(WriteBlocks(1, 1), C::kZoneOffline, "zone 1", before);
  ExpectRejected(dev_->ResetZone(1), C::kZoneOffline, "zone 1", before);
  ExpectRejected(dev_->OpenZone(1), C::kZoneOffline, "zone 1", before);
  ExpectRejected(dev_->CloseZone(1), C::kZoneOffline, "zone 1", before);
  ExpectRejected(dev_->SetZoneCondition(2, ZoneState::kFull), C::kInvalidArgument, "not read_only or offline", before);
}

// --- I/O errors ---------------------------------------------------------------

TEST_F(EmulatedDeviceTest, MisalignedAndOutOfRangeIo) {
  Open(4);
  ASSERT_TRUE(WriteBlocks(0, 1).ok());
  std::string before = Snapshot();
  std::vector<char> buf(8 * kBlock);
  ExpectRejected(dev_->Write(kBlock + 512, buf.data(), kBlock), C::kInvalidArgument, "not aligned", before);
  ExpectRejected(dev_->Write(kBlock, buf.data(), 100), C::kInvalidArgument, "not aligned", before);
  ExpectRejected(dev_->Write(kBlock, buf.data(), 0), C::kInvalidArgument, "length 0", before);
  ExpectRejected(dev_->Read(512, kBlock, buf.data()), C::kInvalidArgument, "not aligned", before);
  ExpectRejected(dev_->Write(4 * kZone, buf.data(), kBlock), C::kInvalidArgument, "past the end of the device", before);
  ExpectRejected(dev_->Read(4 * kZone - kBlock, 2 * kBlock, buf.data()), C::kInvalidArgument, "past the end",
                 before);
  uint64_t at;
  ExpectRejected(dev_->Append(4, buf.data(), kBlock, &at), C::kInvalidArgument, "zone 4 does not exist", before);
  ExpectRejected(dev_->Append(1, buf.data(), 10, &at), C::kInvalidArgument, "multiple of the block size", before);
  ExpectRejected(dev_->OpenZone(9), C::kInvalidArgument, "zone 9 does not exist", before);
  ExpectRejected(dev_->CloseZone(9), C::kInvalidArgument, "does not exist", before);
  ExpectRejected(dev_->FinishZone(9), C::kInvalidArgument, "does not exist", before);
  ExpectRejected(dev_->ResetZone(9), C::kInvalidArgument, "does not exist", before);
  ZoneInfo info;
  EXPECT_TRUE(dev_->ReportZone(9, &info).Is(C::kInvalidArgument));
  EXPECT_EQ(dev_->counters().writes, 1u);
}

TEST_F(EmulatedDeviceTest, WriteNotAtWritePointer) {
  Open();
  ASSERT_TRUE(WriteBlocks(0, 2).ok());
  std::string before = Snapshot();
  auto d = Pattern(kBlock, 3);
  ExpectRejected(dev_->Write(kBlock, d.data(), kBlock), C::kZoneInvalidWrite, "not at the write pointer 8192", before);
  ExpectRejected(dev_->Write(3 * kBlock, d.data(), kBlock), C::kZoneInvalidWrite, "zone 0", before);
  ExpectRejected(dev_->Write(kZone + kBlock, d.data(), kBlock), C::kZoneInvalidWrite, "zone 1", before);
}

TEST_F(EmulatedDeviceTest, WritesAndReadsPastCapacity) {
  Open();
  ASSERT_TRUE(WriteBlocks(0, kCap / kBlock - 1).ok());
  std::string before = Snapshot();
  auto d = Pattern(2 * kBlock, 3);
  ExpectRejected(dev_->Write(kCap - kBlock, d.data(), d.size()), C::kZoneBoundary, "crosses the zone capacity",
                 before);
  std::vector<char> out(2 * kBlock);
  ExpectRejected(dev_->Read(kCap - kBlock, out.size(), out.data()), C::kZoneBoundary, "past the zone capacity",
                 before);
  ExpectRejected(dev_->Read(kCap, kBlock, out.data()), C::kZoneBoundary, "zone 0", before);
  ExpectRejected(dev_->Read(kZone - kBlock, 2 * kBlock, out.data()), C::kZoneBoundary, "zone 0", before);
  EXPECT_TRUE(dev_->Read(kCap - kBlock, kBlock, out.data()).ok());
}

// --- open / active limits -------------------------------------------------------

TEST_F(EmulatedDeviceTest, TooManyOpenWithoutAutoClose) {
  Open(8, 2, 3, /*auto_close=*/false);
  ASSERT_TRUE(WriteBlocks(0, 1).ok());
  ASSERT_TRUE(dev_->OpenZone(1).ok());
  std::string before = Snapshot();
  ExpectRejected(WriteBlocks(2, 1), C::kTooManyOpen, "max_open 2", before);
  ExpectRejected(dev_->OpenZone(2), C::kTooManyOpen, "auto_close is off", before);
  ASSERT_TRUE(dev_->CloseZone(0).ok());
  EXPECT_TRUE(WriteBlocks(2, 1).ok());
}

TEST_F(EmulatedDeviceTest, TooManyActive) {
  Open(8, 2, 2, /*auto_close=*/true);
  ASSERT_TRUE(WriteBlocks(0, 1).ok());
  ASSERT_TRUE(WriteBlocks(1, 1).ok());
  ASSERT_TRUE(dev_->CloseZone(0).ok());
  ASSERT_TRUE(dev_->CloseZone(1).ok());
  // Both zones are closed but still active; auto-close cannot help.
  std::string before = Snapshot();
  ExpectRejected(WriteBlocks(2, 1), C::kTooManyActive, "max_active 2", before);
  ExpectRejected(dev_->OpenZone(2), C::kTooManyActive, "zone 2", before);
  // Writing a closed zone needs only an open resource.
  ASSERT_TRUE(WriteBlocks(0, 1).ok());
  EXPECT_EQ(State(0), ZoneState::kImplicitOpen);
  // Finishing releases the active resource.
  ASSERT_TRUE(dev_->FinishZone(1).ok());
  EXPECT_TRUE(WriteBlocks(2, 1).ok());
}

TEST_F(EmulatedDeviceTest, AutoCloseClosesOldestImplicitlyOpenedZone) {
  Open(8, 3, 8, /*auto_close=*/true);
  ASSERT_TRUE(WriteBlocks(0, 1).ok());
  ASSERT_TRUE(dev_->OpenZone(1).ok());  // explicitly open: never auto-closed
  ASSERT_TRUE(WriteBlocks(2, 1).ok());
  ASSERT_TRUE(WriteBlocks(0, 1).ok());  // writing does not refresh the age
  ASSERT_TRUE(WriteBlocks(3, 1).ok());  // closes zone 0
  EXPECT_EQ(State(0), ZoneState::kClosed);
  EXPECT_EQ(State(1), ZoneState::kExplicitOpen);
  EXPECT_EQ(State(2), ZoneState::kImplicitOpen);
  EXPECT_EQ(State(3), ZoneState::kImplicitOpen);
  ASSERT_TRUE(dev_->OpenZone(4).ok());  // explicit opens also auto-close: zone 2
  EXPECT_EQ(State(2), ZoneState::kClosed);
  ASSERT_TRUE(WriteBlocks(5, 1).ok());  // zone 3
  EXPECT_EQ(State(3), ZoneState::kClosed);
  EXPECT_EQ(dev_->counters().auto_closes, 3u);
  ASSERT_TRUE(dev_->OpenZone(5).ok());  // now zones 1, 4, 5 are all explicitly open
  std::string before = Snapshot();
  ExpectRejected(WriteBlocks(6, 1), C::kTooManyOpen, "no zone is implicitly open", before);
}

TEST_F(EmulatedDeviceTest, TransitionsAreCounted) {
  Open();
  ASSERT_TRUE(WriteBlocks(0, 1).ok());   // empty -> imp_open
  ASSERT_TRUE(dev_->CloseZone(0).ok());  // -> closed
  ASSERT_TRUE(dev_->FinishZone(0).ok()); // -> full
  ASSERT_TRUE(dev_->ResetZone(0).ok());  // -> empty
  ASSERT_TRUE(dev_->ResetZone(0).ok());  // no change
  DeviceCounters c = dev_->counters();
  EXPECT_EQ(c.transitions, 4u);
  EXPECT_EQ(c.opens, 1u);
  Json j = c.ToJson();
  EXPECT_NE(j.Dump().find("\"transitions\":4"), std::string::npos);
}

TEST_F(EmulatedDeviceTest, FinishPadCountsDeviceWrites) {
  EmulatedDeviceOptions o = SmallOptions();
  o.finish = FinishModel::kPad;
  dev_ = NewRam(o);
  ASSERT_TRUE(WriteBlocks(0, 4).ok());
  ASSERT_TRUE(dev_->FinishZone(0).ok());
  ASSERT_TRUE(dev_->FinishZone(1).ok());  // empty zone: not padded
  DeviceCounters c = dev_->counters();
  EXPECT_EQ(c.finish_pad_bytes, kCap - 4 * kBlock);
  EXPECT_DOUBLE_EQ(c.dlwa(), static_cast<double>(kCap) / (4 * kBlock));
  std::vector<char> out(kBlock, 'x');
  ASSERT_TRUE(dev_->Read(kCap - kBlock, kBlock, out.data()).ok());
  EXPECT_EQ(out, std::vector<char>(kBlock, 0));
}

TEST_F(EmulatedDeviceTest, MetadataOnlyKeepsStateButNoPayload) {
  EmulatedDeviceOptions o = SmallOptions();
  o.geometry.nr_zones = 32768;
  o.geometry.zone_size_bytes = o.geometry.zone_capacity_bytes = 64ull << 20;  // 2 TiB
  std::unique_ptr<EmulatedDevice> d;
  ASSERT_TRUE(EmulatedDevice::OpenMetadataOnly(o, &d).ok());
  auto data = Pattern(kBlock, 5);
  uint64_t last = uint64_t{32767} * (64ull << 20);
  ASSERT_TRUE(d->Write(last, data.data(), kBlock).ok());
  EXPECT_EQ(test::Zone(d.get(), 32767).wp_bytes, last + kBlock);
  std::vector<char> out(kBlock, 'x');
  ASSERT_TRUE(d->Read(last, kBlock, out.data()).ok());
  EXPECT_EQ(out, std::vector<char>(kBlock, 0));
  EXPECT_TRUE(d->Write(last, data.data(), kBlock).Is(C::kZoneInvalidWrite));
}

// Threads writing their own zones while the open limit makes them
// auto-close each other's zones (how often depends on scheduling): every
// write succeeds and lands where it should.
TEST_F(EmulatedDeviceTest, ConcurrentWritersUnderOpenLimit) {
  Open(8, 2, 8, /*auto_close=*/true);
  const int kThreads = 4;
  const uint64_t kBlocks = kCap / kBlock;
  std::vector<std::thread> threads;
  std::vector<Status> results(kThreads);
  std::atomic<int> ready{0};
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      ready++;
      while (ready.load() < kThreads) std::this_thread::yield();
      for (uint64_t b = 0; b < kBlocks && results[t].ok(); b++) {
        for (uint32_t z : {2u * t, 2u * t + 1}) {
          auto d = Pattern(kBlock, z * 1000 + b);
          results[t] = dev_->Write(z * kZone + b * kBlock, d.data(), kBlock);
          if (!results[t].ok()) break;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; t++) ASSERT_TRUE(results[t].ok()) << results[t].ToString();
  for (uint32_t z = 0; z < 8; z++) {
    EXPECT_EQ(State(z), ZoneState::kFull);
    std::vector<char> out(kBlock);
    for (uint64_t b = 0; b < kBlocks; b++) {
      ASSERT_TRUE(dev_->Read(z * kZone + b * kBlock, kBlock, out.data()).ok());
      ASSERT_EQ(out, Pattern(kBlock, z * 1000 + b)) << "zone " << z << " block " << b;
    }
  }
}

}  // namespace
}  // namespace zonekv
