// ZoneFs engine tests through its rocksdb::FileSystem, without RocksDB:
// zone accounting, runtime reset, cleaning, the open-zone limit with many
// writers, and NoSpace on a full device.
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <utility>

#include <rocksdb/file_system.h>

#include "fs_test_util.h"

namespace zonekv {
namespace {

using rocksdb::FileOptions;
using rocksdb::IOOptions;
using test::Pattern;
using test::ReadFile;
using test::WriteFile;

std::string BlobName(int i) { return "/" + std::to_string(100 + i) + ".blob"; }

uint64_t ValidBytes(const FsView& v) {
  uint64_t n = 0;
  for (const auto& z : v.zones) n += z.valid_bytes;
  return n;
}

// Found by `zonekv crashtest`: with max_active 3 and a cleaning policy,
// one active zone was left for data, and RocksDB's second open file (the
// MANIFEST beside the WAL) failed with NoSpace at once. A read-write mount
// now refuses such a device and says why; read-only mounts still work.
TEST(EngineTest, MountRefusesTooFewActiveZonesForData) {
  for (uint32_t active : {2u, 3u, 4u}) {
    auto dev = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=" + std::to_string(active) +
                              ",max_active=" + std::to_string(active));
    ZoneFsOptions opts;
    opts.policy.zc = "greedy";  // cleans: one active zone for the journal, one for the cleaner
    ASSERT_TRUE(ZoneFs::Format(dev.get(), opts).ok());
    std::shared_ptr<ZoneFs> fs;
    Status s = ZoneFs::Mount(dev, opts, &fs);
    if (active >= 2 + kMinDataActiveZones) {
      EXPECT_TRUE(s.ok()) << active << ": " << s.ToString();
      continue;
    }
    EXPECT_TRUE(s.Is(Status::Code::kInvalidArgument)) << active << ": " << s.ToString();
    EXPECT_NE(s.message().find("allows " + std::to_string(active) + " active zones"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("at least 4"), std::string::npos) << s.message();
    ZoneFsOptions ro = opts;
    ro.read_only = true;
    EXPECT_TRUE(ZoneFs::Mount(dev, ro, &fs).ok()) << active;
    fs.reset();
    opts.policy.zc = "off";  // no cleaner: the journal's zone only
    s = ZoneFs::Mount(dev, opts, &fs);
    EXPECT_EQ(s.ok(), active >= 1 + kMinDataActiveZones) << active << ": " << s.ToString();
  }
}

TEST(EngineTest, AccountingResetAndRemount) {
  auto dev = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=6,max_active=6");
  ZoneFsOptions opts;
  auto fs = FormatAndMount(dev, opts);
  auto rfs = fs->file_system();
  // 1.5 zones, then a small file with a partial last block.
  std::string a = Pattern(1, 1536 << 10), b = Pattern(2, 10000);
  ASSERT_TRUE(WriteFile(rfs.get(), "/000001.sst", a).ok());
  ASSERT_TRUE(WriteFile(rfs.get(), "/000002.log", b).ok());
  FsView v = fs->View();
  EXPECT_EQ(ValidBytes(v), a.size() + ((b.size() + 4095) / 4096 * 4096));
  const FileView* fa = nullptr;
  for (const auto& f : v.files) if (f.name == "/000001.sst") fa = &f;
  ASSERT_NE(fa, nullptr);
  EXPECT_EQ(fa->hints.kind, FileKind::kSst);
  EXPECT_EQ(fa->bytes_per_zone.size(), 2u);
  EXPECT_EQ(FsckText(*fs), "");
  // Remount: the same files and accounting come back from the journal.
  rfs.reset();
  fs.reset();
  ASSERT_TRUE(ZoneFs::Mount(dev, opts, &fs).ok());
  rfs = fs->file_system();
  EXPECT_EQ(ReadFile(rfs.get(), "/000001.sst"), a);
  EXPECT_EQ(ReadFile(rfs.get(), "/000002.log"), b);
  EXPECT_EQ(ValidBytes(fs->View()), a.size() + ((b.size() + 4095) / 4096 * 4096));
  // Deleting frees the zones: eager reset empties every zone without valid data.
  ASSERT_TRUE(rfs->DeleteFile("/000001.sst", IOOptions(), nullptr).ok());
  ASSERT_TRUE(rfs->DeleteFile("/000002.log", IOOptions(), nullptr).ok());
  v = fs->View();
  for (const auto& z : v.zones) EXPECT_TRUE(z.empty()) << "zone " << z.id;
  EXPECT_GE(fs->Stats().ToJson().Find("resets_runtime")->number(), 2);
  EXPECT_EQ(FsckText(*fs), "");
}

TEST(EngineTest, ManyWritersWithFewOpenZones) {
  // max_open=4 leaves 2 zones for data writers; 12 concurrent writers must
  // all finish (idle writers lose their zone to others, nobody waits forever).
  auto dev = OpenTestDevice("ram:zones=40,zone_size=1M,max_open=4,max_active=4,auto_close=0");
  ZoneFsOptions opts;
  auto fs = FormatAndMount(dev, opts);
  auto rfs = fs->file_system();
  std::vector<std::thread> threads;
  std::vector<rocksdb::IOStatus> st(12);
  for (int t = 0; t < 12; t++) {
    threads.emplace_back([&, t] {
      std::string data = Pattern(100 + t, 700 << 10);
      st[t] = WriteFile(rfs.get(), "/w" + std::to_string(t) + ".sst", data, 4096 * 3);
    });
  }
  for (auto& t : threads) t.join();
  for (int t = 0; t < 12; t++) {
    EXPECT_TRUE(st[t].ok()) << t << ": " << st[t].ToString();
    EXPECT_EQ(ReadFile(rfs.get(), "/w" + std::to_string(t) + ".sst"), Pattern(100 + t, 700 << 10));
  }
  EXPECT_EQ(FsckText(*fs), "");
}

// Each zone's youngest blob file, derived from the files (what ZoneView::ybiz must say).
std::map<uint32_t, uint64_t> YbizFromFiles(const FsView& v) {
  std::map<uint32_t, uint64_t> out;
  for (const auto& f : v.files) {
    if (f.hints.kind != FileKind::kBlob) continue;
    for (const auto& [z, bytes] : f.bytes_per_zone) out[z] = std::max(out[z], f.hints.number);
  }
  return out;
}

std::map<uint32_t, uint64_t> YbizOfZones(const FsView& v) {
  std::map<uint32_t, uint64_t> out;
  for (const auto& z : v.zones) {
    if (z.ybiz != 0) out[z.id] = z.ybiz;
  }
  return out;
}

TEST(EngineTest, YoungestBlobFileIsKeptPerZoneWithoutReadingFiles) {
  auto dev = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=14,max_active=14");
  ZoneFsOptions opts;
  opts.policy.blob_alloc = "baza";
  opts.policy.zc = "off";
  auto fs = FormatAndMount(dev, opts);
  auto rfs = fs->file_system();
  // Four 384 KiB blob files in creation order: 100 and 101 share zone A,
  // 101 crosses into zone B, which 102 and 103 share.
  for (int i = 0; i < 4; i++) ASSERT_TRUE(WriteFile(rfs.get(), BlobName(i), Pattern(i, 384 << 10)).ok());
  FsView full = fs->View();
  FsView zones_only = fs->View(ViewFiles::kNone);
  EXPECT_TRUE(zones_only.files.empty());
  std::map<uint32_t, uint64_t> want = YbizFromFiles(full);
  ASSERT_EQ(want.size(), 2u);
  EXPECT_EQ(std::prev(want.end())->second, 103u);
  EXPECT_EQ(YbizOfZones(zones_only), want);
  // Deleting the youngest file makes the next youngest the zone's YBIZ.
  ASSERT_TRUE(rfs->DeleteFile(BlobName(3), IOOptions(), nullptr).ok());
  want = YbizFromFiles(fs->View());
  EXPECT_EQ(std::prev(want.end())->second, 102u);
  EXPECT_EQ(YbizOfZones(fs->View(ViewFiles::kNone)), want);
  // A file renamed to a blob name becomes a blob file of its zones, with
  // its number; renamed away, it stops being one.
  ASSERT_TRUE(WriteFile(rfs.get(), "/staging.tmp", Pattern(9, 100 << 10)).ok());
  ASSERT_TRUE(rfs->RenameFile("/staging.tmp", "/000200.blob", IOOptions(), nullptr).ok());
  want = YbizFromFiles(fs->View());
  EXPECT_EQ(YbizOfZones(fs->View(ViewFiles::kNone)), want);
  bool found = false;
  for (const auto& [z, n] : want) found = found || n == 200;
  EXPECT_TRUE(found);
  EXPECT_EQ(FsckText(*fs), "");
  ASSERT_TRUE(rfs->RenameFile("/000200.blob", "/staging.tmp", IOOptions(), nullptr).ok());
  want = YbizFromFiles(fs->View());
  EXPECT_EQ(YbizOfZones(fs->View(ViewFiles::kNone)), want);
  for (const auto& [z, n] : want) EXPECT_NE(n, 200u);
  EXPECT_EQ(FsckText(*fs), "");
  // Remount rebuilds the same accounting from the journal.
  rfs.reset();
  fs.reset();
  ASSERT_TRUE(ZoneFs::Mount(dev, opts, &fs).ok());
  EXPECT_EQ(YbizOfZones(fs->View(ViewFiles::kNone)), want);
  EXPECT_EQ(FsckText(*fs), "");
}

TEST(EngineTest, CleaningMigratesValidDataAndResetsVictims) {
  auto dev = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=14,max_active=14,auto_close=0");
  ZoneFsOptions opts;
  opts.policy.zc = "greedy";
  opts.policy.zc_trigger_free_pct = 101;  // always clean
  opts.zc_interval_ms = 10;
  ASSERT_TRUE(ZoneFs::Format(dev.get(), opts).ok());
  // Fill without cleaning first, so that zones hold interleaved live and dead files.
  ZoneFsOptions quiet = opts;
  quiet.policy.zc = "off";
  std::shared_ptr<ZoneFs> fs;
  ASSERT_TRUE(ZoneFs::Mount(dev, quiet, &fs).ok());
  auto rfs = fs->file_system();
  for (int i = 0; i < 16; i++) {
    ASSERT_TRUE(WriteFile(rfs.get(), BlobName(i), Pattern(i, 256 << 10)).ok());
  }
  for (int i = 0; i < 16; i += 2) ASSERT_TRUE(rfs->DeleteFile(BlobName(i), IOOptions(), nullptr).ok());
  uint64_t valid_before = ValidBytes(fs->View());
  rfs.reset();
  fs.reset();
  ASSERT_TRUE(ZoneFs::Mount(dev, opts, &fs).ok());
  rfs = fs->file_system();
  // Wait (bounded) for the cleaner to empty the half-dead zones.
  Json m;
  for (int i = 0; i < 500; i++) {
    m = fs->Stats().ToJson();
    if (m.Find("resets_zc")->number() >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(m.Find("resets_zc")->number(), 2);
  EXPECT_GT(m.Find("zc_copy_bytes")->Find("blob")->number(), 0);
  EXPECT_GT(m.Find("fs_waf")->number(), 0.99);
  rfs.reset();
  fs.reset();  // stops the cleaner
  ASSERT_TRUE(ZoneFs::Mount(dev, quiet, &fs).ok());
  rfs = fs->file_system();
  for (int i = 1; i < 16; i += 2) {
    EXPECT_EQ(ReadFile(rfs.get(), BlobName(i)), Pattern(i, 256 << 10)) << i;
  }
  EXPECT_EQ(ValidBytes(fs->View()), valid_before);
  EXPECT_EQ(FsckText(*fs), "");
}

TEST(EngineTest, FullDeviceFailsWithNoSpaceQuickly) {
  auto dev = OpenTestDevice("ram:zones=12,zone_size=1M,max_open=14,max_active=14,auto_close=0");
  ZoneFsOptions opts;
  opts.alloc_timeout_ms = 2000;
  auto fs = FormatAndMount(dev, opts);
  auto rfs = fs->file_system();
  rocksdb::IOStatus s;
  int n = 0;
  auto t0 = std::chrono::steady_clock::now();
  while (n < 100) {
    s = WriteFile(rfs.get(), "/f" + std::to_string(n) + ".sst", Pattern(n, 300 << 10));
    if (!s.ok()) break;
    n++;
  }
  auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(s.IsNoSpace()) << s.ToString();
  EXPECT_NE(s.ToString().find("no zone for /f"), std::string::npos) << s.ToString();
  EXPECT_LT(secs, 30.0);  // bounded by alloc_timeout_ms, not a hang
  EXPECT_GT(n, 20);
  // After a restart every synced file reads back.
  rfs.reset();
  fs.reset();
  ASSERT_TRUE(ZoneFs::Mount(dev, opts, &fs).ok());
  rfs = fs->file_system();
  for (int i = 0; i < n; i++) EXPECT_EQ(ReadFile(rfs.get(), "/f" + std::to_string(i) + ".sst"), Pattern(i, 300 << 10));
  EXPECT_EQ(FsckText(*fs), "");
  // Space comes back after deletes.
  for (int i = 0; i < n; i++) ASSERT_TRUE(rfs->DeleteFile("/f" + std::to_string(i) + ".sst", IOOptions(), nullptr).ok());
  EXPECT_TRUE(WriteFile(rfs.get(), "/again.sst", Pattern(7, 300 << 10)).ok());
}

}  // namespace
}  // namespace zonekv

namespace zonekv {
namespace {

TEST(EngineTest, FsckReportsEveryInconsistency) {
  auto dev = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=14,max_active=14,auto_close=0");
  ZoneFsOptions opts;
  opts.policy.zc = "off";
  auto fs = FormatAndMount(dev, opts);
  auto rfs = fs->file_system();
  ASSERT_TRUE(WriteFile(rfs.get(), "/000001.sst", Pattern(1, 100 << 10)).ok());
  ASSERT_TRUE(WriteFile(rfs.get(), "/000002.sst", Pattern(2, 100 << 10)).ok());
  std::vector<FileExtents> files = fs->Files();
  ASSERT_EQ(files.size(), 2u);
  rfs.reset();
  fs.reset();
  // Lose the data of the first file behind the file system's back.
  ASSERT_TRUE(dev->ResetZone(files[0].extents[0].zone).ok());
  std::shared_ptr<ZoneFs> broken;
  Status s = ZoneFs::Mount(dev, opts, &broken);
  EXPECT_TRUE(s.Is(Status::Code::kCorruption)) << s.ToString();
  EXPECT_NE(s.message().find("beyond the zone's write pointer"), std::string::npos) << s.message();
  ZoneFsOptions ro = opts;
  ro.read_only = true;
  ASSERT_TRUE(ZoneFs::Mount(dev, ro, &broken).ok());
  std::vector<FsckProblem> problems = broken->Fsck();
  ASSERT_FALSE(problems.empty());
  std::string all = FsckText(*broken);
  // Both files were in the reset zone: the first is named, and so is the
  // zone. The second held the zone's last data, so it looks like the
  // unacknowledged tail a power loss may cut (DropUnwrittenTailLocked); the
  // read-only mount says it would cut it, and the read-write mount refused.
  EXPECT_NE(all.find("file /000001.sst extent 0"), std::string::npos) << all;
  EXPECT_NE(all.find("more than its write pointer 0"), std::string::npos) << all;
  ASSERT_EQ(broken->MountRepairs().size(), 1u);
  EXPECT_NE(broken->MountRepairs()[0].find("file /000002.sst"), std::string::npos) << broken->MountRepairs()[0];
}

}  // namespace
}  // namespace zonekv

namespace zonekv {
namespace {

// The engine resets what the reset policy returns, and only that.
TEST(EngineTest, ResetPolicyDecides) {
  for (const char* policy : {"eager", "lazy"}) {
    auto dev = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=14,max_active=14,auto_close=0");
    ZoneFsOptions opts;
    opts.policy.zc = "off";
    ASSERT_TRUE(opts.policy.Set("reset", policy).ok());
    ASSERT_TRUE(opts.policy.Set("reset_lazy_twp", "1.0").ok());
    auto fs = FormatAndMount(dev, opts);
    auto rfs = fs->file_system();
    ASSERT_TRUE(WriteFile(rfs.get(), "/000001.sst", Pattern(1, 512 << 10)).ok());  // half a zone
    ASSERT_TRUE(rfs->DeleteFile("/000001.sst", IOOptions(), nullptr).ok());
    Json m = fs->Stats().ToJson();
    uint64_t written = 0;
    for (const auto& z : fs->View().zones) written += z.written_bytes;
    if (std::string(policy) == "eager") {
      EXPECT_EQ(m.Find("resets_runtime")->number(), 1);
      EXPECT_DOUBLE_EQ(m.Find("r_wp")->number(), 0.5);  // reset at half the zone
      EXPECT_EQ(written, 0u);
    } else {
      // Lazy with T_WP = 1: a half-written zone without valid data waits.
      EXPECT_EQ(m.Find("resets_runtime")->number(), 0);
      EXPECT_EQ(written, 512u << 10);
    }
    EXPECT_EQ(FsckText(*fs), "");
  }
}

}  // namespace
}  // namespace zonekv

namespace zonekv {

// An external compactor's job hint reaches the SSTs its thread creates, and
// only those: CAZA needs level and key range before the first write.
TEST(EngineTest, ThreadJobHintLabelsSstsCreatedOnThatThread) {
  auto dev = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=6,max_active=6");
  auto fs = FormatAndMount(dev, ZoneFsOptions());
  auto rfs = fs->file_system();
  FileHints h;
  h.job = 7;
  h.level = 3;
  h.smallest_key = "k100";
  h.largest_key = "k200";
  ZoneFs::SetThreadJobHint(h);
  ASSERT_TRUE(WriteFile(rfs.get(), "/000011.sst", Pattern(3, 8192)).ok());
  ASSERT_TRUE(WriteFile(rfs.get(), "/000012.log", Pattern(4, 8192)).ok());
  std::thread other([&] { ASSERT_TRUE(WriteFile(rfs.get(), "/000013.sst", Pattern(5, 8192)).ok()); });
  other.join();
  ZoneFs::ClearThreadJobHint();
  ASSERT_TRUE(WriteFile(rfs.get(), "/000014.sst", Pattern(6, 8192)).ok());
  std::map<std::string, FileHints> hints;
  for (const auto& f : fs->View().files) hints[f.name] = f.hints;
  EXPECT_EQ(hints["/000011.sst"].level, 3);
  EXPECT_EQ(hints["/000011.sst"].job, 7);
  EXPECT_EQ(hints["/000011.sst"].smallest_key, "k100");
  EXPECT_EQ(hints["/000011.sst"].largest_key, "k200");
  EXPECT_EQ(hints["/000012.log"].level, -1);   // not an SST
  EXPECT_EQ(hints["/000013.sst"].level, -1);   // another thread
  EXPECT_EQ(hints["/000014.sst"].level, -1);   // after the job ended
}

// RocksDB hints no lifetime (WLTH_NOT_SET) for the SSTs of a non-leveled
// compaction style, as under the external compactor: an SST whose level is
// known gets the one leveled style would give it (L0/L1 medium, L2 long,
// deeper extreme), so that LIZA places it as under native compaction. A
// hint RocksDB does give is kept, and files without a level stay unset.
TEST(EngineTest, SstWithoutRocksDbLifetimeGetsItsLevelsLifetime) {
  auto dev = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=6,max_active=6");
  auto fs = FormatAndMount(dev, ZoneFsOptions());
  auto rfs = fs->file_system();
  auto write = [&](const std::string& name, int level, rocksdb::Env::WriteLifeTimeHint hint) {
    if (level >= 0) {
      FileHints h;
      h.level = level;
      h.smallest_key = "a";
      h.largest_key = "b";
      ZoneFs::SetThreadJobHint(h);
    }
    std::unique_ptr<rocksdb::FSWritableFile> w;
    ASSERT_TRUE(rfs->NewWritableFile(name, rocksdb::FileOptions(), &w, nullptr).ok());
    w->SetWriteLifeTimeHint(hint);
    ASSERT_TRUE(w->Append(Pattern(1, 4096), rocksdb::IOOptions(), nullptr).ok());
    ASSERT_TRUE(w->Close(rocksdb::IOOptions(), nullptr).ok());
    ZoneFs::ClearThreadJobHint();
  };
  for (int level = 0; level <= 4; level++) write("/00002" + std::to_string(level) + ".sst", level, rocksdb::Env::WLTH_NOT_SET);
  write("/000030.sst", 3, rocksdb::Env::WLTH_SHORT);
  write("/000031.sst", -1, rocksdb::Env::WLTH_NOT_SET);
  write("/000032.log", -1, rocksdb::Env::WLTH_NOT_SET);
  std::map<std::string, Lifetime> lt;
  for (const auto& f : fs->View().files) lt[f.name] = f.hints.lifetime;
  EXPECT_EQ(lt["/000020.sst"], Lifetime::kMedium);
  EXPECT_EQ(lt["/000021.sst"], Lifetime::kMedium);
  EXPECT_EQ(lt["/000022.sst"], Lifetime::kLong);
  EXPECT_EQ(lt["/000023.sst"], Lifetime::kExtreme);
  EXPECT_EQ(lt["/000024.sst"], Lifetime::kExtreme);
  EXPECT_EQ(lt["/000030.sst"], Lifetime::kShort);   // RocksDB's own hint
  EXPECT_EQ(lt["/000031.sst"], Lifetime::kNotSet);  // no level known
  EXPECT_EQ(lt["/000032.log"], Lifetime::kNotSet);  // not an SST
}

}  // namespace zonekv

namespace zonekv {
namespace {

// Files open for writing (MANIFEST, info LOG, WAL) do not pin the full zones
// they wrote earlier: the cleaner moves those extents and the writer goes on
// appending. (Pinned zones once held 30-70 MiB of garbage that no cleaning
// could reach, and writers failed with NoSpace.) The fixture lays out, on
// 1 MiB zones:
//   zone X: D (d bytes), then the first 1 MiB - d bytes of W, the open
//           MANIFEST, which wrote w bytes and synced them;
//   zone Z: E1 (e1 bytes), E2 (1 MiB - e1 bytes);
// then deletes D and E1, so that greedy cleaning takes both zones.
class OpenWriterCleaningTest : public ::testing::Test {
 protected:
  static constexpr const char* kW = "/MANIFEST-000002";

  void Lay(size_t d, size_t w, size_t e1) {
    dev_ = OpenTestDevice("ram:zones=16,zone_size=1M,max_open=14,max_active=14,auto_close=0");
    opts_.policy.zc = "greedy";
    opts_.policy.zc_trigger_free_pct = 101;  // always clean
    opts_.policy.reset = "lazy";             // keep partial zones: the layout stays put
    opts_.zc_interval_ms = 10;
    fs_ = FormatAndMount(dev_, opts_);
    rfs_ = fs_->file_system();
    ASSERT_TRUE(WriteFile(rfs_.get(), "/000001.sst", Pattern(1, d)).ok());
    ASSERT_TRUE(rfs_->NewWritableFile(kW, FileOptions(), &w_, nullptr).ok());
    wdata_ = Pattern(2, w);
    ASSERT_TRUE(w_->Append(wdata_, IOOptions(), nullptr).ok());
    ASSERT_TRUE(w_->Sync(IOOptions(), nullptr).ok());
    ASSERT_TRUE(WriteFile(rfs_.get(), "/000003.sst", Pattern(3, e1)).ok());
    ASSERT_TRUE(WriteFile(rfs_.get(), "/000004.sst", Pattern(4, (1 << 20) - e1)).ok());
    std::map<std::string, std::map<uint32_t, uint64_t>> where;
    for (const auto& f : fs_->View().files) where[f.name] = f.bytes_per_zone;
    ASSERT_EQ(where["/000001.sst"].size(), 1u);
    x_ = where["/000001.sst"].begin()->first;
    ASSERT_EQ(where[kW][x_], (1u << 20) - d) << "W should start in D's zone";
    // The cleaner runs between the two deletes at times: delete the larger
    // garbage first, so that a pass that sees only one victim takes the zone
    // greedy takes first when it sees both.
    const char* first = "/000001.sst";  // D
    const char* second = "/000003.sst";  // E1
    if (e1 > d) std::swap(first, second);
    ASSERT_TRUE(rfs_->DeleteFile(first, IOOptions(), nullptr).ok());
    ASSERT_TRUE(rfs_->DeleteFile(second, IOOptions(), nullptr).ok());
  }

  // Waits (bounded) until the cleaner has moved W out of zone X and reset
  // X. (Until the reset, the move may not be journaled yet: a read-only
  // mount then reads W from X, and a reset during that read would change
  // what it reads under it.)
  bool MovedOutOfX() {
    for (int i = 0; i < 500; i++) {
      FsView v = fs_->View();
      const ZoneView* x = v.FindZone(x_);
      for (const auto& f : v.files) {
        if (f.name == kW && f.bytes_per_zone.count(x_) == 0 && x != nullptr && x->written_bytes == 0) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  // What a crash now would leave: a read-only mount, which sees only the
  // journal, reads W as `want`.
  void ExpectJournaled(const std::string& want) {
    ZoneFsOptions ro = opts_;
    ro.read_only = true;
    std::shared_ptr<ZoneFs> snap;
    ASSERT_TRUE(ZoneFs::Mount(dev_, ro, &snap).ok());
    EXPECT_EQ(ReadFile(snap->file_system().get(), kW), want);
    EXPECT_EQ(FsckText(*snap), "");
  }

  // The writer appends, syncs and closes; everything reads back, before and
  // after a remount.
  void FinishAndRemount() {
    std::string more = Pattern(5, 300 << 10);
    ASSERT_TRUE(w_->Append(more, IOOptions(), nullptr).ok());
    ASSERT_TRUE(w_->Sync(IOOptions(), nullptr).ok());
    ASSERT_NO_FATAL_FAILURE(ExpectJournaled(wdata_ + more));
    ASSERT_TRUE(w_->Close(IOOptions(), nullptr).ok());
    EXPECT_EQ(ReadFile(rfs_.get(), kW), wdata_ + more);
    EXPECT_EQ(FsckText(*fs_), "");
    rfs_.reset();
    fs_.reset();
    ASSERT_TRUE(ZoneFs::Mount(dev_, opts_, &fs_).ok());
    EXPECT_EQ(ReadFile(fs_->file_system().get(), kW), wdata_ + more);
    EXPECT_EQ(FsckText(*fs_), "");
  }

  size_t ExtentsOfW() {
    for (const auto& f : fs_->Files()) {
      if (f.file.name == kW) return f.extents.size();
    }
    return 0;
  }

  std::shared_ptr<ZonedDevice> dev_;
  ZoneFsOptions opts_;
  std::shared_ptr<ZoneFs> fs_;
  std::shared_ptr<rocksdb::FileSystem> rfs_;
  std::unique_ptr<rocksdb::FSWritableFile> w_;
  std::string wdata_;
  uint32_t x_ = 0;
};

// X holds 256 KiB of W (synced, not its last extent) and is greedy's first
// pick; the extent moves whole.
TEST_F(OpenWriterCleaningTest, MovesEarlierExtentsOfFilesOpenForWriting) {
  ASSERT_NO_FATAL_FAILURE(Lay(768 << 10, 512 << 10, 256 << 10));
  ASSERT_TRUE(MovedOutOfX());
  EXPECT_GE(fs_->Stats().ToJson().Find("resets_zc")->number(), 1);
  ExpectJournaled(wdata_);
  EXPECT_EQ(ReadFile(rfs_.get(), "/000004.sst"), Pattern(4, 768 << 10));
  FinishAndRemount();
}

// Greedy cleans Z (512 KiB valid) first, which fills half of the cleaner's
// zone; then X (768 KiB, all W's): 512 KiB fit, 256 KiB go to a new zone.
// The journaled prefix grows by one extent and the writer's next commit
// keeps it.
TEST_F(OpenWriterCleaningTest, SplitsAJournaledExtentOfAFileOpenForWriting) {
  ASSERT_NO_FATAL_FAILURE(Lay(256 << 10, 1 << 20, 512 << 10));
  ASSERT_TRUE(MovedOutOfX());
  EXPECT_GE(ExtentsOfW(), 3u) << "the moved extent should be split in two (plus W's extent in its own zone)";
  ExpectJournaled(wdata_);
  EXPECT_EQ(ReadFile(rfs_.get(), "/000004.sst"), Pattern(4, 512 << 10));
  FinishAndRemount();
}

}  // namespace
}  // namespace zonekv

namespace zonekv {

// Forwards to a device; runs `on_write` before each write to zone
// `first_hooked_zone` or above made on a thread other than the one that
// created it (the cleaner's data copies, here: its journal writes go to the
// metadata zones, under the file system's lock).
class WriteHookDevice final : public ZonedDevice {
 public:
  explicit WriteHookDevice(std::shared_ptr<ZonedDevice> base) : base_(std::move(base)) {}
  std::function<void()> on_write;
  std::atomic<uint32_t> first_hooked_zone{UINT32_MAX};
  const DeviceGeometry& geometry() const override { return base_->geometry(); }
  std::string name() const override { return "hook(" + base_->name() + ")"; }
  Status ReportZones(uint32_t first, uint32_t count, std::vector<ZoneInfo>* zones) override {
    return base_->ReportZones(first, count, zones);
  }
  Status Read(uint64_t off, size_t n, char* buf) override { return base_->Read(off, n, buf); }
  Status Write(uint64_t off, const char* data, size_t n) override {
    if (on_write && off / geometry().zone_size_bytes >= first_hooked_zone && std::this_thread::get_id() != owner_) {
      on_write();
    }
    return base_->Write(off, data, n);
  }
  Status Append(uint32_t zone, const char* data, size_t n, uint64_t* at) override {
    return base_->Append(zone, data, n, at);
  }
  Status OpenZone(uint32_t zone) override { return base_->OpenZone(zone); }
  Status CloseZone(uint32_t zone) override { return base_->CloseZone(zone); }
  Status FinishZone(uint32_t zone) override { return base_->FinishZone(zone); }
  Status ResetZone(uint32_t zone) override { return base_->ResetZone(zone); }
  Status Flush() override { return base_->Flush(); }
  DeviceCounters counters() const override { return base_->counters(); }

 private:
  std::shared_ptr<ZonedDevice> base_;
  std::thread::id owner_ = std::this_thread::get_id();
};

namespace {

// The set-up of the cleaner-race tests: a WriteHookDevice, options whose
// greedy cleaner runs all the time (every 10 ms), and the file system
// formatted and mounted with cleaning off, so that the test lays out its
// files before it mounts again with `*opts`.
void MountForCleanerRace(std::shared_ptr<WriteHookDevice>* hook, ZoneFsOptions* opts, std::shared_ptr<ZoneFs>* fs) {
  *hook = std::make_shared<WriteHookDevice>(OpenTestDevice("ram:zones=16,zone_size=1M,max_open=14,max_active=14,auto_close=0"));
  opts->policy.zc = "greedy";
  opts->policy.zc_trigger_free_pct = 101;  // always clean
  opts->zc_interval_ms = 10;
  ASSERT_TRUE(ZoneFs::Format(hook->get(), *opts).ok());
  ZoneFsOptions quiet = *opts;
  quiet.policy.zc = "off";
  ASSERT_TRUE(ZoneFs::Mount(*hook, quiet, fs).ok());
}

// The file system's stats once its cleaner has reset a zone, or after 5 s.
Json WaitForACleanedZone(ZoneFs* fs) {
  Json m;
  for (int i = 0; i < 500; i++) {
    m = fs->Stats().ToJson();
    if (m.Find("resets_zc")->number() >= 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return m;
}

}  // namespace

// Fsck on a mounted file system while the cleaner is between copying a
// file's extents and swapping them in: the copies already count as valid
// bytes of the cleaner's zone. Fsck must not call that an inconsistency
// (it did: a rare failure of the RocksDB cleaning test's final fsck).
TEST(EngineTest, FsckIsCleanWhileTheCleanerCopies) {
  std::shared_ptr<WriteHookDevice> hook;
  ZoneFsOptions opts;
  std::shared_ptr<ZoneFs> fs;
  ASSERT_NO_FATAL_FAILURE(MountForCleanerRace(&hook, &opts, &fs));
  auto rfs = fs->file_system();
  // A file of several extents in one zone (each Sync ends an extent), and a
  // dead file beside it so that the zone is a victim.
  std::unique_ptr<rocksdb::FSWritableFile> w;
  ASSERT_TRUE(rfs->NewWritableFile("/000001.blob", FileOptions(), &w, nullptr).ok());
  std::string data = Pattern(1, 512 << 10);
  for (size_t off = 0; off < data.size(); off += 128 << 10) {
    ASSERT_TRUE(w->Append(rocksdb::Slice(data.data() + off, 128 << 10), IOOptions(), nullptr).ok());
    ASSERT_TRUE(w->Sync(IOOptions(), nullptr).ok());
  }
  ASSERT_TRUE(w->Close(IOOptions(), nullptr).ok());
  ASSERT_TRUE(WriteFile(rfs.get(), "/000002.blob", Pattern(2, 512 << 10)).ok());
  ASSERT_TRUE(rfs->DeleteFile("/000002.blob", IOOptions(), nullptr).ok());
  w.reset();  // the last reference to the file system: unmount (syncs the journal)
  rfs.reset();
  fs.reset();

  std::mutex mu;
  int checks = 0;
  std::string problems;
  ZoneFs* live = nullptr;
  hook->on_write = [&] {
    std::lock_guard<std::mutex> l(mu);
    if (live == nullptr) return;
    checks++;
    problems += FsckText(*live);
  };
  ASSERT_TRUE(ZoneFs::Mount(hook, opts, &fs).ok());
  {
    std::lock_guard<std::mutex> l(mu);
    hook->first_hooked_zone = fs->View().zones.front().id;  // the first data zone
    live = fs.get();
  }
  Json m = WaitForACleanedZone(fs.get());
  {
    std::lock_guard<std::mutex> l(mu);
    live = nullptr;
  }
  EXPECT_GE(m.Find("resets_zc")->number(), 1) << m.Dump();
  EXPECT_GE(checks, 4) << "the cleaner should copy each of the four extents";
  EXPECT_EQ(problems, "");
  EXPECT_EQ(ReadFile(fs->file_system().get(), "/000001.blob"), data);
  EXPECT_EQ(FsckText(*fs), "");
}

// A rename that changes what a file is (an SST named a blob file, as the
// random engine test does) while the cleaner copies it: the copies belong
// to the new owner once they join the file. They stayed counted under the
// old one (fsck: "its blob accounting differs"), a rare failure of
// SstIndexEngineTest under ASan, whose timing let the rename fall between
// the copy and the swap.
TEST(EngineTest, RenameWhileTheCleanerCopiesMovesTheCopiesAccounting) {
  std::shared_ptr<WriteHookDevice> hook;
  ZoneFsOptions opts;
  std::shared_ptr<ZoneFs> fs;
  ASSERT_NO_FATAL_FAILURE(MountForCleanerRace(&hook, &opts, &fs));
  auto rfs = fs->file_system();
  const std::string data = Pattern(1, 512 << 10);
  ASSERT_TRUE(WriteFile(rfs.get(), "/000001.sst", data).ok());
  ASSERT_TRUE(WriteFile(rfs.get(), "/000002.blob", Pattern(2, 512 << 10)).ok());
  ASSERT_TRUE(rfs->DeleteFile("/000002.blob", IOOptions(), nullptr).ok());
  rfs.reset();
  fs.reset();

  std::atomic<bool> renamed{false};
  std::string rename_error = "not run";
  hook->on_write = [&] {
    if (renamed.exchange(true)) return;
    rename_error = fs->file_system()->RenameFile("/000001.sst", "/000003.blob", IOOptions(), nullptr).ToString();
  };
  ASSERT_TRUE(ZoneFs::Mount(hook, opts, &fs).ok());
  hook->first_hooked_zone = fs->View().zones.front().id;  // the first data zone
  Json m = WaitForACleanedZone(fs.get());
  hook->on_write = nullptr;
  ASSERT_TRUE(renamed.load());
  ASSERT_EQ(rename_error, "OK");
  EXPECT_GE(m.Find("resets_zc")->number(), 1) << m.Dump();
  EXPECT_EQ(FsckText(*fs), "");
  EXPECT_EQ(ReadFile(fs->file_system().get(), "/000003.blob"), data);
  // The zones holding the file now count it as blob file 3, and no zone
  // counts SST bytes.
  uint64_t blob3 = 0;
  for (const ZoneView& z : fs->View().zones) {
    EXPECT_EQ(z.valid_bytes_by_kind[static_cast<int>(FileKind::kSst)], 0u) << "zone " << z.id;
    if (z.ybiz == 3) blob3 += z.valid_bytes_by_kind[static_cast<int>(FileKind::kBlob)];
  }
  EXPECT_EQ(blob3, data.size());
}

}  // namespace zonekv
