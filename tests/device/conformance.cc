#include "conformance.h"

#include <cstring>
#include <thread>

namespace zonekv {

namespace {
using C = Status::Code;
}

void PrintTo(const ConformanceTarget& target, std::ostream* os) { *os << target.name; }

std::string ConformanceTargetName(const ::testing::TestParamInfo<ConformanceTarget>& info) {
  return info.param.name;
}

void DeviceConformanceTest::SetUp() {
  Status s = GetParam().open(&dev_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_GE(g().nr_zones, 4u) << "the conformance suite needs at least 4 zones";
  zones_used_ = g().nr_zones;
  if (g().max_open_zones != 0) zones_used_ = std::min(zones_used_, g().max_open_zones + 2);
  zones_used_ = std::max(zones_used_, 4u);
  zones_used_ = std::min(zones_used_, 16u);
  for (uint32_t z = 0; z < zones_used_; z++) {
    ZoneInfo info;
    ASSERT_TRUE(dev_->ReportZone(z, &info).ok());
    if (info.state == ZoneState::kReadOnly || info.state == ZoneState::kOffline) {
      GTEST_SKIP() << "zone " << z << " is " << ZoneStateName(info.state);
    }
    s = dev_->ResetZone(z);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
}

std::vector<char> DeviceConformanceTest::Data(uint64_t n_bytes, uint64_t seed) const {
  std::vector<char> v(n_bytes);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 7;
  for (auto& c : v) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    c = static_cast<char>(x >> 56);
  }
  return v;
}

Status DeviceConformanceTest::WriteBlocks(uint32_t zone, uint64_t blocks, uint64_t seed) {
  ZoneInfo info = Info(zone);
  auto d = Data(blocks * g().block_size, seed);
  return dev_->Write(info.wp_bytes, d.data(), d.size());
}

ZoneInfo DeviceConformanceTest::Info(uint32_t zone) {
  ZoneInfo info;
  Status s = dev_->ReportZone(zone, &info);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return info;
}

TEST_P(DeviceConformanceTest, ReportDescribesContiguousZones) {
  std::vector<ZoneInfo> zones;
  ASSERT_TRUE(dev_->ReportZones(0, g().nr_zones, &zones).ok());
  ASSERT_EQ(zones.size(), g().nr_zones);
  for (uint32_t z = 0; z < g().nr_zones; z++) {
    EXPECT_EQ(zones[z].id, z);
    EXPECT_EQ(zones[z].start_bytes, uint64_t{z} * g().zone_size_bytes);
    EXPECT_EQ(zones[z].size_bytes, g().zone_size_bytes);
    EXPECT_EQ(zones[z].capacity_bytes, g().zone_capacity_bytes);
    EXPECT_LE(zones[z].capacity_bytes, zones[z].size_bytes);
    EXPECT_GE(zones[z].wp_bytes, zones[z].start_bytes);
    EXPECT_LE(zones[z].wp_bytes, zones[z].start_bytes + zones[z].capacity_bytes);
  }
  for (uint32_t z = 0; z < zones_used_; z++) {
    EXPECT_EQ(zones[z].state, ZoneState::kEmpty);
    EXPECT_EQ(zones[z].wp_bytes, zones[z].start_bytes);
  }
  zones.clear();
  ASSERT_TRUE(dev_->ReportZones(g().nr_zones - 1, 10, &zones).ok());
  EXPECT_EQ(zones.size(), 1u);
}

TEST_P(DeviceConformanceTest, WriteAdvancesWritePointerAndReadsBack) {
  const uint64_t bs = g().block_size;
  ASSERT_TRUE(WriteBlocks(1, 3, 11).ok());
  ZoneInfo info = Info(1);
  EXPECT_EQ(info.wp_bytes, info.start_bytes + 3 * bs);
  EXPECT_EQ(info.state, ZoneState::kImplicitOpen);
  std::vector<char> out(4 * bs, 'x');
  ASSERT_TRUE(dev_->Read(info.start_bytes, out.size(), out.data()).ok());
  auto want = Data(3 * bs, 11);
  if (GetParam().caps.stores_data) {
    EXPECT_EQ(std::memcmp(out.data(), want.data(), want.size()), 0);
  }
  // Past the write pointer: zeros.
  EXPECT_EQ(std::vector<char>(out.begin() + 3 * static_cast<long>(bs), out.end()), std::vector<char>(bs, 0));
}

TEST_P(DeviceConformanceTest, AppendReturnsWhereDataLanded) {
  const uint64_t bs = g().block_size;
  auto a = Data(bs, 1), b = Data(2 * bs, 2);
  uint64_t at = 0;
  ASSERT_TRUE(dev_->Append(2, a.data(), a.size(), &at).ok());
  EXPECT_EQ(at, Info(2).start_bytes);
  ASSERT_TRUE(dev_->Append(2, b.data(), b.size(), &at).ok());
  EXPECT_EQ(at, Info(2).start_bytes + bs);
  EXPECT_EQ(Info(2).wp_bytes, Info(2).start_bytes + 3 * bs);
  std::vector<char> out(b.size());
  ASSERT_TRUE(dev_->Read(at, out.size(), out.data()).ok());
  if (GetParam().caps.stores_data) {
    EXPECT_EQ(out, b);
  }
}

TEST_P(DeviceConformanceTest, WriteNotAtWritePointerIsRejected) {
  const uint64_t bs = g().block_size;
  ASSERT_TRUE(WriteBlocks(0, 2, 1).ok());
  auto d = Data(bs, 3);
  EXPECT_TRUE(dev_->Write(bs, d.data(), bs).Is(C::kZoneInvalidWrite));
  EXPECT_TRUE(dev_->Write(3 * bs, d.data(), bs).Is(C::kZoneInvalidWrite));
  EXPECT_EQ(Info(0).wp_bytes, 2 * bs);
}

TEST_P(DeviceConformanceTest, MisalignedIoIsRejected) {
  const uint64_t bs = g().block_size;
  auto d = Data(2 * bs, 3);
  EXPECT_TRUE(dev_->Write(0, d.data(), bs / 2).Is(C::kInvalidArgument));
  EXPECT_TRUE(dev_->Read(bs / 2, bs, d.data()).Is(C::kInvalidArgument));
  EXPECT_TRUE(dev_->Read(g().device_bytes(), bs, d.data()).Is(C::kInvalidArgument));
  EXPECT_TRUE(dev_->OpenZone(g().nr_zones).Is(C::kInvalidArgument));
  EXPECT_EQ(Info(0).state, ZoneState::kEmpty);
}

TEST_P(DeviceConformanceTest, FillingCapacityMakesZoneFull) {
  const uint64_t bs = g().block_size, cap = g().zone_capacity_bytes;
  auto d = Data(cap, 5);
  ASSERT_TRUE(dev_->Write(Info(3).start_bytes, d.data(), cap - bs).ok());
  // A write that crosses the capacity is rejected whole.
  EXPECT_TRUE(dev_->Write(Info(3).wp_bytes, d.data(), 2 * bs).Is(C::kZoneBoundary));
  ASSERT_TRUE(dev_->Write(Info(3).wp_bytes, d.data() + cap - bs, bs).ok());
  ZoneInfo info = Info(3);
  EXPECT_EQ(info.state, ZoneState::kFull);
  EXPECT_EQ(info.wp_bytes, info.start_bytes + cap);
  EXPECT_TRUE(dev_->Write(info.start_bytes, d.data(), bs).Is(C::kZoneFull));
  if (cap < g().zone_size_bytes) {
    std::vector<char> out(bs);
    EXPECT_TRUE(dev_->Read(info.start_bytes + cap, bs, out.data()).Is(C::kZoneBoundary));
  }
  std::vector<char> out(cap);
  ASSERT_TRUE(dev_->Read(info.start_bytes, cap, out.data()).ok());
  if (GetParam().caps.stores_data) {
    EXPECT_EQ(out, d);
  }
}

TEST_P(DeviceConformanceTest, OpenCloseFinishReset) {
  ASSERT_TRUE(dev_->OpenZone(0).ok());
  EXPECT_EQ(Info(0).state, ZoneState::kExplicitOpen);
  ASSERT_TRUE(WriteBlocks(0, 1, 1).ok());
  EXPECT_EQ(Info(0).state, ZoneState::kExplicitOpen);
  ASSERT_TRUE(dev_->CloseZone(0).ok());
  EXPECT_EQ(Info(0).state, ZoneState::kClosed);
  ASSERT_TRUE(WriteBlocks(0, 1, 2).ok());
  EXPECT_EQ(Info(0).state, ZoneState::kImplicitOpen);
  ASSERT_TRUE(dev_->FinishZone(0).ok());
  ZoneInfo info = Info(0);
  EXPECT_EQ(info.state, ZoneState::kFull);
  EXPECT_EQ(info.wp_bytes, info.start_bytes + info.capacity_bytes);
  EXPECT_TRUE(dev_->OpenZone(0).Is(C::kInvalidTransition));
  const uint64_t wear = info.reset_count;
  ASSERT_TRUE(dev_->ResetZone(0).ok());
  info = Info(0);
  EXPECT_EQ(info.state, ZoneState::kEmpty);
  EXPECT_EQ(info.wp_bytes, info.start_bytes);
  if (GetParam().caps.reports_wear) {
    EXPECT_EQ(info.reset_count, wear + 1);
  }
  std::vector<char> out(g().block_size, 'x');
  ASSERT_TRUE(dev_->Read(info.start_bytes, out.size(), out.data()).ok());
  EXPECT_EQ(out, std::vector<char>(g().block_size, 0));
  ASSERT_TRUE(dev_->FinishZone(1).ok());  // empty -> full
  EXPECT_EQ(Info(1).state, ZoneState::kFull);
}

TEST_P(DeviceConformanceTest, ExplicitOpenLimit) {
  const uint32_t max_open = g().max_open_zones;
  if (max_open == 0 || max_open + 1 > zones_used_) GTEST_SKIP() << "no usable open limit";
  for (uint32_t z = 0; z < max_open; z++) ASSERT_TRUE(dev_->OpenZone(z).ok()) << z;
  Status s = dev_->OpenZone(max_open);
  EXPECT_TRUE(s.Is(C::kTooManyOpen) || s.Is(C::kTooManyActive)) << s.ToString();
  EXPECT_EQ(Info(max_open).state, ZoneState::kEmpty);
  // Closing an unwritten open zone leaves it Closed and active (NVMe ZNS);
  // resetting it gives both resources back.
  ASSERT_TRUE(dev_->CloseZone(0).ok());
  EXPECT_EQ(Info(0).state, ZoneState::kClosed);
  ASSERT_TRUE(dev_->ResetZone(0).ok());
  EXPECT_EQ(Info(0).state, ZoneState::kEmpty);
  EXPECT_TRUE(dev_->OpenZone(max_open).ok());
}

TEST_P(DeviceConformanceTest, ParallelWritersToDifferentZones) {
  const uint64_t bs = g().block_size;
  const uint32_t writers = std::min<uint32_t>(4, g().max_open_zones == 0 ? 4 : g().max_open_zones);
  const uint64_t blocks = std::min<uint64_t>(32, g().zone_capacity_bytes / bs);
  std::vector<std::thread> threads;
  std::vector<Status> results(writers);
  for (uint32_t w = 0; w < writers; w++) {
    threads.emplace_back([&, w] {
      auto d = Data(bs, w);
      for (uint64_t b = 0; b < blocks && results[w].ok(); b++) {
        uint64_t at;
        results[w] = dev_->Append(w, d.data(), bs, &at);
      }
    });
  }
  for (auto& t : threads) t.join();
  for (uint32_t w = 0; w < writers; w++) {
    ASSERT_TRUE(results[w].ok()) << results[w].ToString();
    EXPECT_EQ(Info(w).written_bytes(), blocks * bs);
    if (!GetParam().caps.stores_data) continue;
    std::vector<char> out(bs);
    ASSERT_TRUE(dev_->Read(Info(w).start_bytes + (blocks - 1) * bs, bs, out.data()).ok());
    EXPECT_EQ(out, Data(bs, w));
  }
}

TEST_P(DeviceConformanceTest, FlushSucceeds) {
  ASSERT_TRUE(WriteBlocks(0, 1, 1).ok());
  EXPECT_TRUE(dev_->Flush().ok());
}

}  // namespace zonekv
