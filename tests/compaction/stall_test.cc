// RocksDB 7.8 applies the L0 slowdown and stop triggers under
// compaction_style=kCompactionStyleNone (nothing compacts, yet writers are
// throttled, then stopped), and lifts them only with disable_auto_compactions.
// The pending-compaction-bytes stalls, though, do not apply under None.
// This is what lets an external compactor keep RocksDB's write stalls.
#include <gtest/gtest.h>

#include <rocksdb/db.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>

#include "temp_db.h"

namespace zonekv {
namespace {

struct Step {
  uint64_t l0_files = 0;
  uint64_t delayed_write_rate = 0;  // rocksdb.actual-delayed-write-rate, 0 = no slowdown
  uint64_t pending_bytes = 0;       // rocksdb.estimate-pending-compaction-bytes
};

// Flushes one small write at a time (slowdown at 4 L0 files, stop at 6) until
// a no_slowdown write is refused (*refused) or after `max_flushes`. Returns the
// state after each flush.
std::vector<Step> FillL0(rocksdb::Options o, int max_flushes, bool* refused) {
  TempDir dir;
  o.create_if_missing = true;
  o.level0_file_num_compaction_trigger = 2;
  o.level0_slowdown_writes_trigger = 4;
  o.level0_stop_writes_trigger = 6;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(o, dir.path(), &raw);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<rocksdb::DB> db(raw);
  rocksdb::WriteOptions w;
  w.no_slowdown = true;
  rocksdb::FlushOptions f;
  f.allow_write_stall = true;  // Flush must not wait for the stall to clear
  *refused = false;
  std::vector<Step> steps;
  for (int i = 0; i < max_flushes; ++i) {
    s = db->Put(w, "key" + std::to_string(i), std::string(100, 'v'));
    if (s.IsIncomplete()) {
      *refused = true;
      break;
    }
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(db->Flush(f).ok());
    Step step;
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(&meta);
    step.l0_files = meta.levels[0].files.size();
    EXPECT_TRUE(db->GetIntProperty("rocksdb.actual-delayed-write-rate", &step.delayed_write_rate));
    EXPECT_TRUE(db->GetIntProperty("rocksdb.estimate-pending-compaction-bytes", &step.pending_bytes));
    steps.push_back(step);
  }
  return steps;
}

TEST(WriteStall, L0TriggersApplyUnderCompactionStyleNone) {
  rocksdb::Options o;
  o.compaction_style = rocksdb::kCompactionStyleNone;
  bool refused = false;
  std::vector<Step> steps = FillL0(o, 20, &refused);
  ASSERT_EQ(steps.size(), 6u);
  EXPECT_TRUE(refused);  // stopped at level0_stop_writes_trigger
  for (const Step& s : steps) {
    EXPECT_EQ(s.delayed_write_rate > 0, s.l0_files >= 4 && s.l0_files < 6) << s.l0_files << " L0 files";
    // RocksDB estimates pending compaction bytes for leveled style only, so
    // the soft/hard pending-bytes stalls never fire under kCompactionStyleNone.
    EXPECT_EQ(s.pending_bytes, 0u);
  }
}

TEST(WriteStall, DisableAutoCompactionsLiftsThem) {
  rocksdb::Options o;
  o.disable_auto_compactions = true;
  bool refused = false;
  std::vector<Step> steps = FillL0(o, 10, &refused);
  EXPECT_FALSE(refused);
  ASSERT_EQ(steps.size(), 10u);
  EXPECT_EQ(steps.back().l0_files, 10u);
  for (const Step& s : steps) EXPECT_EQ(s.delayed_write_rate, 0u);
  EXPECT_GT(steps.back().pending_bytes, 0u);  // leveled style does estimate them
}

}  // namespace
}  // namespace zonekv
