// The file system never waits for the device while holding its lock
// (docs/fs-locking.md). Deterministic without timing: the fault device's gate
// holds one reset, finish, flush, journal write or read at the device while
// the test checks what else completes. Every wait is bounded (kWait) and
// fails the test when it runs out.
#include <execinfo.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <thread>

#include <rocksdb/file_system.h>

#include "fs_mutex.h"
#include "fs_test_util.h"
#include "lock_checked_device.h"
#include "zonekv/fault_device.h"
#include "zonekv/mutex.h"

namespace zonekv {
namespace {

using rocksdb::FileOptions;
using rocksdb::IOOptions;
using test::Pattern;
using test::ReadFile;
using test::WriteFile;
using Op = FaultDevice::Op;

constexpr auto kWait = std::chrono::seconds(30);  // never reached when the test passes
constexpr const char* kDevice = "ram:zones=16,zone_size=1M,max_open=14,max_active=14,auto_close=0";

// A metric by path, e.g. Metric(fs, {"journal", "syncs"}).
double Metric(const ZoneFs& fs, std::initializer_list<const char*> path) {
  Json m = fs.Stats().ToJson();
  const Json* j = &m;
  for (const char* k : path) {
    j = j->Find(k);
    if (j == nullptr) {
      ADD_FAILURE() << "no metric " << k << " in " << m.Dump();
      return -1;
    }
  }
  return j->number();
}

// Polls `cond` until it holds; false if it does not within kWait.
bool Eventually(const std::function<bool()>& cond) {
  auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

class LockTest : public ::testing::Test {
 protected:
  void Mount(const ZoneFsOptions& opts) {
    std::unique_ptr<ZonedDevice> base;
    ASSERT_TRUE(OpenDevice(kDevice, &base).ok());
    dev_ = std::make_shared<FaultDevice>(std::move(base));
    fs_ = FormatAndMount(dev_, opts);
    rfs_ = fs_->file_system();
  }
  void Remount(const ZoneFsOptions& opts) {
    rfs_.reset();
    fs_.reset();
    ASSERT_TRUE(ZoneFs::Mount(dev_, opts, &fs_).ok());
    rfs_ = fs_->file_system();
  }
  void TearDown() override {
    // A failed test must not leave a command held: release, then join.
    for (Op op : {Op::kRead, Op::kWrite, Op::kReset, Op::kFinish, Op::kFlush}) dev_->Release(op);
    for (auto& f : bg_) {
      if (f.valid()) f.wait();
    }
    if (fs_) {
      EXPECT_EQ(FsckText(*fs_), "");
      EXPECT_EQ(Metric(*fs_, {"lock", "device_calls_held"}), 0);
    }
  }

  // Runs fn on another thread; Finish returns its result ("OK" or the error).
  size_t Start(std::function<std::string()> fn) {
    bg_.push_back(std::async(std::launch::async, std::move(fn)));
    return bg_.size() - 1;
  }
  std::string Finish(size_t i) {
    if (bg_[i].wait_for(kWait) != std::future_status::ready) return "still running after " + std::to_string(kWait.count()) + " s";
    return bg_[i].get();
  }
  bool Running(size_t i) { return bg_[i].wait_for(std::chrono::seconds(0)) == std::future_status::timeout; }

  // Reads, writes and syncs a new file, creates, renames and deletes one;
  // "OK" or what failed.
  std::string OtherWork(const std::string& read_name, const std::string& want, int n) {
    if (ReadFile(rfs_.get(), read_name) != want) return "read of " + read_name + " returned other data";
    std::string name = "/0000" + std::to_string(50 + n);
    rocksdb::IOStatus s = WriteFile(rfs_.get(), name + ".sst", Pattern(n, 300 << 10));
    if (s.ok()) s = WriteFile(rfs_.get(), name + ".log", Pattern(n + 1, 8 << 10));
    if (s.ok()) s = rfs_->RenameFile(name + ".log", name + ".tmp", IOOptions(), nullptr);
    if (s.ok()) s = rfs_->DeleteFile(name + ".tmp", IOOptions(), nullptr);
    return s.ToString();
  }

  std::shared_ptr<FaultDevice> dev_;
  std::shared_ptr<ZoneFs> fs_;
  std::shared_ptr<rocksdb::FileSystem> rfs_;
  std::vector<std::future<std::string>> bg_;
};

ZoneFsOptions NoCleaning() {
  ZoneFsOptions o;
  o.policy.zc = "off";
  return o;
}

TEST_F(LockTest, HeldResetStopsNeitherReadsNorWritesNorNamespaceChanges) {
  Mount(NoCleaning());
  ASSERT_TRUE(WriteFile(rfs_.get(), "/000010.sst", Pattern(1, 1 << 20)).ok());  // a zone of its own
  std::string keep = Pattern(2, 256 << 10);
  ASSERT_TRUE(WriteFile(rfs_.get(), "/000011.sst", keep).ok());
  dev_->HoldNext(Op::kReset);
  // The eager reset policy resets the emptied zone in the deleting thread.
  size_t del = Start([&] { return rfs_->DeleteFile("/000010.sst", IOOptions(), nullptr).ToString(); });
  ASSERT_TRUE(dev_->WaitUntilHeld(Op::kReset, kWait));
  EXPECT_EQ(Finish(Start([&] { return OtherWork("/000011.sst", keep, 1); })), "OK");
  EXPECT_TRUE(Running(del)) << "the reset is held at the device";
  dev_->Release(Op::kReset);
  EXPECT_EQ(Finish(del), "OK");
  EXPECT_GE(Metric(*fs_, {"resets_runtime"}), 1);
}

TEST_F(LockTest, HeldFinishStopsNeitherReadsNorWritesNorNamespaceChanges) {
  ZoneFsOptions opts = NoCleaning();
  opts.policy.finish_threshold_pct = 50;  // finish zones with less than half their capacity left
  Mount(opts);
  std::string part = Pattern(1, 768 << 10);  // leaves a quarter of its zone
  ASSERT_TRUE(WriteFile(rfs_.get(), "/000020.sst", part).ok());
  dev_->HoldNext(Op::kFinish);
  // The next allocation finishes that zone.
  size_t next = Start([&] { return WriteFile(rfs_.get(), "/000021.sst", Pattern(2, 64 << 10)).ToString(); });
  ASSERT_TRUE(dev_->WaitUntilHeld(Op::kFinish, kWait));
  // Reading the zone being finished is fine too: FINISH changes no data.
  EXPECT_EQ(Finish(Start([&] { return OtherWork("/000020.sst", part, 3); })), "OK");
  EXPECT_TRUE(Running(next)) << "the finish is held at the device";
  dev_->Release(Op::kFinish);
  EXPECT_EQ(Finish(next), "OK");
  EXPECT_EQ(Metric(*fs_, {"finishes"}), 1);
}

// A zone to finish that holds no valid data (its reset deferred, here by
// lazy reset, which resets only full zones) gives back its active resource
// by a reset instead: no padding, and the zone comes back empty.
TEST_F(LockTest, AZoneWithNoValidDataIsResetInsteadOfFinished) {
  ZoneFsOptions opts = NoCleaning();
  opts.policy.finish_threshold_pct = 50;
  opts.policy.reset = "lazy";
  Mount(opts);
  ASSERT_TRUE(WriteFile(rfs_.get(), "/000020.sst", Pattern(1, 768 << 10)).ok());  // leaves a quarter
  ASSERT_TRUE(rfs_->DeleteFile("/000020.sst", IOOptions(), nullptr).ok());
  const uint64_t finishes = dev_->issued(Op::kFinish);
  const uint64_t resets = dev_->issued(Op::kReset);
  // The next allocation's finish threshold picks the dead zone.
  const std::string data = Pattern(2, 64 << 10);
  ASSERT_TRUE(WriteFile(rfs_.get(), "/000021.sst", data).ok());
  EXPECT_EQ(dev_->issued(Op::kFinish), finishes);
  EXPECT_EQ(dev_->issued(Op::kReset), resets + 1);
  EXPECT_EQ(Metric(*fs_, {"finishes"}), 0);
  EXPECT_EQ(Metric(*fs_, {"finishes_avoided"}), 1);
  EXPECT_EQ(Metric(*fs_, {"resets_runtime"}), 0);  // not lazy reset's decision
  EXPECT_EQ(Metric(*fs_, {"ezrc"}), 1);
  EXPECT_EQ(ReadFile(rfs_.get(), "/000021.sst"), data);
}

TEST_F(LockTest, HeldFlushStopsOnlyTheSyncsThatWaitForIt) {
  Mount(NoCleaning());
  std::unique_ptr<rocksdb::FSWritableFile> a, b;
  ASSERT_TRUE(rfs_->NewWritableFile("/000031.log", FileOptions(), &a, nullptr).ok());
  ASSERT_TRUE(rfs_->NewWritableFile("/000032.log", FileOptions(), &b, nullptr).ok());
  ASSERT_TRUE(a->Append(Pattern(1, 8 << 10), IOOptions(), nullptr).ok());
  const double syncs = Metric(*fs_, {"journal", "syncs"});
  const uint64_t flushes = dev_->issued(Op::kFlush);
  dev_->HoldNext(Op::kFlush);
  size_t sync_a = Start([&] { return a->Sync(IOOptions(), nullptr).ToString(); });
  ASSERT_TRUE(dev_->WaitUntilHeld(Op::kFlush, kWait));
  // Everything enqueued so far is in the held commit: this sync waits for
  // that same flush instead of issuing one.
  size_t sync_all = Start([&] { return fs_->Sync().ToString(); });
  ASSERT_TRUE(Eventually([&] { return Metric(*fs_, {"journal", "syncs"}) == syncs + 2; }));
  EXPECT_TRUE(Running(sync_all));
  EXPECT_EQ(dev_->issued(Op::kFlush), flushes + 1);
  // A sync with a record of its own writes and flushes while the first
  // flush is held; its flush also covers what sync_all waits for.
  ASSERT_TRUE(b->Append(Pattern(2, 8 << 10), IOOptions(), nullptr).ok());
  EXPECT_EQ(Finish(Start([&] { return b->Sync(IOOptions(), nullptr).ToString(); })), "OK");
  EXPECT_EQ(Finish(sync_all), "OK");
  EXPECT_TRUE(Running(sync_a)) << "its flush is held at the device";
  dev_->Release(Op::kFlush);
  EXPECT_EQ(Finish(sync_a), "OK");
  ASSERT_TRUE(a->Close(IOOptions(), nullptr).ok());
  ASSERT_TRUE(b->Close(IOOptions(), nullptr).ok());
}

TEST_F(LockTest, ConcurrentSyncsShareOneJournalWriteAndFlush) {
  Mount(NoCleaning());
  constexpr int kFiles = 6;
  std::vector<std::unique_ptr<rocksdb::FSWritableFile>> w(kFiles);
  for (int i = 0; i < kFiles; i++) {
    ASSERT_TRUE(rfs_->NewWritableFile("/00004" + std::to_string(i) + ".log", FileOptions(), &w[i], nullptr).ok());
    ASSERT_TRUE(w[i]->Append(Pattern(i, 4 << 10), IOOptions(), nullptr).ok());
  }
  ASSERT_TRUE(fs_->Sync().ok());  // the creates
  const double syncs = Metric(*fs_, {"journal", "syncs"});
  const double flushes = Metric(*fs_, {"journal", "flushes"});
  const double writes = Metric(*fs_, {"journal", "writes"});
  auto journal_zone = static_cast<uint32_t>(fs_->Dump().Find("metadata")->Find("journal_zone")->number());
  // The first sync's journal write is held; the others queue behind it.
  dev_->HoldNext(Op::kWrite, journal_zone);
  std::vector<size_t> jobs;
  jobs.push_back(Start([&] { return w[0]->Sync(IOOptions(), nullptr).ToString(); }));
  ASSERT_TRUE(dev_->WaitUntilHeld(Op::kWrite, kWait));
  for (int i = 1; i < kFiles; i++) {
    jobs.push_back(Start([&, i] { return w[i]->Sync(IOOptions(), nullptr).ToString(); }));
  }
  ASSERT_TRUE(Eventually([&] { return Metric(*fs_, {"journal", "syncs"}) == syncs + kFiles; }));
  dev_->Release(Op::kWrite);
  for (size_t j : jobs) EXPECT_EQ(Finish(j), "OK");
  // One write and flush for the first sync, one shared by the other five.
  EXPECT_EQ(Metric(*fs_, {"journal", "flushes"}) - flushes, 2);
  EXPECT_EQ(Metric(*fs_, {"journal", "writes"}) - writes, 2);
  EXPECT_GE(Metric(*fs_, {"journal", "syncs_per_flush"}), 1.0);
  for (auto& f : w) ASSERT_TRUE(f->Close(IOOptions(), nullptr).ok());
  Remount(NoCleaning());
  for (int i = 0; i < kFiles; i++) EXPECT_EQ(ReadFile(rfs_.get(), "/00004" + std::to_string(i) + ".log"), Pattern(i, 4 << 10));
}

// The cleaner moves a file's data out of zone X while a reader still reads
// it there: the reset of X waits for that reader, and only for it.
TEST_F(LockTest, ResetWaitsForTheReadersOfItsZone) {
  Mount(NoCleaning());
  std::string data = Pattern(1, 512 << 10);
  ASSERT_TRUE(WriteFile(rfs_.get(), "/000001.blob", data).ok());
  ASSERT_TRUE(WriteFile(rfs_.get(), "/000002.blob", Pattern(2, 512 << 10)).ok());
  ASSERT_TRUE(rfs_->DeleteFile("/000002.blob", IOOptions(), nullptr).ok());
  std::vector<FileExtents> files = fs_->Files();
  ASSERT_EQ(files.size(), 1u);
  ASSERT_EQ(files[0].extents.size(), 1u);
  const uint32_t x = files[0].extents[0].zone;
  uint32_t target = UINT32_MAX;  // the cleaner takes the first empty zone
  for (const auto& z : fs_->View().zones) {
    if (z.empty() && target == UINT32_MAX) target = z.id;
  }
  ASSERT_NE(target, UINT32_MAX);

  ZoneFsOptions cleaning;
  cleaning.policy.zc = "greedy";
  cleaning.policy.zc_trigger_free_pct = 101;  // always clean
  cleaning.zc_interval_ms = 10;
  dev_->HoldNext(Op::kWrite, target);  // the cleaner's first copy
  Remount(cleaning);
  ASSERT_TRUE(dev_->WaitUntilHeld(Op::kWrite, kWait));
  // A reader looks up the file's extent in X and is held reading it.
  std::unique_ptr<rocksdb::FSRandomAccessFile> r;
  ASSERT_TRUE(rfs_->NewRandomAccessFile("/000001.blob", FileOptions(), &r, nullptr).ok());
  dev_->HoldNext(Op::kRead, x);
  std::string got(data.size(), '\0');
  size_t reader = Start([&] {
    rocksdb::Slice s;
    rocksdb::IOStatus st = r->Read(0, got.size(), IOOptions(), &s, got.data(), nullptr);
    if (st.ok() && s.ToString() != data) return std::string("read returned other data");
    return st.ToString();
  });
  ASSERT_TRUE(dev_->WaitUntilHeld(Op::kRead, kWait));
  dev_->Release(Op::kWrite);
  // The cleaner copies, swaps the extent and comes to reset X: it waits.
  ASSERT_TRUE(Eventually([&] { return Metric(*fs_, {"lock", "reset_reader_waits"}) == 1; }));
  EXPECT_EQ(Metric(*fs_, {"resets_zc"}), 0);
  ZoneInfo zi;
  ASSERT_TRUE(dev_->ReportZone(x, &zi).ok());
  EXPECT_GT(zi.written_bytes(), 0u) << "zone " << x << " was reset under its reader";
  dev_->Release(Op::kRead);
  EXPECT_EQ(Finish(reader), "OK");
  ASSERT_TRUE(Eventually([&] { return Metric(*fs_, {"resets_zc"}) >= 1; }));
  EXPECT_EQ(ReadFile(rfs_.get(), "/000001.blob"), data);  // from its new place
  r.reset();
}

TEST(LockCheckTest, CountsDeviceCommandsIssuedUnderTheLock) {
  std::unique_ptr<ZonedDevice> base;
  ASSERT_TRUE(OpenDevice(kDevice, &base).ok());
  LockCheckedDevice dev(std::shared_ptr<ZonedDevice>(std::move(base)), /*fail_on_held=*/false);
  FsMutex mu;
  ASSERT_TRUE(dev.Flush().ok());
  EXPECT_EQ(dev.calls_held(), 0u);
  {
    MutexLock l(&mu);
    ASSERT_TRUE(dev.Flush().ok());
    ZoneInfo z;
    ASSERT_TRUE(dev.ReportZone(3, &z).ok());
  }
  EXPECT_EQ(dev.calls_held(), 2u);
  ASSERT_TRUE(dev.ResetZone(3).ok());
  EXPECT_EQ(dev.calls_held(), 2u);
}

TEST(LockCheckDeathTest, AbortsOnADeviceCommandUnderTheLock) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        std::unique_ptr<ZonedDevice> base;
        if (!OpenDevice(kDevice, &base).ok()) return;
        LockCheckedDevice dev(std::shared_ptr<ZonedDevice>(std::move(base)), /*fail_on_held=*/true);
        FsMutex mu;
        MutexLock l(&mu);
        static_cast<void>(dev.ResetZone(3));
      },
      "device command ResetZone issued while holding the file-system lock");
}

TEST(LatencyHistogramTest, QuantilesWithinABucketAndExactMax) {
  LatencyHistogram h;
  EXPECT_EQ(h.QuantileNs(0.5), 0u);
  for (uint64_t ns = 1; ns <= 1000; ns++) h.Add(ns * 1000);  // 1 us .. 1 ms
  EXPECT_EQ(h.count(), 1000u);
  EXPECT_EQ(h.max_ns(), 1000000u);
  // Buckets are at most 25% wide: the reported value is the bucket's upper bound.
  EXPECT_GE(h.QuantileNs(0.5), 500000u);
  EXPECT_LE(h.QuantileNs(0.5), 625000u);
  EXPECT_GE(h.QuantileNs(0.99), 990000u);
  EXPECT_LE(h.QuantileNs(0.99), 1000000u);
  EXPECT_EQ(h.QuantileNs(1.0), 1000000u);
  Json j = h.Summary().ToJson();
  EXPECT_EQ(j.Find("max")->number(), 1000.0);
}

// One hold from a function of the test executable (not inlined, so that it
// is a frame of the recorded stack).
[[gnu::noinline]] void HoldOnce(FsMutex* mu, int work) {
  MutexLock l(mu);
  volatile int sink = 0;
  for (int i = 0; i < work; i++) sink = sink + i;
}

TEST(LockProfileTest, OffByDefault) {
  ASSERT_EQ(std::getenv("ZONEKV_LOCK_PROFILE"), nullptr);
  FsMutex mu;
  HoldOnce(&mu, 10);
  MutexLock l(&mu);
  FsMutex::Stats st;
  mu.StatsLocked(&st);
  Json j = st.Summary().ToJson();
  EXPECT_EQ(j.Find("acquisitions")->number(), 2.0);
  EXPECT_EQ(j.Find("longest"), nullptr);
  EXPECT_EQ(j.Find("hold_cpu_us"), nullptr);
}

TEST(LockProfileTest, KeepsTheLongestHoldsWithTheirStacks) {
  setenv("ZONEKV_LOCK_PROFILE", "1", 1);
  FsMutex mu;
  unsetenv("ZONEKV_LOCK_PROFILE");
  const int holds = static_cast<int>(FsMutex::kLongest) + 8;
  for (int i = 0; i < holds; i++) HoldOnce(&mu, 1000 * i);
  FsMutex::Stats st;
  {
    MutexLock l(&mu);
    mu.StatsLocked(&st);
  }
  ASSERT_TRUE(st.profile);
  EXPECT_EQ(st.hold_cpu.count(), static_cast<uint64_t>(holds));  // the StatsLocked hold has not ended
  ASSERT_EQ(st.longest.size(), FsMutex::kLongest);
  ASSERT_EQ(st.longest_cpu.size(), FsMutex::kLongest);
  for (size_t i = 1; i < FsMutex::kLongest; i++) {
    EXPECT_GE(st.longest[i - 1].wall_ns, st.longest[i].wall_ns);
    EXPECT_GE(st.longest_cpu[i - 1].used.cpu_ns, st.longest_cpu[i].used.cpu_ns);
  }
  EXPECT_EQ(st.longest[0].wall_ns, st.hold.max_ns());
  // Every stack leads back to this test's own code.
  for (size_t i = 0; i < st.longest.size(); i++) {
    const FsMutex::Hold& h = st.longest[i];
    char** names = backtrace_symbols(h.stack, h.frames);
    ASSERT_NE(names, nullptr);
    bool ours = false;
    for (int k = 0; k < h.frames; k++) ours |= std::strstr(names[k], "fs_lock_test") != nullptr;
    std::free(names);
    EXPECT_TRUE(ours) << "hold " << i << " has no frame in fs_lock_test";
  }
  Json j = st.Summary().ToJson();
  ASSERT_NE(j.Find("longest"), nullptr);
  EXPECT_NE(j.Find("longest")->Dump().find("fs_lock_test"), std::string::npos);
  ASSERT_NE(j.Find("hold_cpu_us"), nullptr);
  ASSERT_NE(j.Find("longest_cpu"), nullptr);
}

}  // namespace
}  // namespace zonekv
