// The compactor on real RocksDB (default file system in a temp dir) under
// every picker: random puts and deletes against a std::map model, then the
// LSM invariants from RocksDB's own metadata and a full read-back.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <random>
#include <regex>

#include <rocksdb/db.h>
#include <rocksdb/listener.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>

#include "compactor_listener.h"
#include "fake_zones.h"
#include "picker_common.h"
#include "temp_db.h"
#include "thread_jobs.h"
#include "zonekv/compactor.h"

namespace zonekv {
namespace {

struct Config {
  const char* name;
  const char* picker;
  const char* sica_order;
  bool layout;
  bool scarce_free_space;
  bool level_constraint;
  int threads;
  // Also give the compactor layout_of (the zones and one job's files): it
  // then asks for every file's zones only when the picker reads them.
  bool layout_of = false;
};

// Small options: 32 KiB memtables, 16 KiB files, L1 = 64 KiB, x4 per level.
rocksdb::Options SmallOptions() {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 32 << 10;
  o.target_file_size_base = 16 << 10;
  o.max_bytes_for_level_base = 64 << 10;
  o.max_bytes_for_level_multiplier = 4;
  o.level0_file_num_compaction_trigger = 2;
  o.num_levels = 5;
  return o;
}

void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }

class CompactorWorkload : public ::testing::TestWithParam<Config> {};

TEST_P(CompactorWorkload, LsmInvariantsHoldAndEveryKeyReadsBack) {
  const Config& c = GetParam();
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  rocksdb::Options o = SmallOptions();
  std::shared_ptr<Compactor::ListenerSlot> slot;
  ASSERT_TRUE(Compactor::PrepareOptions(&o, &slot).ok());
  auto threads = std::make_shared<ThreadJobs>();
  o.listeners.push_back(threads);
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);

  FakeZones zones(/*files_per_zone=*/4, c.scarce_free_space);
  zones.set_db(db.get());
  CompactorOptions co;
  co.picker = c.picker;
  ASSERT_TRUE(co.picker_options.Set("sica_order", c.sica_order).ok());
  co.picker_options.acc_level_constraint = c.level_constraint;
  co.threads = c.threads;
  co.max_subcompactions = 4;
  std::atomic<int> full_layouts{0}, job_layouts{0};
  if (c.layout) {
    co.layout = [&zones, &full_layouts](FsView* v) {
      ++full_layouts;
      return zones.Snapshot(v);
    };
  }
  if (c.layout_of) {
    co.layout_of = [&zones, &job_layouts](const std::vector<uint64_t>& numbers, FsView* v) {
      ++job_layouts;
      Status st = zones.Snapshot(v);
      std::erase_if(v->files, [&](const FileView& f) {
        return std::find(numbers.begin(), numbers.end(), f.hints.number) == numbers.end();
      });
      return st;
    };
  }
  std::mutex hint_mu;
  std::map<uint64_t, CompactionJobHint> open_hints;
  int hints = 0, ends = 0;
  co.on_job_start = [&](const CompactionJobHint& h) {
    std::lock_guard<std::mutex> l(hint_mu);
    // Down one level, or L0 into L0 (intra-L0, while L0 -> L1 is blocked).
    EXPECT_TRUE(h.output_level == h.input_level + 1 || (h.input_level == 0 && h.output_level == 0))
        << "L" << h.input_level << " -> L" << h.output_level;
    EXPECT_LE(h.smallest_key, h.largest_key);
    EXPECT_FALSE(h.input_files.empty());
    EXPECT_EQ(h.level_scores.size(), 5u);  // num_levels
    EXPECT_GE(h.level_scores[h.input_level], 1.0);  // the level being compacted is over its target
    EXPECT_TRUE(open_hints.emplace(h.job_id, h).second);
    threads->Begin(h.job_id);
    ++hints;
  };
  co.on_job_end = [&](uint64_t job, const Status&) {
    std::lock_guard<std::mutex> l(hint_mu);
    EXPECT_EQ(open_hints.erase(job), 1u);
    threads->End();
    ++ends;
  };
  std::unique_ptr<Compactor> compactor;
  Status s = Compactor::Start(db.get(), db->DefaultColumnFamily(), co, slot, &compactor);
  ASSERT_TRUE(s.ok()) << s.ToString();

  std::mt19937_64 rng(42);
  std::map<std::string, std::string> model;
  rocksdb::WriteOptions w;
  w.disableWAL = true;
  for (int i = 0; i < 30000; ++i) {
    char key[16];
    snprintf(key, sizeof(key), "key%06d", static_cast<int>(rng() % 5000));
    if (rng() % 5 == 0) {
      ASSERT_TRUE(db->Delete(w, key).ok());
      model.erase(key);
    } else {
      std::string value(50 + rng() % 250, '\0');
      for (char& ch : value) ch = static_cast<char>('a' + rng() % 26);
      ASSERT_TRUE(db->Put(w, key, value).ok());
      model[key] = value;
    }
  }
  ASSERT_TRUE(db->Flush(rocksdb::FlushOptions()).ok());
  s = compactor->WaitUntilIdle(60000);
  ASSERT_TRUE(s.ok()) << s.ToString();

  // LSM invariants from RocksDB's metadata.
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  int deepest = 0;
  for (const auto& level : meta.levels) {
    if (!level.files.empty()) deepest = level.level;
    if (level.level == 0) continue;
    for (size_t i = 1; i < level.files.size(); ++i) {
      EXPECT_LT(level.files[i - 1].largestkey, level.files[i].smallestkey)
          << "L" << level.level << " files " << level.files[i - 1].file_number << " and "
          << level.files[i].file_number << " overlap";
    }
  }
  EXPECT_GE(deepest, 2);
  LsmView view = LsmViewFromMetaData(meta, db->GetOptions());
  std::vector<double> scores = LevelScores(view);
  for (size_t l = 0; l < scores.size(); ++l) EXPECT_LT(scores[l], 1.0) << "L" << l << " left over its target";

  // Every key reads back, and nothing else is there.
  for (const auto& [k, v] : model) {
    std::string got;
    rocksdb::Status gs = db->Get(rocksdb::ReadOptions(), k, &got);
    ASSERT_TRUE(gs.ok()) << k << ": " << gs.ToString();
    ASSERT_EQ(got, v) << k;
  }
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  size_t n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ASSERT_EQ(model.count(it->key().ToString()), 1u) << "deleted key " << it->key().ToString() << " is back";
    ++n;
  }
  EXPECT_EQ(n, model.size());

  compactor->Stop();
  std::string metrics = compactor->Stats().ToJson().Dump();
  EXPECT_EQ(hints, ends);
  // The hint contract a file system relies on: every compaction output is
  // created on the thread that received on_job_start, before on_job_end.
  // RocksDB 7.8 does not call OnCompactionBegin for CompactFiles jobs, so
  // the hint is the only place a file system learns a job's level and range.
  EXPECT_GT(threads->attributed.load(), 0);
  EXPECT_EQ(threads->unattributed.load(), 0);
  EXPECT_EQ(threads->compaction_begin.load(), 0);
  EXPECT_TRUE(open_hints.empty());
  EXPECT_NE(metrics.find("\"failed\":0,"), std::string::npos) << metrics.substr(0, 600);
  EXPECT_NE(metrics.find("\"picker\":\"" + std::string(c.picker) + "\""), std::string::npos);
  // Jobs: {"job":N,"input_level":L,...,"picked_by":"P","s_same":...}
  std::regex job_re(R"re(\{"job":\d+,"input_level":(\d),[^}]*"picked_by":"([\w-]+)","s_same":([^,]+),)re");
  int jobs = 0, zaca_jobs = 0, intra_l0_jobs = 0;
  for (std::sregex_iterator m(metrics.begin(), metrics.end(), job_re), end; m != end; ++m) {
    ++jobs;
    int input_level = std::stoi((*m)[1]);
    bool zaca = (*m)[2] == "zaca";
    zaca_jobs += zaca ? 1 : 0;
    intra_l0_jobs += (*m)[2] == "intra-l0" ? 1 : 0;
    EXPECT_EQ((*m)[3] != "null", c.layout) << "S_same recorded iff there is a layout";
    if (std::string(c.picker) == "acc" && c.level_constraint && zaca) {
      EXPECT_GE(input_level, 2);
    }
  }
  EXPECT_GT(jobs, 10);
  EXPECT_LE(jobs, hints);
  const std::string picker = c.picker;
  // zaca picks every job but L0's merges while L0 -> L1 is blocked.
  EXPECT_EQ(zaca_jobs, picker == "zaca" ? jobs - intra_l0_jobs : picker == "acc" && c.scarce_free_space ? zaca_jobs : 0);
  if (picker == "acc" && c.scarce_free_space) {
    EXPECT_GT(zaca_jobs, 0);
  }
  if (c.layout_of) {
    // Every job's S_same and S_inval come from its own files; every SST's
    // zones are copied only for picks that read them (zaca; acc below its
    // turning point).
    EXPECT_GT(job_layouts.load(), jobs);
    if (picker == "sica" || (picker == "acc" && !c.scarce_free_space)) {
      EXPECT_EQ(full_layouts.load(), 0);
    } else {
      EXPECT_GT(full_layouts.load(), 0);
    }
  }  // RocksDB 7.8 forms no subcompactions under kCompactionStyleNone: every
  // job reports exactly one (OnSubcompactionBegin fires for the single one).
  EXPECT_NE(metrics.find("\"subcompactions\":" + std::to_string(jobs) + ","), std::string::npos)
      << metrics.substr(0, 700);
  // Subcompactions never form under kCompactionStyleNone (RocksDB 7.8).

}

INSTANTIATE_TEST_SUITE_P(
    Pickers, CompactorWorkload,
    ::testing::Values(Config{"sica", "sica", "largest", false, false, true, 1},
                      Config{"sica_min_overlap_layout", "sica", "min-overlap", true, false, true, 2},
                      Config{"zaca", "zaca", "largest", true, false, true, 2},
                      Config{"acc_plenty", "acc", "largest", true, false, true, 2},
                      Config{"acc_scarce", "acc", "largest", true, true, true, 2},
                      Config{"acc_scarce_no_level_constraint", "acc", "largest", true, true, false, 1},
                      Config{"sica_layout_of", "sica", "largest", true, false, true, 2, true},
                      Config{"acc_plenty_layout_of", "acc", "largest", true, false, true, 2, true},
                      Config{"acc_scarce_layout_of", "acc", "largest", true, true, true, 2, true}),
    [](const ::testing::TestParamInfo<Config>& info) { return std::string(info.param.name); });

std::string Key(const char* fmt, int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), fmt, i);
  return buf;
}

// As RocksDB's own scheduling: one job at a time while compaction is not
// behind, although two disjoint jobs are ready (L0 -> L1 on one key range,
// L2 -> L3 on another) and four threads could run them.
TEST(CompactorSchedule, RunsOneJobAtATimeUnlessBehind) {
  TempDir dir;
  rocksdb::Options o = SmallOptions();  // L0 trigger 2; speed-up at min(4, 2 + (20 - 2) / 4) = 4 L0 files
  o.level0_slowdown_writes_trigger = 20;
  std::shared_ptr<Compactor::ListenerSlot> slot;
  ASSERT_TRUE(Compactor::PrepareOptions(&o, &slot).ok());
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  CompactorOptions co;
  co.threads = 4;
  std::unique_ptr<Compactor> compactor;
  ASSERT_TRUE(Compactor::Start(db.get(), db->DefaultColumnFamily(), co, slot, &compactor).ok());
  compactor->Pause();

  // L2: about 1.5x its 256 KiB target, keys a*; values incompressible.
  std::mt19937_64 rng(1);
  std::string value(200, '\0');
  auto fresh = [&]() -> const std::string& {
    for (char& ch : value) ch = static_cast<char>(rng());
    return value;
  };
  rocksdb::CompactionOptions move;
  move.output_file_size_limit = o.target_file_size_base;
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(db->Put({}, Key("a%05d", i), fresh()).ok());
    if (i % 400 == 399) {
      ASSERT_TRUE(db->Flush({}).ok());
      rocksdb::ColumnFamilyMetaData meta;
      db->GetColumnFamilyMetaData(&meta);
      std::vector<std::string> l0;
      for (const auto& f : meta.levels[0].files) l0.push_back(f.name);
      ASSERT_TRUE(db->CompactFiles(move, l0, 2).ok());
    }
  }
  // L0: two files of keys m*, at the compaction trigger.
  for (int f = 0; f < 2; ++f) {
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(db->Put({}, Key("m%05d", f * 50 + i), fresh()).ok());
    ASSERT_TRUE(db->Flush({}).ok());
  }
  rocksdb::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  LsmView view = LsmViewFromMetaData(meta, db->GetOptions());
  std::vector<double> scores = LevelScores(view);
  ASSERT_GE(scores[0], 1.0);
  ASSERT_GE(scores[2], 1.0);
  ASSERT_FALSE(CompactionBehind(view));

  compactor->Resume();
  Status s = compactor->WaitUntilIdle(60000);
  ASSERT_TRUE(s.ok()) << s.ToString();
  CompactorStats st = compactor->Stats();
  EXPECT_GE(st.metrics.all.compactions, 2u);
  EXPECT_EQ(st.external->parallel_jobs, 0u);
  // The threads that look at one LSM share one copy of RocksDB's metadata:
  // one read at Resume and, per job, one for its outputs and one for the
  // LSM it left (four threads reading each would make about five per job).
  EXPECT_LE(st.external->lsm_reads, 2 * st.metrics.all.compactions + 1);
}

TEST(CompactorStart, RejectsMisconfigurationWithActionableErrors) {
  TempDir dir;
  rocksdb::Options o = SmallOptions();
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir.path(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::unique_ptr<Compactor> c;
  CompactorOptions co;
  Status s = Compactor::Start(db.get(), db->DefaultColumnFamily(), co, nullptr, &c);
  EXPECT_NE(s.message().find("PrepareOptions"), std::string::npos) << s.ToString();
  auto cutter = std::make_shared<GrandparentCutter>(nullptr);
  s = Compactor::Start(db.get(), db->DefaultColumnFamily(), co, std::make_shared<Compactor::ListenerSlot>(cutter), &c);
  EXPECT_NE(s.message().find("sst_partitioner_factory"), std::string::npos) << s.ToString();
  db.reset();
  o.sst_partitioner_factory = cutter;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir.path(), &raw).ok());
  db.reset(raw);
  s = Compactor::Start(db.get(), db->DefaultColumnFamily(), co, std::make_shared<Compactor::ListenerSlot>(cutter), &c);
  EXPECT_NE(s.message().find("kCompactionStyleNone"), std::string::npos) << s.ToString();
  db.reset();

  TempDir dir2;
  rocksdb::Options o2 = SmallOptions();
  std::shared_ptr<Compactor::ListenerSlot> slot;
  ASSERT_TRUE(Compactor::PrepareOptions(&o2, &slot).ok());
  ASSERT_TRUE(rocksdb::DB::Open(o2, dir2.path(), &raw).ok());
  db.reset(raw);
  co.picker = "zaca";
  s = Compactor::Start(db.get(), db->DefaultColumnFamily(), co, slot, &c);
  EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument));
  EXPECT_NE(s.message().find("layout"), std::string::npos) << s.ToString();
  co.picker = "sica";
  co.threads = -1;
  EXPECT_TRUE(Compactor::Start(db.get(), db->DefaultColumnFamily(), co, slot, &c).Is(Status::Code::kInvalidArgument));
  co.threads = 0;
  ASSERT_TRUE(Compactor::Start(db.get(), db->DefaultColumnFamily(), co, slot, &c).ok());
  EXPECT_NE(c->Stats().ToJson().Dump().find("\"threads\":1"), std::string::npos);  // 2 jobs -> 1 compaction slot
  EXPECT_TRUE(c->WaitUntilIdle(10000).ok());
  c->Stop();
  c->Stop();  // idempotent
}

}  // namespace
}  // namespace zonekv
