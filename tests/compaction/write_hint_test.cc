// What RocksDB 7.8 tells a file system about SST lifetimes: leveled style
// sets a write-lifetime hint on every SST (flushes: MEDIUM), while under
// kCompactionStyleNone it sets none, for flushes and CompactFiles outputs
// alike. A zoned file system running with the external compactor must take
// levels from the compactor's CompactionJobHint, not from RocksDB's hints.
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/options.h>

#include "temp_db.h"
#include "zonekv/compactor.h"

namespace zonekv {
namespace {

// Records the last write-lifetime hint RocksDB set on each new .sst file.
class HintRecordingFs : public rocksdb::FileSystemWrapper {
 public:
  explicit HintRecordingFs(std::shared_ptr<rocksdb::FileSystem> base) : FileSystemWrapper(std::move(base)) {}
  const char* Name() const override { return "HintRecordingFs"; }

  rocksdb::IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& opts,
                                    std::unique_ptr<rocksdb::FSWritableFile>* out,
                                    rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus s = target()->NewWritableFile(name, opts, out, dbg);
    if (s.ok() && name.size() > 4 && name.compare(name.size() - 4, 4, ".sst") == 0) {
      *out = std::make_unique<File>(std::move(*out), this, name);
      std::lock_guard<std::mutex> l(mu_);
      hints_[name] = rocksdb::Env::WLTH_NOT_SET;
    }
    return s;
  }

  std::map<std::string, rocksdb::Env::WriteLifeTimeHint> hints() {
    std::lock_guard<std::mutex> l(mu_);
    return hints_;
  }

 private:
  class File : public rocksdb::FSWritableFileOwnerWrapper {
   public:
    File(std::unique_ptr<rocksdb::FSWritableFile>&& f, HintRecordingFs* fs, std::string name)
        : FSWritableFileOwnerWrapper(std::move(f)), fs_(fs), name_(std::move(name)) {}
    void SetWriteLifeTimeHint(rocksdb::Env::WriteLifeTimeHint hint) override {
      {
        std::lock_guard<std::mutex> l(fs_->mu_);
        fs_->hints_[name_] = hint;
      }
      FSWritableFileOwnerWrapper::SetWriteLifeTimeHint(hint);
    }

   private:
    HintRecordingFs* fs_;
    std::string name_;
  };

  std::mutex mu_;
  std::map<std::string, rocksdb::Env::WriteLifeTimeHint> hints_;
};

// Writes enough to flush several SSTs and (with the compactor) compact them.
std::map<std::string, rocksdb::Env::WriteLifeTimeHint> SstHints(bool external_compactor) {
  TempDir dir;
  auto fs = std::make_shared<HintRecordingFs>(rocksdb::FileSystem::Default());
  std::unique_ptr<rocksdb::Env> env = rocksdb::NewCompositeEnv(fs);
  rocksdb::Options o;
  o.env = env.get();
  o.create_if_missing = true;
  o.write_buffer_size = 32 << 10;
  o.level0_file_num_compaction_trigger = 2;
  std::shared_ptr<Compactor::ListenerSlot> slot;
  if (external_compactor) {
    EXPECT_TRUE(Compactor::PrepareOptions(&o, &slot).ok());
  }
  rocksdb::DB* raw = nullptr;
  EXPECT_TRUE(rocksdb::DB::Open(o, dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::unique_ptr<Compactor> compactor;
  if (external_compactor) {
    EXPECT_TRUE(Compactor::Start(db.get(), db->DefaultColumnFamily(), CompactorOptions(), slot, &compactor).ok());
  }
  for (int i = 0; i < 2000; ++i) {
    EXPECT_TRUE(db->Put(rocksdb::WriteOptions(), "key" + std::to_string(i % 700), std::string(200, 'v')).ok());
  }
  EXPECT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  if (compactor) {
    EXPECT_TRUE(compactor->WaitUntilIdle(30000).ok());
    EXPECT_EQ(compactor->Stats().ToJson().Dump().find("\"compactions\":0,"), std::string::npos);  // some ran
    compactor->Stop();
  }
  db.reset();
  return fs->hints();
}

TEST(WriteHints, LeveledStyleHintsEverySst) {
  auto hints = SstHints(false);
  ASSERT_GE(hints.size(), 3u);
  for (const auto& [name, hint] : hints) EXPECT_NE(hint, rocksdb::Env::WLTH_NOT_SET) << name;
}

TEST(WriteHints, CompactionStyleNoneHintsNoSst) {
  auto hints = SstHints(true);
  ASSERT_GE(hints.size(), 3u);
  for (const auto& [name, hint] : hints) EXPECT_EQ(hint, rocksdb::Env::WLTH_NOT_SET) << name;
}

}  // namespace
}  // namespace zonekv
