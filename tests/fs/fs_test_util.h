// Helpers shared by the file-system tests.
#pragma once

#include <cstring>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <rocksdb/file_system.h>

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

namespace test {

// n bytes of pseudo-random data from `seed`.
inline std::string Pattern(uint64_t seed, size_t n) {
  std::string s(n, '\0');
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = rng();
    std::memcpy(s.data() + i, &v, std::min<size_t>(8, n - i));
  }
  return s;
}

// Writes `data` to a new file in `chunk`-sized appends, syncs and closes it.
inline rocksdb::IOStatus WriteFile(rocksdb::FileSystem* fs, const std::string& name, const std::string& data,
                                   size_t chunk = 64 << 10) {
  std::unique_ptr<rocksdb::FSWritableFile> w;
  rocksdb::IOOptions io;
  rocksdb::IOStatus s = fs->NewWritableFile(name, rocksdb::FileOptions(), &w, nullptr);
  if (!s.ok()) return s;
  for (size_t off = 0; s.ok() && off < data.size(); off += chunk) {
    s = w->Append(rocksdb::Slice(data.data() + off, std::min(chunk, data.size() - off)), io, nullptr);
  }
  if (s.ok()) s = w->Sync(io, nullptr);
  rocksdb::IOStatus c = w->Close(io, nullptr);
  return s.ok() ? c : s;
}

// The whole file, read sequentially.
inline std::string ReadFile(rocksdb::FileSystem* fs, const std::string& name) {
  std::unique_ptr<rocksdb::FSSequentialFile> r;
  EXPECT_TRUE(fs->NewSequentialFile(name, rocksdb::FileOptions(), &r, nullptr).ok()) << name;
  if (!r) return "";
  std::string out, scratch(100000, '\0');
  for (;;) {
    rocksdb::Slice got;
    EXPECT_TRUE(r->Read(scratch.size(), rocksdb::IOOptions(), &got, scratch.data(), nullptr).ok());
    if (got.empty()) break;
    out.append(got.data(), got.size());
  }
  return out;
}

}  // namespace test

}  // namespace zonekv
