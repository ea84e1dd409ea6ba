// ZoneFs::Stats(): the typed fields are set by real work (writes, cleaning),
// and ToJson writes exactly the fs.* keys of docs/metrics.md, in order, with
// the fields' values.
#include <chrono>
#include <initializer_list>
#include <thread>

#include <rocksdb/file_system.h>

#include "fs_test_util.h"

namespace zonekv {
namespace {

using rocksdb::IOOptions;
using test::Pattern;
using test::WriteFile;

constexpr uint64_t kBlock = 4096;

uint64_t RoundUpToBlock(uint64_t n) { return (n + kBlock - 1) / kBlock * kBlock; }

// `j` rebuilt from `keys`, in that order: its Dump equals j's exactly when j
// has these keys and no other, in this order.
Json Rebuilt(const Json& j, std::initializer_list<const char*> keys) {
  Json out = Json::Object();
  for (const char* k : keys) {
    if (const Json* v = j.Find(k)) out.Set(k, *v);
  }
  return out;
}

double Num(const Json& j, const char* key) {
  const Json* v = j.Find(key);
  EXPECT_NE(v, nullptr) << "no key " << key << " in " << j.Dump();
  return v == nullptr ? -1 : v->number();
}

// Every number ToJson writes is the field (or method) it stands for.
void ExpectJsonMatchesFields(const ZoneFsStats& st) {
  Json j = st.ToJson();
  auto d = [](uint64_t v) { return static_cast<double>(v); };
  EXPECT_EQ(Num(j, "host_write_bytes"), d(st.host_write_bytes));
  const Json& zc = *j.Find("zc_copy_bytes");
  EXPECT_EQ(Num(zc, "blob"), d(st.zc_copy_bytes(FileKind::kBlob)));
  EXPECT_EQ(Num(zc, "sst"), d(st.zc_copy_bytes(FileKind::kSst)));
  EXPECT_EQ(Num(zc, "wal"), d(st.zc_copy_bytes(FileKind::kWal)));
  EXPECT_EQ(Num(zc, "other"), d(st.zc_copy_bytes(FileKind::kOther) + st.zc_copy_bytes(FileKind::kManifest)));
  EXPECT_EQ(Num(zc, "total"), d(st.zc_copy_bytes()));
  EXPECT_EQ(Num(j, "resets_runtime"), d(st.resets_runtime));
  EXPECT_EQ(Num(j, "resets_zc"), d(st.resets_zc));
  EXPECT_EQ(Num(j, "ezrc"), d(st.resets_runtime + st.resets_zc));
  EXPECT_EQ(Num(j, "r_wp"), st.r_wp());
  EXPECT_EQ(Num(j, "r_wp_min"), st.r_wp_min);
  EXPECT_EQ(Num(j, "fs_waf"), st.fs_waf());
  EXPECT_EQ(Num(j, "space_used_ratio"), st.space_used_ratio());
  EXPECT_EQ(Num(j, "free_ratio"), st.free_ratio());
  EXPECT_EQ(Num(j, "free_bytes"), d(st.free_bytes));
  EXPECT_EQ(Num(j, "used_bytes"), d(st.used_bytes));
  EXPECT_EQ(Num(j, "reclaimable_bytes"), d(st.reclaimable_bytes));
  EXPECT_EQ(Num(j, "io_block_time_s"), d(st.io_block_us) / 1e6);
  const Json& alloc = *j.Find("policy_time_us")->Find("alloc");
  EXPECT_EQ(Num(alloc, "calls"), d(st.alloc_time.calls));
  EXPECT_EQ(Num(alloc, "total_us"), d(st.alloc_time.total_ns) / 1e3);
  EXPECT_EQ(Num(alloc, "max_us"), d(st.alloc_time.max_ns) / 1e3);
  EXPECT_EQ(Num(j, "finishes"), d(st.finishes));
  EXPECT_EQ(Num(j, "finishes_avoided"), d(st.finishes_avoided));
  EXPECT_EQ(Num(j, "nospace_errors"), d(st.nospace_errors));
  EXPECT_EQ(Num(j, "zone_preemptions"), d(st.zone_preemptions));
  EXPECT_EQ(Num(j, "zc_passes"), d(st.zc_passes));
  EXPECT_EQ(Num(j, "zc_emergency_passes"), d(st.zc_emergency_passes));
  EXPECT_EQ(Num(j, "files"), d(st.files));
  EXPECT_EQ(Num(j, "zones_empty"), st.zones_empty);
  EXPECT_EQ(Num(j, "zones_full"), st.zones_full);
  EXPECT_EQ(Num(j, "journal_rolls"), d(st.journal_rolls));
  const Json& lock = *j.Find("lock");
  EXPECT_EQ(Num(lock, "acquisitions"), d(st.lock.acquisitions));
  EXPECT_EQ(Num(*lock.Find("hold_us"), "max"), d(st.lock.hold.max_ns) / 1e3);
  EXPECT_EQ(Num(lock, "device_calls_held"), d(st.lock.device_calls_held));
  EXPECT_EQ(Num(lock, "reset_reader_waits"), d(st.lock.reset_reader_waits));
  const Json& journal = *j.Find("journal");
  EXPECT_EQ(Num(journal, "syncs"), d(st.journal.syncs));
  EXPECT_EQ(Num(journal, "flushes"), d(st.journal.flushes));
  EXPECT_EQ(Num(journal, "syncs_per_flush"), st.journal.syncs_per_flush());
  EXPECT_EQ(Num(journal, "writes"), d(st.journal.writes));
  EXPECT_EQ(Num(journal, "records_per_write"), st.journal.records_per_write());
  const Json& space = *j.Find("space");
  EXPECT_EQ(Num(space, "reserve_zones"), d(st.space.reserve_zones));
  EXPECT_EQ(Num(space, "recovery_entries"), d(st.space.recovery_entries));
  EXPECT_EQ(Num(space, "new_data_rate"), d(st.space.new_data_rate));
  EXPECT_EQ(Num(space, "paced_writes"), d(st.space.paced_writes));
  EXPECT_EQ(Num(space, "pace_wait_s"), static_cast<double>(st.space.pace_wait_us) / 1e6);
}

TEST(ZoneFsStatsTest, JsonHasTheKeysOfDocsMetricsInOrder) {
  auto dev = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=6,max_active=6");
  auto fs = FormatAndMount(dev, ZoneFsOptions());
  auto rfs = fs->file_system();
  ASSERT_TRUE(WriteFile(rfs.get(), "/000001.sst", Pattern(1, 1536 << 10)).ok());
  ASSERT_TRUE(WriteFile(rfs.get(), "/000002.log", Pattern(2, 10000)).ok());
  Json j = fs->Stats().ToJson();
  EXPECT_EQ(Rebuilt(j, {"host_write_bytes", "zc_copy_bytes", "zc_copy_sst_by_level", "resets_runtime", "resets_zc",
                        "ezrc", "r_wp", "r_wp_min", "fs_waf", "space_used_ratio", "free_ratio", "free_bytes", "used_bytes",
                        "reclaimable_bytes", "io_block_time_s", "policy_time_us", "finishes", "finishes_avoided", "nospace_errors",
                        "zone_preemptions", "alloc_reasons", "zc_passes", "zc_emergency_passes", "files", "sst_index", "zones_empty",
                        "zones_full", "journal_rolls", "lock", "journal", "space", "space"})
                .Dump(),
            j.Dump());
  const Json& zc = *j.Find("zc_copy_bytes");
  EXPECT_EQ(Rebuilt(zc, {"blob", "sst", "wal", "other", "total"}).Dump(), zc.Dump());
  const Json& by_level = *j.Find("zc_copy_sst_by_level");
  EXPECT_EQ(Rebuilt(by_level, {"L0", "L1", "L2", "L3", "L4", "L5", "L6", "unknown"}).Dump(), by_level.Dump());
  const Json& policy = *j.Find("policy_time_us");
  EXPECT_EQ(Rebuilt(policy, {"alloc", "zc", "reset"}).Dump(), policy.Dump());
  for (const char* family : {"alloc", "zc", "reset"}) {
    const Json& t = *policy.Find(family);
    EXPECT_EQ(Rebuilt(t, {"calls", "total_us", "max_us"}).Dump(), t.Dump()) << family;
  }
  const Json& lock = *j.Find("lock");
  EXPECT_EQ(Rebuilt(lock, {"hold_us", "wait_us", "acquisitions", "device_calls_held", "reset_reader_waits"}).Dump(),
            lock.Dump());
  for (const char* h : {"hold_us", "wait_us"}) {
    const Json& q = *lock.Find(h);
    EXPECT_EQ(Rebuilt(q, {"p50", "p99", "p999", "max", "over_1ms"}).Dump(), q.Dump()) << h;
  }
  const Json& journal = *j.Find("journal");
  EXPECT_EQ(Rebuilt(journal, {"syncs", "flushes", "syncs_per_flush", "writes", "records_per_write"}).Dump(),
            journal.Dump());
}

TEST(ZoneFsStatsTest, WritesSetTheFieldsAndTheJsonCarriesThem) {
  auto dev = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=6,max_active=6");
  ZoneFsOptions opts;
  opts.policy.zc = "off";
  auto fs = FormatAndMount(dev, opts);
  auto rfs = fs->file_system();
  const uint64_t a = 1536 << 10, b = 10000;
  ASSERT_TRUE(WriteFile(rfs.get(), "/000001.sst", Pattern(1, a)).ok());
  ASSERT_TRUE(WriteFile(rfs.get(), "/000002.log", Pattern(2, b)).ok());
  ZoneFsStats st = fs->Stats();
  EXPECT_EQ(st.host_write_bytes, a + b);
  EXPECT_EQ(st.files, 2u);
  EXPECT_EQ(st.used_bytes, a + RoundUpToBlock(b));
  EXPECT_EQ(st.reclaimable_bytes, 0u);
  EXPECT_EQ(st.zc_copy_bytes(), 0u);
  EXPECT_EQ(st.fs_waf(), 1.0);
  const uint64_t zone = 1 << 20, data_zones = 16 - opts.meta_zones;
  EXPECT_EQ(st.data_capacity_bytes, data_zones * zone);
  EXPECT_EQ(st.free_bytes + st.used_bytes + st.reclaimable_bytes, st.data_capacity_bytes);
  EXPECT_DOUBLE_EQ(st.free_ratio(), static_cast<double>(st.free_bytes) / static_cast<double>(st.data_capacity_bytes));
  EXPECT_EQ(st.free_ratio(), fs->View(ViewFiles::kNone).free_ratio());  // nothing runs in the background
  EXPECT_GE(st.written_capacity_bytes, 2 * zone);                      // the SST spans two zones
  EXPECT_EQ(st.zones_empty + st.written_capacity_bytes / zone, data_zones);
  EXPECT_GT(st.alloc_time.calls, 0u);
  EXPECT_GT(st.lock.acquisitions, 0u);
  EXPECT_EQ(st.lock.device_calls_held, 0u);
  EXPECT_GE(st.journal.syncs, 2u);  // each file's Sync
  EXPECT_GE(st.journal.flushes, 1u);
  EXPECT_FALSE(st.lock.profile);
  ExpectJsonMatchesFields(st);

  // Deleting the SST: its zones hold no valid data and are reset at once.
  ASSERT_TRUE(rfs->DeleteFile("/000001.sst", IOOptions(), nullptr).ok());
  st = fs->Stats();
  EXPECT_EQ(st.files, 1u);
  EXPECT_GE(st.resets_runtime, 1u);
  EXPECT_EQ(st.ezrc(), st.resets_runtime + st.resets_zc + st.finishes_avoided);
  EXPECT_GT(st.r_wp(), 0.0);
  EXPECT_LE(st.r_wp(), 1.0);
  ExpectJsonMatchesFields(st);
}

// Back-pressure (SetNewDataRate): a flush's SST waits for the rate, a WAL
// and a compaction's SST do not, and a rate of 0 lifts it.
TEST(ZoneFsStatsTest, NewDataRatePacesFlushesOnly) {
  auto dev = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=6,max_active=6");
  ZoneFsOptions opts;
  opts.policy.zc = "off";
  auto fs = FormatAndMount(dev, opts);
  auto rfs = fs->file_system();
  fs->SetNewDataRate(1 << 20);  // 1 MiB/s; the bucket holds a tenth of a second
  EXPECT_EQ(fs->Stats().space.new_data_rate, 1u << 20);
  auto write_as = [&](int level, const char* name) {
    FileHints h;
    h.kind = FileKind::kSst;
    h.level = level;
    ZoneFs::SetThreadJobHint(h);
    rocksdb::IOStatus s = WriteFile(rfs.get(), name, Pattern(1, 256 << 10));
    ZoneFs::ClearThreadJobHint();
    return s;
  };
  ASSERT_TRUE(WriteFile(rfs.get(), "/000001.log", Pattern(2, 512 << 10)).ok());
  ASSERT_TRUE(write_as(2, "/000002.sst").ok());  // a compaction's output
  EXPECT_EQ(fs->Stats().space.paced_writes, 0u);
  ASSERT_TRUE(write_as(0, "/000003.sst").ok());  // a flush: 256 KiB > the bucket
  ZoneFsStats st = fs->Stats();
  EXPECT_GE(st.space.paced_writes, 1u);
  EXPECT_GT(st.space.pace_wait_us, 0u);
  ExpectJsonMatchesFields(st);
  fs->SetNewDataRate(0);
  ASSERT_TRUE(write_as(0, "/000004.sst").ok());
  EXPECT_EQ(fs->Stats().space.paced_writes, st.space.paced_writes);
  EXPECT_EQ(fs->Stats().space.new_data_rate, 0u);
}

// What the bench's sampler and report read: ZC copy bytes, resets and the
// free ratio, after the cleaner migrated live blob data.
TEST(ZoneFsStatsTest, CleaningSetsCopyBytesResetsAndFreeRatio) {
  auto dev = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=14,max_active=14,auto_close=0");
  ZoneFsOptions opts;
  opts.policy.zc = "greedy";
  opts.policy.zc_trigger_free_pct = 101;  // always clean
  opts.zc_interval_ms = 10;
  ASSERT_TRUE(ZoneFs::Format(dev.get(), opts).ok());
  // Fill without cleaning, so that zones hold interleaved live and dead files.
  ZoneFsOptions quiet = opts;
  quiet.policy.zc = "off";
  std::shared_ptr<ZoneFs> fs;
  ASSERT_TRUE(ZoneFs::Mount(dev, quiet, &fs).ok());
  auto rfs = fs->file_system();
  auto blob = [](int i) { return "/" + std::to_string(100 + i) + ".blob"; };
  for (int i = 0; i < 16; i++) ASSERT_TRUE(WriteFile(rfs.get(), blob(i), Pattern(i, 256 << 10)).ok());
  for (int i = 0; i < 16; i += 2) ASSERT_TRUE(rfs->DeleteFile(blob(i), IOOptions(), nullptr).ok());
  ZoneFsStats before = fs->Stats();
  EXPECT_EQ(before.zc_copy_bytes(), 0u);
  EXPECT_EQ(before.resets_zc, 0u);
  EXPECT_GT(before.reclaimable_bytes, 0u);
  rfs.reset();
  fs.reset();

  ASSERT_TRUE(ZoneFs::Mount(dev, opts, &fs).ok());
  ZoneFsStats st;
  for (int i = 0; i < 500; i++) {
    st = fs->Stats();
    if (st.resets_zc >= 2 && st.zc_passes > 0) break;  // a pass is counted when it ends
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GE(st.resets_zc, 2u);
  EXPECT_GT(st.zc_passes, 0u);
  // Only blob files were live: everything moved is blob data, in whole blocks.
  EXPECT_GT(st.zc_copy_bytes(FileKind::kBlob), 0u);
  EXPECT_EQ(st.zc_copy_bytes(), st.zc_copy_bytes(FileKind::kBlob));
  EXPECT_EQ(st.zc_copy_bytes() % kBlock, 0u);
  // The counters start at the mount, which wrote no file data.
  EXPECT_EQ(st.host_write_bytes, 0u);
  EXPECT_EQ(st.fs_waf(), 1.0);
  // Each victim's dead half became free space.
  EXPECT_GT(st.free_ratio(), before.free_ratio());
  EXPECT_LT(st.reclaimable_bytes, before.reclaimable_bytes);
  EXPECT_EQ(st.free_bytes + st.used_bytes + st.reclaimable_bytes, st.data_capacity_bytes);
  ExpectJsonMatchesFields(st);
}

TEST(ZoneFsStatsTest, DerivedValuesOfAnEmptyAndAHandMadeRecord) {
  ZoneFsStats st;
  EXPECT_EQ(st.fs_waf(), 1.0);
  EXPECT_EQ(st.r_wp(), 0.0);
  EXPECT_EQ(st.free_ratio(), 0.0);
  EXPECT_EQ(st.space_used_ratio(), 0.0);
  EXPECT_EQ(st.space_amp(), 0.0);
  EXPECT_EQ(st.journal.syncs_per_flush(), 0.0);
  st.host_write_bytes = 1000;
  st.zc_copy_bytes_by_kind[static_cast<int>(FileKind::kSst)] = 200;
  st.zc_copy_bytes_by_kind[static_cast<int>(FileKind::kManifest)] = 50;
  st.resets_runtime = 4;
  st.r_wp_sum = 3;
  st.free_bytes = 100;
  st.used_bytes = 200;
  st.reclaimable_bytes = 100;
  st.data_capacity_bytes = 800;
  st.written_capacity_bytes = 600;
  st.io_block_us = 2500000;
  EXPECT_EQ(st.zc_copy_bytes(), 250u);
  EXPECT_EQ(st.zc_copy_other_bytes(), 50u);
  EXPECT_EQ(st.fs_waf(), 1.25);
  EXPECT_EQ(st.r_wp(), 0.75);
  EXPECT_EQ(st.free_ratio(), 0.25);
  EXPECT_EQ(st.space_used_ratio(), 0.75);
  EXPECT_EQ(st.space_amp(), 1.5);
  EXPECT_EQ(st.io_block_time_s(), 2.5);
  Json j = st.ToJson();
  EXPECT_EQ(j.Find("zc_copy_bytes")->Find("other")->number(), 50);
  EXPECT_EQ(j.Find("zc_copy_bytes")->Find("total")->number(), 250);
  EXPECT_EQ(j.Find("fs_waf")->number(), 1.25);
  EXPECT_EQ(j.Find("io_block_time_s")->number(), 2.5);
  ExpectJsonMatchesFields(st);
}

}  // namespace
}  // namespace zonekv
