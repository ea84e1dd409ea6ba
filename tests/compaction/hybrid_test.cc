// Hybrid compaction (CompactorOptions::native_free_ratio): RocksDB's own
// leveled compaction while free space is plentiful, the picker below the
// threshold, and back; and the zone allocator's hint for native jobs
// (NativeCompactionObserver), subcompactions included. Real RocksDB on the
// default file system; the free-space ratio is the test's to set.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include "native_jobs.h"
#include "temp_db.h"
#include "thread_jobs.h"
#include "zonekv/compactor.h"

namespace zonekv {
namespace {

rocksdb::Options SmallLeveledOptions() {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 32 << 10;
  o.target_file_size_base = 16 << 10;
  o.max_bytes_for_level_base = 64 << 10;
  o.max_bytes_for_level_multiplier = 4;
  o.level0_file_num_compaction_trigger = 2;
  o.level0_slowdown_writes_trigger = 20;
  o.num_levels = 5;
  o.max_background_jobs = 4;
  o.max_subcompactions = 4;
  return o;
}

// Writes `n` random puts over 5,000 keys into `db` and `model`.
void Write(rocksdb::DB* db, std::mt19937_64* rng, int n, std::map<std::string, std::string>* model) {
  rocksdb::WriteOptions w;
  w.disableWAL = true;
  for (int i = 0; i < n; ++i) {
    char key[16];
    snprintf(key, sizeof(key), "key%06d", static_cast<int>((*rng)() % 5000));
    std::string value(50 + (*rng)() % 250, '\0');
    for (char& ch : value) ch = static_cast<char>('a' + (*rng)() % 26);
    ASSERT_TRUE(db->Put(w, key, value).ok());
    (*model)[key] = value;
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
}

// Until RocksDB runs and wants no compaction of its own (or 60 s).
void WaitForNativeCompactions(rocksdb::DB* db) {
  for (int i = 0; i < 6000; ++i) {
    uint64_t running = 0, pending = 0;
    db->GetIntProperty("rocksdb.num-running-compactions", &running);
    db->GetIntProperty("rocksdb.compaction-pending", &pending);
    if (running == 0 && pending == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "RocksDB's compactions did not settle in 60 s";
}

void ExpectReadsBack(rocksdb::DB* db, const std::map<std::string, std::string>& model) {
  for (const auto& [k, v] : model) {
    std::string got;
    rocksdb::Status s = db->Get(rocksdb::ReadOptions(), k, &got);
    ASSERT_TRUE(s.ok()) << k << ": " << s.ToString();
    ASSERT_EQ(got, v) << k;
  }
}

// Hints seen per job id, and that each start has its end on the same thread.
struct HintLog {
  std::mutex mu;
  std::map<uint64_t, int> starts;  // by job id
  int native_starts = 0, external_starts = 0, ends = 0, unmatched_ends = 0;
  std::map<std::thread::id, uint64_t> open;  // thread -> job

  void Start(const CompactionJobHint& h, ThreadJobs* threads) {
    std::lock_guard<std::mutex> l(mu);
    EXPECT_EQ(h.output_level, h.input_level + (h.input_level == h.output_level ? 0 : 1)) << "job " << h.job_id;
    EXPECT_LE(h.smallest_key, h.largest_key);
    EXPECT_FALSE(h.input_files.empty());
    EXPECT_EQ(h.level_scores.size(), 5u);
    ++starts[h.job_id];
    ++(h.job_id >= kNativeHintJobBase ? native_starts : external_starts);
    open[std::this_thread::get_id()] = h.job_id;
    threads->Begin(h.job_id);
  }
  void End(uint64_t job, ThreadJobs* threads) {
    std::lock_guard<std::mutex> l(mu);
    auto it = open.find(std::this_thread::get_id());
    if (it != open.end() && it->second == job) {
      open.erase(it);
      ++ends;
    } else {
      ++unmatched_ends;  // the job's end on its first thread after subcompaction 0 ended there
    }
    threads->End();
  }
};

TEST(HybridCompaction, NativeWhileSpaceIsPlentifulPickerBelowAndBackAgain) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  rocksdb::Options o = SmallLeveledOptions();
  std::shared_ptr<Compactor::ListenerSlot> slot;
  ASSERT_TRUE(Compactor::PrepareOptions(&o, &slot, /*hybrid=*/true).ok());
  EXPECT_EQ(o.compaction_style, rocksdb::kCompactionStyleLevel);
  auto threads = std::make_shared<ThreadJobs>();
  o.listeners.push_back(threads);
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);

  std::atomic<double> free_ratio{0.9};
  HintLog hints;
  CompactorOptions co;
  co.picker = "sica";
  co.threads = 2;
  co.native_free_ratio = 0.25;
  co.free_ratio = [&] { return free_ratio.load(); };
  co.on_job_start = [&](const CompactionJobHint& h) { hints.Start(h, threads.get()); };
  co.on_job_end = [&](uint64_t job, const Status&) { hints.End(job, threads.get()); };
  std::unique_ptr<Compactor> compactor;
  Status s = Compactor::Start(db.get(), db->DefaultColumnFamily(), co, slot, &compactor);
  ASSERT_TRUE(s.ok()) << s.ToString();

  std::mt19937_64 rng(7);
  std::map<std::string, std::string> model;
  auto picked = [&](const char* by) {
    const auto& m = compactor->Stats().metrics.picked_by;
    auto it = m.find(by);
    return it == m.end() ? uint64_t{0} : it->second;
  };

  // Plenty of space: RocksDB compacts, the picker does not.
  Write(db.get(), &rng, 8000, &model);
  WaitForNativeCompactions(db.get());
  ASSERT_TRUE(compactor->WaitUntilIdle(60000).ok());
  EXPECT_GT(picked("native"), 0u);
  EXPECT_EQ(picked("sica"), 0u);
  EXPECT_EQ(db->GetOptions().level0_file_num_compaction_trigger, 2) << "RocksDB's own picking is off";

  // Scarce: the picker takes over and RocksDB's own picker has nothing to do.
  free_ratio = 0.10;
  Write(db.get(), &rng, 8000, &model);
  ASSERT_TRUE(compactor->WaitUntilIdle(60000).ok());
  EXPECT_EQ(db->GetOptions().level0_file_num_compaction_trigger, 20) << "RocksDB's own picking is on";
  const uint64_t native_before = picked("native");
  Write(db.get(), &rng, 8000, &model);
  ASSERT_TRUE(compactor->WaitUntilIdle(60000).ok());
  WaitForNativeCompactions(db.get());
  EXPECT_GT(picked("sica"), 0u);
  EXPECT_EQ(picked("native"), native_before) << "RocksDB compacted while the picker was in charge";

  // Inside the band above the threshold: no flapping back.
  free_ratio = 0.26;
  Write(db.get(), &rng, 2000, &model);
  ASSERT_TRUE(compactor->WaitUntilIdle(60000).ok());
  EXPECT_EQ(db->GetOptions().level0_file_num_compaction_trigger, 20) << "RocksDB's own picking is on";

  // Plenty again: native.
  free_ratio = 0.5;
  Write(db.get(), &rng, 8000, &model);
  ASSERT_TRUE(compactor->WaitUntilIdle(60000).ok());
  WaitForNativeCompactions(db.get());
  EXPECT_EQ(db->GetOptions().level0_file_num_compaction_trigger, 2) << "RocksDB's own picking is off";
  EXPECT_GT(picked("native"), native_before);

  ExpectReadsBack(db.get(), model);

  // Scarce again, then Stop: RocksDB gets its own compaction back.
  free_ratio = 0.10;
  Write(db.get(), &rng, 2000, &model);
  ASSERT_TRUE(compactor->WaitUntilIdle(60000).ok());
  EXPECT_EQ(db->GetOptions().level0_file_num_compaction_trigger, 20) << "RocksDB's own picking is on";
  const uint64_t level_base = o.max_bytes_for_level_base;
  EXPECT_NE(db->GetOptions().max_bytes_for_level_base, level_base);
  compactor->Stop();
  EXPECT_EQ(db->GetOptions().level0_file_num_compaction_trigger, 2) << "Stop left RocksDB's picking off";
  EXPECT_EQ(db->GetOptions().max_bytes_for_level_base, level_base);
  CompactorStats st = compactor->Stats();
  ASSERT_TRUE(st.hybrid.has_value());
  EXPECT_EQ(st.hybrid->to_external, 2u);
  EXPECT_EQ(st.hybrid->to_native, 2u);
  ASSERT_EQ(st.hybrid->switches.size(), 4u);
  EXPECT_TRUE(st.hybrid->switches[0].to_external);
  EXPECT_DOUBLE_EQ(st.hybrid->switches[0].free_ratio, 0.10);
  EXPECT_FALSE(st.hybrid->switches[1].to_external);
  EXPECT_TRUE(st.hybrid->switches[2].to_external);
  EXPECT_FALSE(st.hybrid->switches[3].to_external);
  EXPECT_GT(st.hybrid->external_s, 0);
  EXPECT_LT(st.hybrid->external_s, st.hybrid->total_s);
  EXPECT_EQ(st.metrics.failed, 0u);
  // The picker's jobs ran in subcompactions too, each handed its job's hint
  // on its own thread (SubcompactionRelay).
  ASSERT_TRUE(st.external.has_value());
  EXPECT_GT(st.external->subcompactions_hinted, 0u);
  EXPECT_EQ(st.external->subcompactions_unhinted, 0u);
  std::string json = st.ToJson().Dump();
  EXPECT_NE(json.find("\"hybrid\":{\"native_free_pct\":25"), std::string::npos) << json.substr(0, 400);

  // Both kinds of job told the allocator what they write, and every
  // compaction output was created inside a hint.
  EXPECT_GT(hints.native_starts, 0);
  EXPECT_GT(hints.external_starts, 0);
  EXPECT_TRUE(hints.open.empty());
  EXPECT_GT(threads->attributed.load(), 0);
  EXPECT_EQ(threads->unattributed.load(), 0);
}

TEST(HybridCompaction, NativeObserverHintsEveryOutputIncludingSubcompactions) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  rocksdb::Options o = SmallLeveledOptions();
  auto threads = std::make_shared<ThreadJobs>();
  HintLog hints;
  NativeCompactionObserver observer(
      {}, [&](const CompactionJobHint& h) { hints.Start(h, threads.get()); },
      [&](uint64_t job, const Status&) { hints.End(job, threads.get()); });
  o.listeners.push_back(observer.listener());
  o.listeners.push_back(threads);
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);

  std::mt19937_64 rng(11);
  std::map<std::string, std::string> model;
  for (int round = 0; round < 4; ++round) Write(db.get(), &rng, 8000, &model);
  WaitForNativeCompactions(db.get());
  ExpectReadsBack(db.get(), model);

  EXPECT_GT(hints.native_starts, 0);
  EXPECT_EQ(hints.external_starts, 0);
  EXPECT_TRUE(hints.open.empty());
  EXPECT_GT(threads->attributed.load(), 0);
  EXPECT_EQ(threads->unattributed.load(), 0) << "a compaction output was created outside its job's hint";
  CompactorStats st = observer.Stats();
  EXPECT_GT(st.metrics.picked_by["native"], 0u);
  EXPECT_FALSE(st.hybrid.has_value());
}

TEST(HybridCompaction, StartRejectsAMismatchedSetup) {
  TempDir dir;
  rocksdb::Options o = SmallLeveledOptions();
  std::shared_ptr<Compactor::ListenerSlot> slot;
  ASSERT_TRUE(Compactor::PrepareOptions(&o, &slot, /*hybrid=*/false).ok());  // kCompactionStyleNone
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  CompactorOptions co;
  co.native_free_ratio = 0.25;
  std::unique_ptr<Compactor> c;
  Status s = Compactor::Start(db.get(), db->DefaultColumnFamily(), co, slot, &c);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.ToString().find("free_ratio"), std::string::npos) << s.ToString();
  co.free_ratio = [] { return 0.5; };
  s = Compactor::Start(db.get(), db->DefaultColumnFamily(), co, slot, &c);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.ToString().find("kCompactionStyleLevel"), std::string::npos) << s.ToString();

  rocksdb::Options u = SmallLeveledOptions();
  u.compaction_style = rocksdb::kCompactionStyleUniversal;
  EXPECT_TRUE(Compactor::PrepareOptions(&u, &slot, /*hybrid=*/true).Is(Status::Code::kInvalidArgument));
}

}  // namespace
}  // namespace zonekv
