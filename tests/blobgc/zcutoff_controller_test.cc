// The Z_Cutoff controller against a real RocksDB (default file system in a
// temporary directory) with a hand-built zone view.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include "zonekv/blob_gc.h"

namespace zonekv {

namespace {

class ZCutoffControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/zonekv-zcutoff-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    controller_ = std::make_shared<ZCutoffController>([this] {
      std::lock_guard<std::mutex> l(view_mu_);
      return view_;
    });
    rocksdb::Options o;
    o.create_if_missing = true;
    o.enable_blob_files = true;
    o.min_blob_size = 0;
    o.enable_blob_garbage_collection = true;
    o.blob_garbage_collection_age_cutoff = 0.25;
    o.disable_auto_compactions = true;
    o.listeners.push_back(controller_);
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, dir_, &db).ok());
    db_.reset(db);
  }
  void TearDown() override {
    controller_->Detach();
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  // One flush = one new blob file.
  void FlushBlobFile(int i) {
    ASSERT_TRUE(db_->Put({}, "key" + std::to_string(i), std::string(1000, 'v')).ok());
    ASSERT_TRUE(db_->Flush({}).ok());
  }
  std::vector<uint64_t> BlobNumbers() {
    rocksdb::ColumnFamilyMetaData m;
    db_->GetColumnFamilyMetaData(&m);
    std::vector<uint64_t> n;
    for (const auto& b : m.blob_files) n.push_back(b.blob_file_number);
    return n;
  }
  // A view with one full zone whose youngest blob file is `ybiz`.
  void SetFullZoneYbiz(uint64_t ybiz) {
    std::lock_guard<std::mutex> l(view_mu_);
    view_ = FsView();
    ZoneView z;
    z.capacity_bytes = z.written_bytes = z.valid_bytes = 1 << 20;
    z.valid_bytes_by_kind[static_cast<int>(FileKind::kBlob)] = z.valid_bytes;
    z.state = ZoneState::kFull;
    z.ybiz = ybiz;
    view_.zones.push_back(z);
  }
  double Cutoff() { return db_->GetOptions().blob_garbage_collection_age_cutoff; }

  std::string dir_;
  std::unique_ptr<rocksdb::DB> db_;
  std::shared_ptr<ZCutoffController> controller_;
  std::mutex view_mu_;
  FsView view_;
};

}  // namespace

TEST_F(ZCutoffControllerTest, SetsCutoffToTheFilesInFullZones) {
  for (int i = 0; i < 8; i++) FlushBlobFile(i);
  std::vector<uint64_t> blobs = BlobNumbers();
  ASSERT_EQ(blobs.size(), 8u);
  SetFullZoneYbiz(blobs[2]);  // the 3 oldest blob files sit in full zones
  controller_->Attach(db_.get());
  ASSERT_TRUE(controller_->UpdateNow().ok());
  double c = Cutoff();
  EXPECT_EQ(static_cast<size_t>(c * blobs.size()), 3u) << c;
  EXPECT_GE(controller_->Stats().ToJson().Find("changes")->number(), 1);
}

TEST_F(ZCutoffControllerTest, StatsCountUpdatesAndChangesAndKeepTheLastAnswer) {
  for (int i = 0; i < 8; i++) FlushBlobFile(i);
  std::vector<uint64_t> blobs = BlobNumbers();
  SetFullZoneYbiz(blobs[2]);
  ZCutoffStats before = controller_->Stats();
  EXPECT_EQ(before.updates, 0u);
  EXPECT_LT(before.cutoff, 0);
  EXPECT_EQ(before.ToJson().Find("cutoff")->type(), Json::Type::kNull);
  controller_->Attach(db_.get());
  ASSERT_TRUE(controller_->UpdateNow().ok());
  ZCutoffStats st = controller_->Stats();
  EXPECT_GE(st.updates, 1u);
  EXPECT_EQ(st.changes, 1u);
  EXPECT_EQ(st.cutoff, Cutoff());
  EXPECT_EQ(st.last.eligible_files, 3u);
  EXPECT_EQ(st.last.live_files, 8u);
  EXPECT_EQ(st.last.min_ybiz, blobs[2]);
  EXPECT_GE(st.update_us_max * st.updates, st.update_us_total);
  // One change: its SetOptions is part of the update that made it.
  EXPECT_LE(st.set_options_us_total, st.update_us_total);
  EXPECT_EQ(st.set_options_us_max, st.set_options_us_total);
  Json j = st.ToJson();
  Json rebuilt = Json::Object();
  for (const char* k : {"updates", "changes", "cutoff", "eligible_files", "live_files", "min_ybiz", "update_us_mean",
                        "update_us_max", "set_options_us_total", "set_options_us_max", "compute_us_mean"}) {
    if (const Json* v = j.Find(k)) rebuilt.Set(k, *v);
  }
  EXPECT_EQ(rebuilt.Dump(), j.Dump());  // exactly these keys, in this order
  EXPECT_EQ(j.Find("updates")->number(), static_cast<double>(st.updates));
  EXPECT_EQ(j.Find("changes")->number(), 1);
  EXPECT_EQ(j.Find("cutoff")->number(), st.cutoff);
  EXPECT_EQ(j.Find("eligible_files")->number(), 3);
  EXPECT_EQ(j.Find("live_files")->number(), 8);
  EXPECT_EQ(j.Find("min_ybiz")->number(), static_cast<double>(blobs[2]));
  EXPECT_EQ(j.Find("update_us_mean")->number(), st.update_us_mean());
  EXPECT_EQ(j.Find("update_us_max")->number(), static_cast<double>(st.update_us_max));
  EXPECT_EQ(j.Find("compute_us_mean")->number(),
            static_cast<double>(st.update_us_total - st.set_options_us_total) / static_cast<double>(st.updates));
}

// Without a blob file there is nothing to decide: the zones' view is not
// even read (a database without BlobDB paid for it on every flush).
TEST_F(ZCutoffControllerTest, WithoutBlobFilesReadsNoView) {
  std::atomic<int> views{0};
  auto counting = std::make_shared<ZCutoffController>([&views] {
    views++;
    return FsView();
  });
  ASSERT_TRUE(db_->Put({}, "k", std::string(1000, 'v')).ok());  // in the memtable: no blob file yet
  counting->Attach(db_.get());
  ASSERT_TRUE(counting->UpdateNow().ok());
  EXPECT_EQ(views.load(), 0);
  EXPECT_EQ(counting->Stats().changes, 0u);
  ASSERT_TRUE(db_->Flush({}).ok());  // the first blob file
  ASSERT_TRUE(counting->UpdateNow().ok());
  EXPECT_GE(views.load(), 1);
  counting->Detach();
}

TEST_F(ZCutoffControllerTest, LeavesCutoffAloneWithoutFullBlobZone) {
  for (int i = 0; i < 4; i++) FlushBlobFile(i);
  controller_->Attach(db_.get());
  ASSERT_TRUE(controller_->UpdateNow().ok());
  EXPECT_DOUBLE_EQ(Cutoff(), 0.25);
  EXPECT_EQ(controller_->Stats().ToJson().Find("changes")->number(), 0);
}

TEST_F(ZCutoffControllerTest, BlobFileEventsTriggerRecomputation) {
  for (int i = 0; i < 4; i++) FlushBlobFile(i);
  std::vector<uint64_t> blobs = BlobNumbers();
  SetFullZoneYbiz(blobs[0]);
  controller_->Attach(db_.get());
  // Attach computes 1 eligible of N = 4: 1.5 / 4.
  for (int i = 0; i < 500 && Cutoff() != 1.5 / 4; i++) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_DOUBLE_EQ(Cutoff(), 1.5 / 4);
  for (int i = 0; i < 500 && controller_->Stats().ToJson().Find("changes")->number() < 1; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // N = 5: floor(0.375 * 5) = 1 still selects the one eligible file, so the
  // option is left alone (SetOptions is costly). Recomputed here as well as
  // by the listener's thread: either way, no change.
  FlushBlobFile(100);
  ASSERT_TRUE(controller_->UpdateNow().ok());
  EXPECT_DOUBLE_EQ(Cutoff(), 1.5 / 4);
  EXPECT_EQ(controller_->Stats().ToJson().Find("changes")->number(), 1);
  // N = 6: floor(0.375 * 6) = 2 would relocate a file that is not in a full
  // zone; the cutoff must follow, driven by the listener alone. Wait
  // (bounded) for the thread.
  FlushBlobFile(101);
  double want = 1.5 / 6;
  for (int i = 0; i < 500 && Cutoff() != want; i++) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_DOUBLE_EQ(Cutoff(), want);
}

}  // namespace zonekv
