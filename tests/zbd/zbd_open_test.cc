// OpenZbdDevice() and the sysfs checks on a machine without zoned devices:
// every refusal names the device and what is wrong with it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "zbd_sysfs.h"
#include "zonekv/zbd_device.h"

namespace zonekv {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "zbd_test.XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A fake /sys/dev/block/M:m/queue directory of QEMU's ZNS namespace
// (values read from a guest), with `overrides` replacing files; an empty
// value removes the file.
void WriteQueue(const std::string& dir, const std::map<std::string, std::string>& overrides) {
  std::map<std::string, std::string> files = {
      {"zoned", "host-managed"},       {"scheduler", "[mq-deadline] none"},
      {"logical_block_size", "4096"},  {"chunk_sectors", "131072"},
      {"nr_zones", "32"},              {"max_open_zones", "14"},
      {"max_active_zones", "14"},
  };
  for (const auto& [k, v] : overrides) files[k] = v;
  for (const auto& [k, v] : files) {
    if (v.empty()) continue;
    std::ofstream(dir + "/" + k) << v << "\n";
  }
}

TEST(ZbdOpenTest, MissingPathIsNotFound) {
  std::unique_ptr<ZonedDevice> dev;
  Status s = OpenZbdDevice("/dev/zonekv-no-such-device", &dev);
  EXPECT_TRUE(s.Is(Status::Code::kNotFound)) << s.ToString();
  EXPECT_NE(s.message().find("/dev/zonekv-no-such-device"), std::string::npos) << s.ToString();
  EXPECT_EQ(dev, nullptr);
}

TEST(ZbdOpenTest, RegularFileIsNotAZonedBlockDevice) {
  TempDir dir;
  const std::string file = dir.path() + "/image";
  std::ofstream(file) << "not a device";
  std::unique_ptr<ZonedDevice> dev;
  Status s = OpenZbdDevice(file, &dev);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << s.ToString();
  EXPECT_NE(s.message().find("not a zoned block device"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(file), std::string::npos) << s.ToString();
}

TEST(ZbdOpenTest, CharacterDeviceIsNotAZonedBlockDevice) {
  std::unique_ptr<ZonedDevice> dev;
  Status s = OpenZbdDevice("/dev/null", &dev);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << s.ToString();
  EXPECT_NE(s.message().find("/dev/null is not a zoned block device"), std::string::npos) << s.ToString();
}

TEST(ZbdOpenTest, DirectoryIsNotAZonedBlockDevice) {
  std::unique_ptr<ZonedDevice> dev;
  Status s = OpenZbdDevice("/", &dev);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << s.ToString();
  EXPECT_NE(s.message().find("not a zoned block device"), std::string::npos) << s.ToString();
}

// The /dev path of a block device whose queue says it is not zoned, or "".
std::string FindNonZonedBlockDevice() {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/sys/dev/block", ec)) {
    std::string zoned, line, devname;
    std::ifstream(entry.path() / "queue" / "zoned") >> zoned;
    if (zoned != "none") continue;
    std::ifstream uevent(entry.path() / "uevent");
    while (std::getline(uevent, line)) {
      if (line.rfind("DEVNAME=", 0) == 0) devname = "/dev/" + line.substr(8);
    }
    if (!devname.empty() && fs::is_block_file(devname, ec)) return devname;
  }
  return "";
}

TEST(ZbdOpenTest, NonZonedBlockDeviceIsRefused) {
  const std::string dev_path = FindNonZonedBlockDevice();
  if (dev_path.empty()) GTEST_SKIP() << "no block device with queue/zoned \"none\" on this machine";
  std::unique_ptr<ZonedDevice> dev;
  Status s = OpenZbdDevice(dev_path, &dev);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << s.ToString();
  EXPECT_NE(s.message().find(dev_path + " is not a zoned block device"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("zoned is \"none\""), std::string::npos) << s.ToString();
}

TEST(ZbdSysfsTest, ReadsQemuZnsQueue) {
  TempDir dir;
  WriteQueue(dir.path(), {});
  ZbdQueueInfo info;
  Status s = ReadZbdQueueInfo(dir.path(), "/dev/nvme0n1", &info);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(info.scheduler, "mq-deadline");
  EXPECT_EQ(info.logical_block_size, 4096u);
  EXPECT_EQ(info.zone_size_bytes, 64u << 20);
  EXPECT_EQ(info.nr_zones, 32u);
  EXPECT_EQ(info.max_open_zones, 14u);
  EXPECT_EQ(info.max_active_zones, 14u);
}

TEST(ZbdSysfsTest, NotZonedIsInvalidArgument) {
  TempDir dir;
  WriteQueue(dir.path(), {{"zoned", "none"}});
  ZbdQueueInfo info;
  Status s = ReadZbdQueueInfo(dir.path(), "/dev/sda", &info);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << s.ToString();
  EXPECT_NE(s.message().find("/dev/sda is not a zoned block device"), std::string::npos) << s.ToString();
}

TEST(ZbdSysfsTest, HostAwareIsNotSupported) {
  TempDir dir;
  WriteQueue(dir.path(), {{"zoned", "host-aware"}});
  ZbdQueueInfo info;
  Status s = ReadZbdQueueInfo(dir.path(), "/dev/sdb", &info);
  EXPECT_TRUE(s.Is(Status::Code::kNotSupported)) << s.ToString();
  EXPECT_NE(s.message().find("host-aware"), std::string::npos) << s.ToString();
}

TEST(ZbdSysfsTest, SchedulerNoneIsRefusedWithTheFix) {
  TempDir dir;
  WriteQueue(dir.path(), {{"scheduler", "[none] mq-deadline"}});
  ZbdQueueInfo info;
  Status s = ReadZbdQueueInfo(dir.path(), "/dev/nvme0n1", &info);
  EXPECT_TRUE(s.Is(Status::Code::kNotSupported)) << s.ToString();
  EXPECT_NE(s.message().find("\"none\""), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("echo mq-deadline > " + dir.path() + "/scheduler"), std::string::npos)
      << s.ToString();
}

TEST(ZbdSysfsTest, MissingAttributeNamesTheFile) {
  TempDir dir;
  WriteQueue(dir.path(), {{"max_active_zones", ""}});
  ZbdQueueInfo info;
  Status s = ReadZbdQueueInfo(dir.path(), "/dev/nvme0n1", &info);
  EXPECT_TRUE(s.Is(Status::Code::kIOError)) << s.ToString();
  EXPECT_NE(s.message().find(dir.path() + "/max_active_zones"), std::string::npos) << s.ToString();
}

TEST(ZbdSysfsTest, GarbledNumberNamesTheFileAndValue) {
  TempDir dir;
  WriteQueue(dir.path(), {{"chunk_sectors", "12x"}});
  ZbdQueueInfo info;
  Status s = ReadZbdQueueInfo(dir.path(), "/dev/nvme0n1", &info);
  EXPECT_TRUE(s.Is(Status::Code::kIOError)) << s.ToString();
  EXPECT_NE(s.message().find("chunk_sectors holds \"12x\""), std::string::npos) << s.ToString();
}

TEST(ZbdSysfsTest, UnknownZonedModelIsAnError) {
  TempDir dir;
  WriteQueue(dir.path(), {{"zoned", "sideways"}});
  ZbdQueueInfo info;
  Status s = ReadZbdQueueInfo(dir.path(), "/dev/nvme0n1", &info);
  EXPECT_TRUE(s.Is(Status::Code::kIOError)) << s.ToString();
  EXPECT_NE(s.message().find("sideways"), std::string::npos) << s.ToString();
}

TEST(ZbdSysfsTest, SelectedScheduler) {
  EXPECT_EQ(SelectedScheduler("[mq-deadline] kyber bfq none"), "mq-deadline");
  EXPECT_EQ(SelectedScheduler("mq-deadline kyber [bfq] none"), "bfq");
  EXPECT_EQ(SelectedScheduler("none"), "none");
  EXPECT_EQ(SelectedScheduler("mq-deadline none"), "");
  EXPECT_EQ(SelectedScheduler("[broken"), "");
}

}  // namespace
}  // namespace zonekv
