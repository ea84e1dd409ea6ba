// Helpers shared by the file-system tests.
#pragma once

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "zonekv/zonefs.h"
#include "zonekv/zoned_device.h"

namespace zonekv {

inline std::shared_ptr<ZonedDevice> OpenTestDevice(const std::string& spec) {
  std::unique_ptr<ZonedDevice> dev;
  Status s = OpenDevice(spec, &dev);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return std::shared_ptr<ZonedDevice>(std::move(dev));
}

// Formats and mounts a file system on `dev`.
inline std::shared_ptr<ZoneFs> FormatAndMount(const std::shared_ptr<ZonedDevice>& dev, const ZoneFsOptions& opts) {
  Status s = ZoneFs::Format(dev.get(), opts);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::shared_ptr<ZoneFs> fs;
  s = ZoneFs::Mount(dev, opts, &fs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return fs;
}

inline std::string FsckText(const ZoneFs& fs) {
  std::string out;
  for (const auto& p : fs.Fsck()) out += p.message + "\n";
  return out;
}

}  // namespace zonekv
