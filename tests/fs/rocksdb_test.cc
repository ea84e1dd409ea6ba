// RocksDB on ZoneFs over the emulated RAM device: every operation checked
// against a std::map model, BlobDB with blob GC, reopen.
#include <map>
#include <random>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include "fs_test_util.h"

namespace zonekv {
namespace {

const char* kDevice = "ram:zones=48,zone_size=4M,max_open=14,max_active=14,auto_close=0";

std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%012llu", static_cast<unsigned long long>(i));
  return buf;
}

std::string Value(std::mt19937_64& rng, size_t n) {
  std::string v(n, '\0');
  for (auto& c : v) c = static_cast<char>('a' + rng() % 26);
  return v;
}

class RocksDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dev_ = OpenTestDevice(kDevice);
    fs_ = FormatAndMount(dev_, fs_opts_);
  }
  void TearDown() override {
    CloseDb();
    if (fs_) {
      EXPECT_EQ(FsckText(*fs_), "");
      // No device command ran under the file system's lock (the tests run
      // with ZONEKV_LOCK_CHECK=1, which would have aborted; this also holds
      // without it).
      Json m = fs_->Stats().ToJson();
      const Json* lock = m.Find("lock");
      ASSERT_NE(lock, nullptr) << m.Dump();
      EXPECT_EQ(lock->Find("device_calls_held")->number(), 0) << m.Dump();
      for (const char* k : {"hold_us", "wait_us"}) {
        for (const char* q : {"p50", "p99", "max"}) EXPECT_NE(lock->Find(k)->Find(q), nullptr) << k << "." << q;
      }
    }
  }

  rocksdb::Options DbOptions(bool blob) {
    rocksdb::Options o;
    o.create_if_missing = true;
    o.env = env_.get();
    o.listeners.push_back(fs_->listener());
    o.write_buffer_size = 256 << 10;
    o.target_file_size_base = 512 << 10;
    o.max_bytes_for_level_base = 2 << 20;
    o.level0_file_num_compaction_trigger = 2;
    o.max_background_jobs = 2;
    if (blob) {
      o.enable_blob_files = true;
      o.min_blob_size = 512;
      o.blob_file_size = 512 << 10;
      o.enable_blob_garbage_collection = true;
      o.blob_garbage_collection_age_cutoff = 0.5;
    }
    return o;
  }

  void OpenDb(bool blob) {
    env_ = rocksdb::NewCompositeEnv(fs_->file_system());
    rocksdb::DB* db = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(DbOptions(blob), "/db", &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    db_.reset(db);
  }
  void CloseDb() {
    if (db_) {
      EXPECT_TRUE(db_->Close().ok());
      db_.reset();
    }
    env_.reset();
  }
  void Remount() {
    CloseDb();
    fs_.reset();
    Status s = ZoneFs::Mount(dev_, fs_opts_, &fs_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  void CheckModel() {
    for (const auto& [k, v] : model_) {
      std::string got;
      rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), k, &got);
      ASSERT_TRUE(s.ok()) << k << ": " << s.ToString();
      ASSERT_EQ(got, v) << k;
    }
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
    auto m = model_.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_NE(m, model_.end()) << "extra key " << it->key().ToString();
      ASSERT_EQ(it->key().ToString(), m->first);
      ASSERT_EQ(it->value().ToString(), m->second);
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    ASSERT_EQ(m, model_.end()) << "missing key " << m->first;
  }

  // Random puts (overwrites) and deletes of keys in [0, keys).
  void Churn(std::mt19937_64& rng, int ops, uint64_t keys, size_t value_size) {
    for (int i = 0; i < ops; i++) {
      std::string k = Key(rng() % keys);
      if (rng() % 10 == 0) {
        rocksdb::Status s = db_->Delete(rocksdb::WriteOptions(), k);
        ASSERT_TRUE(s.ok()) << s.ToString();
        model_.erase(k);
      } else {
        std::string v = Value(rng, value_size);
        rocksdb::Status s = db_->Put(rocksdb::WriteOptions(), k, v);
        ASSERT_TRUE(s.ok()) << s.ToString();
        model_[k] = v;
      }
    }
  }

  ZoneFsOptions fs_opts_;
  std::shared_ptr<ZonedDevice> dev_;
  std::shared_ptr<ZoneFs> fs_;
  std::unique_ptr<rocksdb::Env> env_;
  std::unique_ptr<rocksdb::DB> db_;
  std::map<std::string, std::string> model_;
};

TEST_F(RocksDbTest, PutGetScanDeleteFlushCompactReopen) {
  OpenDb(false);
  std::mt19937_64 rng(1);
  Churn(rng, 6000, 2000, 300);
  ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  CheckModel();
  ASSERT_TRUE(db_->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).ok());
  CheckModel();
  // Compaction outputs carry job, level and key range (from the listener).
  int ranged = 0;
  for (const auto& f : fs_->View().files) {
    if (f.hints.kind != FileKind::kSst) continue;
    EXPECT_GE(f.hints.job, 0) << f.name;
    EXPECT_GE(f.hints.level, 0) << f.name;  // the level it was written at (trivial moves keep it)
    if (!f.hints.smallest_key.empty() && f.hints.smallest_key <= f.hints.largest_key) ranged++;
  }
  EXPECT_GT(ranged, 0);
  Churn(rng, 2000, 2000, 300);  // some of it only in the WAL
  CloseDb();
  Remount();
  OpenDb(false);
  CheckModel();
  // Hints reached the file system: SSTs have kinds, numbers and levels.
  FsView v = fs_->View();
  int ssts = 0, with_level = 0;
  for (const auto& f : v.files) {
    if (f.hints.kind != FileKind::kSst) continue;
    ssts++;
    EXPECT_GT(f.hints.number, 0u) << f.name;
    if (f.hints.level >= 0) with_level++;
  }
  EXPECT_GT(ssts, 0);
  EXPECT_EQ(with_level, ssts);
}

TEST_F(RocksDbTest, BlobDbWithGarbageCollectionAndReopen) {
  OpenDb(true);
  std::mt19937_64 rng(2);
  for (int round = 0; round < 4; round++) {
    Churn(rng, 1500, 600, 2048);
    ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  }
  rocksdb::CompactRangeOptions cro;
  cro.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  ASSERT_TRUE(db_->CompactRange(cro, nullptr, nullptr).ok());
  CheckModel();
  FsView v = fs_->View();
  int blobs = 0;
  for (const auto& f : v.files) blobs += f.hints.kind == FileKind::kBlob;
  EXPECT_GT(blobs, 0);
  for (const auto& f : v.files) {
    if (f.hints.kind == FileKind::kBlob) {
      EXPECT_GE(f.hints.job, 0) << f.name;
    }
  }
  Json m = fs_->Stats().ToJson();
  EXPECT_GT(m.Find("host_write_bytes")->number(), 4 * 1500 * 2048 * 0.9);
  for (const char* k : {"zc_copy_bytes", "resets_runtime", "resets_zc", "ezrc", "r_wp", "fs_waf", "space_used_ratio",
                        "free_ratio", "io_block_time_s", "policy_time_us"}) {
    EXPECT_NE(m.Find(k), nullptr) << k;
  }
  EXPECT_GT(m.Find("policy_time_us")->Find("alloc")->Find("calls")->number(), 0);
  CloseDb();
  Remount();
  OpenDb(true);
  CheckModel();
}

// Cleaning while RocksDB runs: small zones, a high trigger, overwrites.
// Reads go on while the cleaner moves extents and resets zones under them.
class RocksDbCleaningTest : public RocksDbTest {
 protected:
  void SetUp() override {
    fs_opts_.policy.zc = "greedy";
    fs_opts_.policy.zc_trigger_free_pct = 60;
    fs_opts_.zc_interval_ms = 5;
    dev_ = OpenTestDevice("ram:zones=40,zone_size=1M,max_open=14,max_active=14,auto_close=0");
    fs_ = FormatAndMount(dev_, fs_opts_);
  }
};

TEST_F(RocksDbCleaningTest, ModelHoldsWhileZonesAreCleaned) {
  OpenDb(true);
  std::mt19937_64 rng(3);
  // About 14 MiB live in 37 MiB of data zones, 40 MiB written.
  for (int round = 0; round < 10; round++) {
    Churn(rng, 1000, 3500, 4000);
    if (round % 3 == 2) CheckModel();
  }
  Json m = fs_->Stats().ToJson();
  std::printf("cleaning under RocksDB: resets_zc %.0f, zc_copy_bytes %.0f, fs_waf %.3f\nlock %s\njournal %s\n",
              m.Find("resets_zc")->number(), m.Find("zc_copy_bytes")->Find("total")->number(),
              m.Find("fs_waf")->number(), m.Find("lock")->Dump().c_str(), m.Find("journal")->Dump().c_str());
  EXPECT_GT(m.Find("resets_zc")->number(), 0) << m.Dump();
  EXPECT_GT(m.Find("zc_copy_bytes")->Find("total")->number(), 0);
  EXPECT_GT(m.Find("fs_waf")->number(), 1.0);
  CloseDb();
  Remount();
  OpenDb(true);
  CheckModel();
}

// Lazy runtime reset under RocksDB: zones are reset at runtime, and never one
// whose write pointer is below T_WP (the FAR paper's LZReset).
class RocksDbLazyResetTest : public RocksDbTest {
 protected:
  void SetUp() override {
    fs_opts_.policy.reset = "lazy";
    fs_opts_.policy.reset_lazy_twp = 0.6;
    dev_ = OpenTestDevice("ram:zones=40,zone_size=1M,max_open=14,max_active=14,auto_close=0");
    fs_ = FormatAndMount(dev_, fs_opts_);
  }
};

TEST_F(RocksDbLazyResetTest, NeverResetsBelowThreshold) {
  OpenDb(false);
  std::mt19937_64 rng(5);
  for (int round = 0; round < 6; round++) Churn(rng, 1000, 2000, 4000);
  CheckModel();
  Json m = fs_->Stats().ToJson();
  EXPECT_GT(m.Find("resets_runtime")->number(), 0) << m.Dump();
  EXPECT_GE(m.Find("r_wp_min")->number(), 0.6) << m.Dump();
}

// RocksDB rolls the info LOG at max_log_file_size (its AutoRollLogger needs
// the logger's size) and keeps keep_log_file_num old ones, so a long run's
// LOG does not grow without bound on the device.
TEST_F(RocksDbTest, InfoLogRollsAtMaxLogFileSize) {
  env_ = rocksdb::NewCompositeEnv(fs_->file_system());
  rocksdb::Options o = DbOptions(false);
  o.max_log_file_size = 8 << 10;
  o.keep_log_file_num = 2;
  o.log_file_time_to_roll = 0;
  // One session on a fresh DB: any LOG.old.* is a roll by size (a reopen
  // would also move the LOG aside).
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(o, "/db", &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  db_.reset(db);
  std::mt19937_64 rng(1);
  for (int i = 0; i < 4; i++) {
    Churn(rng, 3000, 2000, 300);
    ASSERT_TRUE(db_->Flush(rocksdb::FlushOptions()).ok());
  }
  std::vector<std::string> children;
  ASSERT_TRUE(fs_->file_system()->GetChildren("/db", rocksdb::IOOptions(), &children, nullptr).ok());
  int old_logs = 0;
  for (const auto& c : children) {
    if (c.rfind("LOG.old.", 0) != 0) continue;
    old_logs++;
    // Rolled near max_log_file_size (one entry may overshoot it).
    uint64_t size = 0;
    ASSERT_TRUE(fs_->file_system()->GetFileSize("/db/" + c, rocksdb::IOOptions(), &size, nullptr).ok());
    EXPECT_GE(size, 8u << 10) << c;
    EXPECT_LT(size, 64u << 10) << c;
  }
  EXPECT_GE(old_logs, 1);
  EXPECT_LE(old_logs, 2);
}

TEST_F(RocksDbTest, FileSystemOperations) {
  env_ = rocksdb::NewCompositeEnv(fs_->file_system());
  auto fs = fs_->file_system();
  rocksdb::IOOptions io;
  ASSERT_TRUE(fs->CreateDirIfMissing("/a/b", io, nullptr).ok());
  bool is_dir = false;
  ASSERT_TRUE(fs->IsDirectory("/a", io, &is_dir, nullptr).ok());
  EXPECT_TRUE(is_dir);
  std::unique_ptr<rocksdb::FSWritableFile> w;
  ASSERT_TRUE(fs->NewWritableFile("/a/b//f1", rocksdb::FileOptions(), &w, nullptr).ok());
  std::string data(10000, 'x');
  for (size_t i = 0; i < data.size(); i++) data[i] = static_cast<char>(i * 7);
  ASSERT_TRUE(w->Append(data.substr(0, 5000), io, nullptr).ok());
  ASSERT_TRUE(w->Sync(io, nullptr).ok());
  ASSERT_TRUE(w->Append(data.substr(5000), io, nullptr).ok());
  EXPECT_EQ(w->GetFileSize(io, nullptr), 10000u);
  ASSERT_TRUE(w->Close(io, nullptr).ok());
  w.reset();
  std::vector<std::string> kids;
  ASSERT_TRUE(fs->GetChildren("/a/b", io, &kids, nullptr).ok());
  EXPECT_EQ(kids, std::vector<std::string>({"f1"}));
  ASSERT_TRUE(fs->GetChildren("/a", io, &kids, nullptr).ok());
  EXPECT_EQ(kids, std::vector<std::string>({"b"}));
  std::unique_ptr<rocksdb::FSRandomAccessFile> r;
  ASSERT_TRUE(fs->NewRandomAccessFile("/a/b/f1", rocksdb::FileOptions(), &r, nullptr).ok());
  std::string scratch(10000, '\0');
  rocksdb::Slice got;
  ASSERT_TRUE(r->Read(4990, 30, io, &got, scratch.data(), nullptr).ok());
  EXPECT_EQ(got.ToString(), data.substr(4990, 30));
  ASSERT_TRUE(r->Read(9990, 100, io, &got, scratch.data(), nullptr).ok());
  EXPECT_EQ(got.ToString(), data.substr(9990));
  // Reopen appends after the padded last block of the first writer.
  ASSERT_TRUE(fs->ReopenWritableFile("/a/b/f1", rocksdb::FileOptions(), &w, nullptr).ok());
  ASSERT_TRUE(w->Append("tail", io, nullptr).ok());
  ASSERT_TRUE(w->Close(io, nullptr).ok());
  w.reset();
  ASSERT_TRUE(r->Read(9998, 100, io, &got, scratch.data(), nullptr).ok());
  EXPECT_EQ(got.ToString(), data.substr(9998) + "tail");
  data += "tail";
  ASSERT_TRUE(fs->RenameFile("/a/b/f1", "/a/f2", io, nullptr).ok());
  EXPECT_TRUE(fs->FileExists("/a/b/f1", io, nullptr).IsNotFound());
  uint64_t size = 0;
  ASSERT_TRUE(fs->GetFileSize("/a/f2", io, &size, nullptr).ok());
  EXPECT_EQ(size, 10004u);
  // The renamed file is still readable through the handle opened before.
  ASSERT_TRUE(r->Read(0, 10, io, &got, scratch.data(), nullptr).ok());
  EXPECT_EQ(got.ToString(), data.substr(0, 10));
  EXPECT_FALSE(fs->DeleteDir("/a", io, nullptr).ok());  // not empty
  ASSERT_TRUE(fs->DeleteFile("/a/f2", io, nullptr).ok());
  // Deleted but open: still readable until closed.
  ASSERT_TRUE(r->Read(100, 10, io, &got, scratch.data(), nullptr).ok());
  EXPECT_EQ(got.ToString(), data.substr(100, 10));
  r.reset();
  ASSERT_TRUE(fs->DeleteDir("/a/b", io, nullptr).ok());
  ASSERT_TRUE(fs->DeleteDir("/a", io, nullptr).ok());
  rocksdb::FileLock* lock = nullptr;
  ASSERT_TRUE(fs->LockFile("/LOCK", io, &lock, nullptr).ok());
  rocksdb::FileLock* lock2 = nullptr;
  EXPECT_FALSE(fs->LockFile("/LOCK", io, &lock2, nullptr).ok());
  ASSERT_TRUE(fs->UnlockFile(lock, io, nullptr).ok());
  // Zones of the deleted file were reset at once (eager reset).
  EXPECT_GT(fs_->Stats().ToJson().Find("resets_runtime")->number(), 0);
}

}  // namespace
}  // namespace zonekv
