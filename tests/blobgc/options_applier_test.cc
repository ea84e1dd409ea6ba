// OptionsApplier against a real RocksDB (default file system in a temporary
// directory) whose write thread a test holds: a Put whose WAL write blocks
// until the test lets it go.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/options.h>

#include "view_builder.h"
#include "zonekv/blob_gc.h"
#include "zonekv/options_applier.h"

namespace zonekv {

namespace {

// Bounds a wait that only a regression would make long (so that one fails
// instead of hanging); nothing is asserted about how long anything takes.
constexpr std::chrono::seconds kHangBound(60);

// A WAL whose appends block while the file system is armed.
class GatedFs : public rocksdb::FileSystemWrapper {
 public:
  GatedFs() : rocksdb::FileSystemWrapper(rocksdb::FileSystem::Default()) {}
  const char* Name() const override { return "GatedFs"; }

  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& opts,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus s = target()->NewWritableFile(fname, opts, result, dbg);
    if (s.ok() && fname.size() > 4 && fname.compare(fname.size() - 4, 4, ".log") == 0) {
      *result = std::make_unique<GatedFile>(std::move(*result), this);
    }
    return s;
  }

  void Arm() {
    std::lock_guard<std::mutex> l(mu_);
    armed_ = true;
  }
  // True once a WAL append is blocked (within kHangBound).
  bool WaitBlocked() {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, kHangBound, [this] { return blocked_; });
  }
  void Release() {
    {
      std::lock_guard<std::mutex> l(mu_);
      armed_ = false;
    }
    cv_.notify_all();
  }

 private:
  class GatedFile : public rocksdb::FSWritableFileOwnerWrapper {
   public:
    GatedFile(std::unique_ptr<rocksdb::FSWritableFile>&& f, GatedFs* fs)
        : rocksdb::FSWritableFileOwnerWrapper(std::move(f)), fs_(fs) {}
    rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& o,
                             rocksdb::IODebugContext* dbg) override {
      fs_->Gate();
      return rocksdb::FSWritableFileOwnerWrapper::Append(data, o, dbg);
    }
    rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& o,
                             const rocksdb::DataVerificationInfo& v, rocksdb::IODebugContext* dbg) override {
      fs_->Gate();
      return rocksdb::FSWritableFileOwnerWrapper::Append(data, o, v, dbg);
    }

   private:
    GatedFs* fs_;
  };

  void Gate() {
    std::unique_lock<std::mutex> l(mu_);
    if (!armed_) return;
    blocked_ = true;
    cv_.notify_all();
    cv_.wait(l, [this] { return !armed_; });
    blocked_ = false;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool blocked_ = false;
};

class OptionsApplierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/zonekv-options-applier-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    fs_ = std::make_shared<GatedFs>();
    env_ = rocksdb::NewCompositeEnv(fs_);
    rocksdb::Options o;
    o.create_if_missing = true;
    o.env = env_.get();
    o.enable_blob_files = true;
    o.enable_blob_garbage_collection = false;
    o.blob_garbage_collection_age_cutoff = 0.25;
    o.min_blob_size = 0;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, dir_, &db).ok());
    db_.reset(db);
  }
  void TearDown() override {
    fs_->Release();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Starts a Put of `key` on *writer whose WAL write blocks until
  // fs_->Release(): it holds RocksDB's write thread. *done is set once the
  // Put returned. False (the writer joined) if the Put never got there.
  [[nodiscard]] bool HoldWriteThread(const std::string& key, std::thread* writer, std::atomic<bool>* done) {
    fs_->Arm();
    *writer = std::thread([this, key, done] {
      EXPECT_TRUE(db_->Put({}, key, "v").ok());
      *done = true;
    });
    if (fs_->WaitBlocked()) return true;
    fs_->Release();
    writer->join();
    return false;
  }

  std::string dir_;
  std::shared_ptr<GatedFs> fs_;
  std::unique_ptr<rocksdb::Env> env_;
  std::unique_ptr<rocksdb::DB> db_;
};

// The space GC's case: RocksDB's write thread is held (here by a Put whose
// WAL write blocks; in the fill experiment by writers stalled on full
// memtables whose flush waits for space), and the collection needs its
// options before the compaction that frees the space. Apply() returns with
// the values in effect while the call is still waiting to write the
// OPTIONS file; the call returns once the write thread is free.
TEST_F(OptionsApplierTest, TakesEffectWhileTheWriteThreadIsHeld) {
  std::atomic<bool> put_done{false};
  std::thread writer;
  ASSERT_TRUE(HoldWriteThread("k", &writer, &put_done)) << "the Put never reached its WAL write";

  OptionsApplier applier;
  auto applied = std::async(std::launch::async, [&] {
    return applier.Apply(db_.get(), {{"enable_blob_garbage_collection", "true"},
                                     {"blob_garbage_collection_age_cutoff", "0.5"}});
  });
  const bool returned = applied.wait_for(kHangBound) == std::future_status::ready;
  const bool put_was_blocked = !put_done;
  const OptionsApplierStats during = applier.Stats();
  fs_->Release();  // also when Apply() hung: a failure, not a hang
  writer.join();
  ASSERT_TRUE(returned) << "Apply() waited for the write thread";
  EXPECT_TRUE(applied.get().ok());
  EXPECT_TRUE(put_was_blocked);
  // The call itself was still inside RocksDB (its OPTIONS file needs the
  // write thread): the premise of the test.
  EXPECT_EQ(during.calls, 1u);
  EXPECT_EQ(during.returned, 0u);
  const rocksdb::Options now = db_->GetOptions();
  EXPECT_TRUE(now.enable_blob_garbage_collection);
  EXPECT_DOUBLE_EQ(now.blob_garbage_collection_age_cutoff, 0.5);

  applier.Drain();
  const OptionsApplierStats after = applier.Stats();
  EXPECT_EQ(after.returned, 1u);
  EXPECT_EQ(after.late_errors, 0u);
  EXPECT_TRUE(put_done);
}

// Two calls behind one held write thread take effect in order, and the
// second is not queued behind the first's OPTIONS file.
TEST_F(OptionsApplierTest, ASecondCallTakesEffectWhileTheFirstStillWaits) {
  std::atomic<bool> put_done{false};
  std::thread writer;
  ASSERT_TRUE(HoldWriteThread("k", &writer, &put_done)) << "the Put never reached its WAL write";

  OptionsApplier applier;
  auto applied = std::async(std::launch::async, [&] {
    rocksdb::Status a = applier.Apply(db_.get(), {{"disable_auto_compactions", "true"}});
    if (!a.ok()) return a;
    return applier.Apply(db_.get(), {{"disable_auto_compactions", "false"}});
  });
  const bool returned = applied.wait_for(kHangBound) == std::future_status::ready;
  const OptionsApplierStats during = applier.Stats();
  fs_->Release();
  writer.join();
  ASSERT_TRUE(returned);
  EXPECT_TRUE(applied.get().ok());
  EXPECT_EQ(during.calls, 2u);
  EXPECT_EQ(during.returned, 0u);
  EXPECT_EQ(during.in_flight_max, 2u);
  EXPECT_FALSE(db_->GetOptions().disable_auto_compactions);
  applier.Drain();
  EXPECT_EQ(applier.Stats().returned, 2u);
}

// A value RocksDB refuses never takes effect: Apply() returns the call's error.
TEST_F(OptionsApplierTest, ARefusedValueReturnsTheCallsError) {
  OptionsApplier applier;
  rocksdb::Status s = applier.Apply(db_.get(), {{"no_such_option", "1"}});
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  applier.Drain();
  EXPECT_EQ(applier.Stats().late_errors, 0u);
}

// A zone view of this database for the space GC: one 1 MiB zone per blob
// file (all of it valid), one for the SSTs, and `empty` empty zones.
FsView ZonesOf(rocksdb::DB* db, uint32_t empty) {
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  ViewBuilder b;
  for (const auto& bf : meta.blob_files) {
    ZoneView& z = b.BlobZone(bf.blob_file_size, bf.blob_file_number);
    FileView f;
    f.id = bf.blob_file_number;
    f.hints.kind = FileKind::kBlob;
    f.hints.number = bf.blob_file_number;
    f.size_bytes = bf.blob_file_size;
    f.bytes_per_zone[z.id] = bf.blob_file_size;
    b.view().files.push_back(f);
  }
  b.Zone(kCap / 2, kCap / 2);
  for (uint32_t i = 0; i < empty; i++) b.Zone(0, 0);
  return b.view();
}

// Two blob files of 100 and 50 records over the same keys, compacted into
// L1 without blob GC, so that RocksDB knows the first is half garbage; no
// automatic compaction after (nothing else moves).
void LoadTwoBlobFiles(rocksdb::DB* db) {
  const std::string value(1000, 'v');
  for (int i = 0; i < 100; i++) ASSERT_TRUE(db->Put({}, "key" + std::to_string(1000 + i), value).ok());
  ASSERT_TRUE(db->Flush({}).ok());
  for (int i = 0; i < 50; i++) ASSERT_TRUE(db->Put({}, "key" + std::to_string(1000 + i), value).ok());
  ASSERT_TRUE(db->Flush({}).ok());
  ASSERT_TRUE(db->CompactRange({}, nullptr, nullptr).ok());
  ASSERT_TRUE(db->SetOptions({{"disable_auto_compactions", "true"}}).ok());
}

// The `zones` space GC with its 15% trigger, over ZonesOf(db, 5): 5 of 8
// MiB free, so it collects only when a writer asks.
SpaceGcOptions ZonesGcOptions() {
  SpaceGcOptions so;
  so.policy = "zones";
  so.space_gc_free_pct = 15;
  return so;
}
SpaceGcFsHooks ZonesGcHooks(rocksdb::DB* db) {
  SpaceGcFsHooks hooks;
  hooks.view = [db](ViewFiles) { return ZonesOf(db, 5); };
  hooks.set_target = [](uint64_t, uint64_t) {};
  return hooks;
}

// The cycle the fill experiment met (notes/issue-16.md, session 9): a
// writer holds RocksDB's write thread (here its WAL write blocks; there
// its memtables were full and the flush that would free them waited for
// the room this collection makes), and a collection must not wait for that
// thread. The space GC, asked by a waiting writer, collects the oldest
// blob file (half garbage; with the next, as the policy sees fit) and
// returns while the write is still blocked;
// RocksDB no longer has the file, and the options are back as they were.
TEST_F(OptionsApplierTest, ACollectionCompletesWhileTheWriteThreadIsHeld) {
  ASSERT_NO_FATAL_FAILURE(LoadTwoBlobFiles(db_.get()));
  rocksdb::ColumnFamilyMetaData meta;
  db_->GetColumnFamilyMetaData(&meta);
  ASSERT_EQ(meta.blob_files.size(), 2u);
  const uint64_t oldest = meta.blob_files[0].blob_file_number;
  ASSERT_GT(meta.blob_files[0].garbage_blob_bytes, 0u);

  const PolicyEntry<SpaceGcFactory>* e = nullptr;
  ASSERT_TRUE(SpaceGcPolicies().Lookup("space_gc", "zones", &e).ok());
  const SpaceGcOptions so = ZonesGcOptions();
  rocksdb::DB* db = db_.get();
  const SpaceGcFsHooks hooks = ZonesGcHooks(db);
  SpaceGcController gc(e->make(so), so, hooks, CompactionPauser{}, nullptr);
  gc.Attach(db);

  std::atomic<bool> put_done{false};
  std::thread writer;
  ASSERT_TRUE(HoldWriteThread("other", &writer, &put_done)) << "the Put never reached its WAL write";
  SpaceGcPick pick;
  auto round = std::async(std::launch::async, [&] { return gc.RunOnce(/*writer_waiting=*/true, &pick); });
  const bool returned = round.wait_for(kHangBound) == std::future_status::ready;
  const bool put_was_blocked = !put_done;
  fs_->Release();
  writer.join();
  ASSERT_TRUE(returned) << "the collection waited for the write thread";
  Status s = round.get();
  gc.Detach();
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(put_was_blocked);
  EXPECT_TRUE(pick.collect);
  EXPECT_GE(pick.files, 1u);  // the oldest, and what else the policy finds worth it
  EXPECT_GE(pick.max_number, oldest);
  const SpaceGcStats st = gc.Stats();
  EXPECT_EQ(st.rounds, 1u);
  EXPECT_EQ(st.failed_rounds, 0u) << st.last_error;
  db_->GetColumnFamilyMetaData(&meta);
  for (const auto& b : meta.blob_files) EXPECT_NE(b.blob_file_number, oldest);
  const rocksdb::Options now = db_->GetOptions();
  EXPECT_FALSE(now.enable_blob_garbage_collection);
  EXPECT_TRUE(now.disable_auto_compactions);
  EXPECT_DOUBLE_EQ(now.blob_garbage_collection_age_cutoff, 0.25);
}

// With the external compactor, a collection first waits for the running
// jobs (CompactionPauser::pause). Meanwhile it tells the file system so
// (Reclaimable().awaits_compactions), which lets those jobs' outputs use the
// recovery reserve: a job that needs a zone would otherwise wait for the
// collection, and the collection for it (notes/issue-16.md, session 20).
// Only while it waits: not once the jobs are paused, nor after the round.
TEST_F(OptionsApplierTest, ACollectionSaysSoWhileItWaitsForRunningCompactions) {
  ASSERT_NO_FATAL_FAILURE(LoadTwoBlobFiles(db_.get()));

  const PolicyEntry<SpaceGcFactory>* e = nullptr;
  ASSERT_TRUE(SpaceGcPolicies().Lookup("space_gc", "zones", &e).ok());
  const SpaceGcOptions so = ZonesGcOptions();
  rocksdb::DB* db = db_.get();
  const SpaceGcFsHooks hooks = ZonesGcHooks(db);
  SpaceGcController* gc_ptr = nullptr;
  std::vector<bool> seen;  // awaits_compactions: inside pause(), inside resume()
  CompactionPauser pauser;
  pauser.pause = [&] {
    seen.push_back(gc_ptr->Reclaimable().awaits_compactions);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a job ending
  };
  pauser.resume = [&] { seen.push_back(gc_ptr->Reclaimable().awaits_compactions); };
  SpaceGcController gc(e->make(so), so, hooks, pauser, nullptr);
  gc_ptr = &gc;
  EXPECT_FALSE(gc.Reclaimable().awaits_compactions);
  gc.Attach(db);
  SpaceGcPick pick;
  Status s = gc.RunOnce(/*writer_waiting=*/true, &pick);
  gc.Detach();
  EXPECT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(pick.collect);
  EXPECT_EQ(seen, (std::vector<bool>{true, false}));
  EXPECT_FALSE(gc.Reclaimable().awaits_compactions);
  const SpaceGcStats st = gc.Stats();
  EXPECT_GE(st.pause_us_max, 20000u);
  EXPECT_EQ(st.pause_us_total, st.pause_us_max);  // one round
  EXPECT_GE(st.round_us_max, st.pause_us_max);
}

}  // namespace

}  // namespace zonekv
