// Fill test: RocksDB (BlobDB, synced writes) on a small device until the
// file system runs out of space. The failure must be a clean error within
// bounded time, and after a restart the DB must open with every
// acknowledged write intact.
#include <chrono>
#include <random>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>

#include "fs_test_util.h"

namespace zonekv {
namespace {

std::string Key(uint32_t i) {
  char b[20];
  std::snprintf(b, sizeof(b), "key%010u", i);
  return b;
}

std::string Value(uint32_t i) {
  std::string v(4096, '\0');
  std::mt19937 rng(i);
  for (auto& c : v) c = static_cast<char>(rng());
  return v;
}

rocksdb::Options DbOptions(rocksdb::Env* env, ZoneFs* fs) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.env = env;
  o.listeners.push_back(fs->listener());
  o.write_buffer_size = 512 << 10;
  o.target_file_size_base = 1 << 20;
  o.max_bytes_for_level_base = 4 << 20;
  o.enable_blob_files = true;
  o.min_blob_size = 1024;
  o.blob_file_size = 1 << 20;
  o.enable_blob_garbage_collection = true;
  return o;
}

TEST(FillTest, WritesUntilNoSpaceThenReopens) {
  auto dev = OpenTestDevice("ram:zones=24,zone_size=2M,max_open=14,max_active=14,auto_close=0");
  ZoneFsOptions opts;
  opts.alloc_timeout_ms = 3000;
  auto fs = FormatAndMount(dev, opts);
  auto env = rocksdb::NewCompositeEnv(fs->file_system());
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(DbOptions(env.get(), fs.get()), "/db", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::WriteOptions wo;
  wo.sync = true;
  uint32_t acked = 0;
  rocksdb::Status s;
  auto t0 = std::chrono::steady_clock::now();
  // 20000 x 4 KiB = 80 MiB, almost twice the 42 MiB of data zones.
  for (uint32_t i = 0; i < 20000; i++) {
    s = db->Put(wo, Key(i), Value(i));
    if (!s.ok()) break;
    acked = i + 1;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(s.ok()) << "the device never filled up";
  EXPECT_TRUE(s.IsNoSpace() || s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find("No space"), std::string::npos) << s.ToString();
  EXPECT_LT(secs, 120.0);
  EXPECT_GT(acked, 1000u);
  std::printf("fill test: %u acknowledged puts, then: %s (%.1f s)\n", acked, s.ToString().c_str(), secs);
  db->Close();
  db.reset();
  env.reset();
  fs.reset();

  // Restart: mount, open, every acknowledged key reads back.
  ASSERT_TRUE(ZoneFs::Mount(dev, opts, &fs).ok());
  EXPECT_EQ(FsckText(*fs), "");
  env = rocksdb::NewCompositeEnv(fs->file_system());
  s = rocksdb::DB::Open(DbOptions(env.get(), fs.get()), "/db", &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  db.reset(raw);
  for (uint32_t i = 0; i < acked; i++) {
    std::string v;
    s = db->Get(rocksdb::ReadOptions(), Key(i), &v);
    ASSERT_TRUE(s.ok()) << i << ": " << s.ToString();
    ASSERT_EQ(v, Value(i)) << i;
  }
  // Deleting data and compacting frees space for new writes.
  ASSERT_TRUE(db->DeleteRange(wo, db->DefaultColumnFamily(), Key(0), Key(acked)).ok());
  ASSERT_TRUE(db->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  EXPECT_TRUE(db->Put(wo, "after", Value(1)).ok());
  db->Close();
}

}  // namespace
}  // namespace zonekv
