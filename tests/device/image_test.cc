// Image-file backing: persistence, locking, recovery and damaged images.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "image_format.h"
#include "zonekv/crc32c.h"
#include "test_util.h"

namespace zonekv {
namespace {

using test::Pattern;
using C = Status::Code;
constexpr uint64_t kZone = 64 << 10, kCap = 48 << 10, kBlock = 4096;

class ImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = test::TempPath(::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(EmulatedDevice::CreateImage(path_, test::SmallOptions(4, 2, 3).geometry, false).ok());
  }
  void TearDown() override { std::remove(path_.c_str()); }
  Status Open(std::unique_ptr<EmulatedDevice>* d, const EmulatedDeviceOptions& o = EmulatedDeviceOptions()) {
    return EmulatedDevice::OpenImage(path_, o, d);
  }
  // Overwrites bytes of the image file at `offset`.
  void Poke(uint64_t offset, const std::string& bytes) {
    int fd = open(path_.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset)), static_cast<ssize_t>(bytes.size()));
    close(fd);
  }
  void ExpectOpenFails(C code, const std::string& needle) {
    std::unique_ptr<EmulatedDevice> d;
    Status s = Open(&d);
    EXPECT_TRUE(s.Is(code)) << s.ToString();
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.ToString();
  }

  std::string path_;
};

TEST_F(ImageTest, CreateGivesEmptyDeviceWithStoredGeometry) {
  std::unique_ptr<EmulatedDevice> d;
  ASSERT_TRUE(Open(&d).ok());
  EXPECT_EQ(d->geometry().nr_zones, 4u);
  EXPECT_EQ(d->geometry().zone_size_bytes, kZone);
  EXPECT_EQ(d->geometry().zone_capacity_bytes, kCap);
  EXPECT_EQ(d->geometry().max_open_zones, 2u);
  EXPECT_EQ(d->geometry().max_active_zones, 3u);
  EXPECT_EQ(d->name(), "emulated:file:" + path_);
  for (uint32_t z = 0; z < 4; z++) EXPECT_EQ(test::Zone(d.get(), z).state, ZoneState::kEmpty);
}

TEST_F(ImageTest, CreateRefusesToOverwriteUnlessAsked) {
  Status s = EmulatedDevice::CreateImage(path_, test::SmallOptions().geometry, false);
  EXPECT_TRUE(s.Is(C::kInvalidArgument)) << s.ToString();
  EXPECT_NE(s.message().find("already exists"), std::string::npos);
  EXPECT_TRUE(EmulatedDevice::CreateImage(path_, test::SmallOptions(2).geometry, true).ok());
  std::unique_ptr<EmulatedDevice> d;
  ASSERT_TRUE(Open(&d).ok());
  EXPECT_EQ(d->geometry().nr_zones, 2u);
  EXPECT_TRUE(EmulatedDevice::CreateImage(path_ + ".bad", DeviceGeometry(), false).Is(C::kInvalidArgument));
}

TEST_F(ImageTest, ReopenKeepsDataWritePointersStatesAndWear) {
  auto a = Pattern(3 * kBlock, 1), b = Pattern(kBlock, 2);
  {
    std::unique_ptr<EmulatedDevice> d;
    ASSERT_TRUE(Open(&d).ok());
    ASSERT_TRUE(d->Write(0, a.data(), a.size()).ok());       // zone 0: open
    ASSERT_TRUE(d->Write(kZone, b.data(), b.size()).ok());   // zone 1: closed
    ASSERT_TRUE(d->CloseZone(1).ok());
    ASSERT_TRUE(d->Write(2 * kZone, b.data(), b.size()).ok());
    ASSERT_TRUE(d->FinishZone(2).ok());                       // zone 2: full
    ASSERT_TRUE(d->ResetZone(2).ok());
    ASSERT_TRUE(d->FinishZone(2).ok());
    ASSERT_TRUE(d->OpenZone(3).ok());                         // zone 3: open, nothing written
    ASSERT_TRUE(d->Flush().ok());
  }
  std::unique_ptr<EmulatedDevice> d;
  ASSERT_TRUE(Open(&d).ok());
  ZoneInfo z0 = test::Zone(d.get(), 0), z1 = test::Zone(d.get(), 1), z2 = test::Zone(d.get(), 2),
           z3 = test::Zone(d.get(), 3);
  EXPECT_EQ(z0.state, ZoneState::kClosed);  // open zones come back closed
  EXPECT_EQ(z0.wp_bytes, 3 * kBlock);
  EXPECT_EQ(z1.state, ZoneState::kClosed);
  EXPECT_EQ(z1.wp_bytes, kZone + kBlock);
  EXPECT_EQ(z2.state, ZoneState::kFull);
  EXPECT_EQ(z2.reset_count, 1u);
  EXPECT_EQ(z3.state, ZoneState::kEmpty);
  std::vector<char> out(3 * kBlock);
  ASSERT_TRUE(d->Read(0, out.size(), out.data()).ok());
  EXPECT_EQ(out, a);
  ASSERT_TRUE(d->Read(2 * kZone, kBlock, out.data()).ok());
  EXPECT_EQ(std::vector<char>(out.begin(), out.begin() + kBlock), std::vector<char>(kBlock, 0));
  // Closed zones still hold active resources after reopening (max_active 3).
  ASSERT_TRUE(d->Write(3 * kZone, b.data(), b.size()).ok());
  EXPECT_TRUE(d->ResetZone(3).ok());
  // Writing continues at the recovered write pointer.
  EXPECT_TRUE(d->Write(3 * kBlock, b.data(), b.size()).ok());
}

TEST_F(ImageTest, RuntimeOptionsComeFromTheOpener) {
  EmulatedDeviceOptions o;
  o.finish = FinishModel::kPad;
  o.auto_close = false;
  std::unique_ptr<EmulatedDevice> d;
  ASSERT_TRUE(Open(&d, o).ok());
  EXPECT_EQ(d->options().finish, FinishModel::kPad);
  EXPECT_FALSE(d->options().auto_close);
  d.reset();
  std::unique_ptr<ZonedDevice> zd;
  Status s = OpenDevice("file:" + path_ + ",finish=pad,timing=confzns,time_scale=0", &zd);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(zd->geometry().nr_zones, 4u);
}

TEST_F(ImageTest, RejectedOperationsLeaveTheImageUntouched) {
  EmulatedDeviceOptions o;
  o.auto_close = false;
  std::unique_ptr<EmulatedDevice> d;
  ASSERT_TRUE(Open(&d, o).ok());
  auto a = Pattern(2 * kBlock, 1);
  ASSERT_TRUE(d->Write(0, a.data(), a.size()).ok());
  ASSERT_TRUE(d->Write(kZone, a.data(), kBlock).ok());
  ASSERT_TRUE(d->FinishZone(2).ok());
  ASSERT_TRUE(d->Flush().ok());
  auto read_file = [&] {
    std::ifstream f(path_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  const std::string before = read_file();
  EXPECT_TRUE(d->Write(kBlock, a.data(), kBlock).Is(C::kZoneInvalidWrite));
  EXPECT_TRUE(d->Write(2 * kBlock, a.data(), kCap).Is(C::kZoneBoundary));
  EXPECT_TRUE(d->Write(2 * kZone, a.data(), kBlock).Is(C::kZoneFull));
  EXPECT_TRUE(d->Write(3 * kZone, a.data(), kBlock).Is(C::kTooManyOpen));  // zones 0 and 1 are open
  EXPECT_TRUE(d->Write(2 * kBlock + 512, a.data(), kBlock).Is(C::kInvalidArgument));
  EXPECT_TRUE(d->OpenZone(2).Is(C::kInvalidTransition));
  EXPECT_TRUE(d->CloseZone(3).Is(C::kInvalidTransition));
  ASSERT_TRUE(d->Flush().ok());
  EXPECT_TRUE(read_file() == before) << "a rejected operation changed the image file";
}

TEST_F(ImageTest, SecondOpenIsBusy) {
  std::unique_ptr<EmulatedDevice> d;
  ASSERT_TRUE(Open(&d).ok());
  ExpectOpenFails(C::kBusy, "in use");
  EXPECT_TRUE(EmulatedDevice::CreateImage(path_, test::SmallOptions().geometry, true).Is(C::kBusy));
  d.reset();
  EXPECT_TRUE(Open(&d).ok());
}

TEST_F(ImageTest, ZoneConditionIsPersisted) {
  {
    std::unique_ptr<EmulatedDevice> d;
    ASSERT_TRUE(Open(&d).ok());
    ASSERT_TRUE(d->SetZoneCondition(1, ZoneState::kOffline).ok());
  }
  std::unique_ptr<EmulatedDevice> d;
  ASSERT_TRUE(Open(&d).ok());
  EXPECT_EQ(test::Zone(d.get(), 1).state, ZoneState::kOffline);
}

TEST_F(ImageTest, ForeignFile) {
  Poke(0, "NOTANIMG");
  ExpectOpenFails(C::kCorruption, "not a zonekv device image (bad magic");
}

TEST_F(ImageTest, TinyFile) {
  std::ofstream(path_, std::ios::trunc) << "hello";
  ExpectOpenFails(C::kCorruption, "not a zonekv device image (too short");
}

TEST_F(ImageTest, NewerFormatVersion) {
  Poke(8, std::string("\x02\0\0\0", 4));
  ExpectOpenFails(C::kCorruption, "format version 2");
}

TEST_F(ImageTest, DamagedHeader) {
  Poke(32, std::string("\x05", 1));  // nr_zones 4 -> 5 without fixing the checksum
  ExpectOpenFails(C::kCorruption, "header checksum mismatch");
}

TEST_F(ImageTest, TruncatedData) {
  ASSERT_EQ(truncate(path_.c_str(), (1 << 20) + 4 * kCap - kBlock), 0);
  ExpectOpenFails(C::kCorruption, "is truncated");
}

TEST_F(ImageTest, TruncatedHeader) {
  ASSERT_EQ(truncate(path_.c_str(), 100), 0);
  ExpectOpenFails(C::kCorruption, "shorter than its header");
}

TEST_F(ImageTest, DamagedZoneTableEntry) {
  Poke(4096 + 32 * 2 + 3, "x");
  ExpectOpenFails(C::kCorruption, "zone table entry of zone 2 has a checksum mismatch");
}

// Entries with a valid checksum but impossible content are caught too.
TEST_F(ImageTest, ImpossibleZoneTableEntries) {
  struct Case {
    uint64_t wp;
    uint8_t state;
    const char* needle;
  };
  const Case cases[] = {
      {4096, 0x1, "is empty with write pointer 4096"},
      {0, 0x4, "is closed with write pointer 0"},
      {4096, 0xE, "is full with write pointer 4096"},
      {kCap + kBlock, 0x4, "outside the zone capacity"},
      {4096, 0x2, "invalid state 2"},  // open states are never persisted
  };
  for (const Case& c : cases) {
    char e[32] = {};
    std::memcpy(e, &c.wp, 8);  // little-endian host, like the format
    e[16] = static_cast<char>(c.state);
    e[20] = 1;  // zone 1
    uint32_t crc = Crc32c(e, 24);
    std::memcpy(e + 24, &crc, 4);
    Poke(4096 + 32, std::string(e, 32));
    ExpectOpenFails(C::kCorruption, c.needle);
  }
  // A valid entry put in the wrong slot.
  char e[32] = {};
  e[16] = 0x1;
  e[20] = 3;
  uint32_t crc = Crc32c(e, 24);
  std::memcpy(e + 24, &crc, 4);
  Poke(4096 + 32, std::string(e, 32));
  ExpectOpenFails(C::kCorruption, "zone 1 names zone 3");
}

TEST_F(ImageTest, MissingImage) {
  std::remove(path_.c_str());
  ExpectOpenFails(C::kNotFound, "does not exist");
}

// Found while writing fuzz/image_header_fuzz (its address-space check): a
// header with a valid checksum whose zones * zone_size wraps past 2^64 was
// accepted, the wrapped image size passed the truncation check, and open then
// sized the zone table for 2^32 zones.
TEST(ImageHeaderTest, GeometryBeyondTheAddressSpaceIsCorruption) {
  DeviceGeometry g;
  g.block_size = 4096;
  g.nr_zones = UINT32_MAX;
  g.zone_size_bytes = uint64_t{1} << 62;
  g.zone_capacity_bytes = uint64_t{1} << 62;
  char h[image::kHeaderBytes];
  image::EncodeHeader(g, h);
  DeviceGeometry out;
  Status s = image::DecodeHeader(h, "big.img", &out);
  EXPECT_TRUE(s.Is(C::kCorruption)) << s.ToString();
  EXPECT_NE(s.message().find("exceed the 64-bit byte address space"), std::string::npos) << s.ToString();

  const std::string path = test::TempPath("GeometryBeyondTheAddressSpace");
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(h, sizeof(h));
  }
  std::unique_ptr<EmulatedDevice> dev;
  s = EmulatedDevice::OpenImage(path, EmulatedDeviceOptions(), &dev);
  EXPECT_TRUE(s.Is(C::kCorruption)) << s.ToString();
  std::remove(path.c_str());
}

}  // namespace
}  // namespace zonekv
